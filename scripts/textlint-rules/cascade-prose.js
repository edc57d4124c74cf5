// Cascade's own textlint rule, for what no maintained rule checks:
// - a sentence holds at most `maxWords` words (40 by default);
// - no parentheses inside parentheses.
// Sentences come from sentence-splitter, as in textlint-rule-sentence-length.
// Inline code counts as one word, as in scripts/prose-stats.ts.
import { splitAST, SentenceSplitterSyntax } from 'sentence-splitter';

const WORD = /[A-Za-z0-9]+(?:['’.-][A-Za-z0-9]+)*/g;

/** The prose of inline nodes: inline code becomes one word ("X"), links keep their text. */
export function proseOf(nodes) {
  return nodes
    .map((n) => {
      if (n.type === 'Code') return 'X';
      if (n.children) return proseOf(n.children);
      return typeof n.value === 'string' ? n.value : '';
    })
    .join('');
}

/** The words of a piece of prose. */
export function countWords(text) {
  return (text.match(WORD) ?? []).length;
}

/** The offset of the first `(` opened inside another one, or -1. */
export function nestedParenthesis(text) {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '(') {
      depth += 1;
      if (depth > 1) return i;
    } else if (text[i] === ')' && depth > 0) depth -= 1;
  }
  return -1;
}

export default function cascadeProse(context, options = {}) {
  const { Syntax, RuleError, report, locator } = context;
  const maxWords = options.maxWords ?? 40;
  return {
    [Syntax.Paragraph](node) {
      for (const sentence of splitAST(node).children) {
        if (sentence.type !== SentenceSplitterSyntax.Sentence) continue;
        const prose = proseOf(sentence.children);
        const words = countWords(prose);
        const start = sentence.range[0] - node.range[0];
        if (words > maxWords) {
          report(
            node,
            new RuleError(`Sentence of ${words} words: at most ${maxWords}.`, {
              padding: locator.range([start, start + 1]),
            }),
          );
        }
        if (nestedParenthesis(prose) >= 0) {
          report(
            node,
            new RuleError('A parenthesis inside a parenthesis: make it a sentence of its own.', {
              padding: locator.range([start, start + 1]),
            }),
          );
        }
      }
    },
  };
}
