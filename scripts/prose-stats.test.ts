// The prose style of README.md and docs/: a median sentence of at most 18
// words and none over 40, counted as scripts/prose-stats.ts counts.
// textlint (`npm run lint:prose`) reports each long sentence where it is;
// this test holds the median, which no textlint rule checks. And the README
// reads in two minutes: at most 700 words outside its code blocks.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { median, proseWordCount, sentenceLengths } from './prose-stats.ts';

const root = join(import.meta.dirname, '..');
const ignored = readFileSync(join(root, '.textlintignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return markdownUnder(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

const pages = [join(root, 'README.md'), ...markdownUnder(join(root, 'docs'))].filter(
  (path) => !ignored.includes(relative(root, path)),
);

describe('sentence lengths', () => {
  it("counts words as the team's script does", () => {
    const text = [
      '# A heading is left out',
      'One short sentence here. Then a `code span` counts as one word.',
      '',
      '| a table | is left out too |',
      '- a list item ends a sentence',
      '- [a link](https://example.com/left/out) keeps its text',
      '```sh',
      'code blocks are left out',
      '```',
    ].join('\n');
    expect(sentenceLengths(text)).toEqual([4, 7, 6, 5]);
  });

  it('takes the median of an even count as the mean of the middle two', () => {
    expect(median([1, 5, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('finds the pages', () => {
    expect(pages.map((p) => relative(root, p))).toContain('README.md');
  });

  it.each(pages.map((p) => [relative(root, p), p]))('%s has no sentence over 40 words', (_name, path) => {
    const over = sentenceLengths(readFileSync(path, 'utf8')).filter((n) => n > 40);
    expect(over).toEqual([]);
  });

  it('counts the words outside code blocks, as wc -w does', () => {
    expect(proseWordCount('# Title\n\n| a | b |\n\n```sh\nnpm start now\n```\nTwo words.\n')).toBe(9);
  });

  it('README.md has at most 700 words outside its code blocks', () => {
    expect(proseWordCount(readFileSync(join(root, 'README.md'), 'utf8'))).toBeLessThanOrEqual(700);
  });

  it('README.md and docs/ have a median sentence of at most 18 words', () => {
    const lengths = pages.flatMap((p) => sentenceLengths(readFileSync(p, 'utf8')));
    expect(median(lengths)).toBeLessThanOrEqual(18);
  });
});
