// Sentence lengths of Markdown prose, counted as the team's sentence-lengths.py
// counts them. Code blocks, tables, headings and link targets are left out.
// Each list item ends a sentence, and inline code is one word. Pieces of fewer
// than 3 words are not sentences.

const WORD = /[A-Za-z0-9]+(?:['’.-][A-Za-z0-9]+)*/g;
const SKIPPED_LINE = /^(#|\||<|---)/;
const LIST_ITEM = /^([-*+]|\d+\.)\s+/;

/** The paragraphs of a Markdown text, each list item a paragraph of its own. */
function paragraphs(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/<!--[\s\S]*?-->/g, '');
  const out: string[] = [];
  let current: string[] = [];
  const close = () => {
    if (current.length > 0) out.push(current.join(' '));
    current = [];
  };
  for (const line of text.split('\n')) {
    const s = line.trim();
    if (s === '' || SKIPPED_LINE.test(s)) {
      close();
      continue;
    }
    if (LIST_ITEM.test(s)) close();
    current.push(s.replace(LIST_ITEM, ''));
  }
  close();
  return out;
}

/** The sentences of one paragraph: a break after ".", "!", "?", ":" or ";" before a capital, a quote or a bracket. */
export function splitSentences(paragraph: string): string[] {
  return paragraph.split(/(?<=[.!?:;])\s+(?=[A-Z`*([])/);
}

/** The words of a piece of prose. */
export function countWords(text: string): number {
  return (text.match(WORD) ?? []).length;
}

/** The word count of every sentence of a Markdown text. */
export function sentenceLengths(markdown: string): number[] {
  const lengths: number[] = [];
  for (const p of paragraphs(markdown)) {
    const prose = p.replace(/\]\([^)]*\)/g, ']').replace(/`[^`]*`/g, 'X');
    for (const sentence of splitSentences(prose)) {
      const words = countWords(sentence);
      if (words >= 3) lengths.push(words);
    }
  }
  return lengths;
}

/** The words of a Markdown text outside its code blocks, as `wc -w` counts them: table bars and marks included. */
export function proseWordCount(markdown: string): number {
  return markdown
    .replace(/^\s*```[\s\S]*?^\s*```.*$/gm, '')
    .split(/\s+/)
    .filter(Boolean).length;
}

/** The median as Python's statistics.median gives it: the mean of the two middle values of an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const at = (i: number) => sorted[i] ?? Number.NaN;
  return sorted.length % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}
