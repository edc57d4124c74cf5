// Code comments follow the prose style of README.md and docs/: no sentence over
// 40 words and no parentheses inside parentheses, counted by scripts/comment-prose.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commentBlocks, commentFindings, commentItems, hasNestedParentheses, itemSentences } from './comment-prose.ts';

const root = join(import.meta.dirname, '..');
const DIRS = ['shared', 'functions', 'cli', 'local', 'scripts', 'bench'];
const SOURCE = /\.(ts|js|mjs|cjs|sh|ya?ml|go)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'build', 'results']);
const GENERATED = /@generated|DO NOT EDIT/;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : sourcesUnder(path);
    return SOURCE.test(e.name) && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = DIRS.flatMap((d) => sourcesUnder(join(root, d)))
  .map((path) => ({ name: relative(root, path), text: readFileSync(path, 'utf8') }))
  .filter((f) => !GENERATED.test(f.text.split('\n').slice(0, 5).join('\n')));

function findingsOf(file: { name: string; text: string }): string[] {
  return commentFindings(file.name, file.text).map((f) => `${file.name}:${f.line} ${f.problem}: ${f.text}`);
}

const texts = (path: string, text: string) => commentBlocks(path, text).map((b) => b.lines.join('\n'));

describe('comment blocks', () => {
  it('joins line comments on consecutive lines and keeps a trailing comment apart', () => {
    const source = ['// one', '// two', 'const a = 1; // trailing', '// three', '', '// four'].join('\n');
    expect(texts('a.ts', source)).toEqual(['one\ntwo', 'trailing', 'three', 'four']);
  });

  it('strips the markers of block and JSDoc comments', () => {
    const source = ['/**', ' * A doc comment', ' * on two lines.', ' */', 'const a = "// not a comment"; /* inline */'];
    expect(texts('a.ts', source.join('\n'))).toEqual(['\nA doc comment\non two lines.\n', ' inline']);
  });

  it('leaves out directives and shebangs', () => {
    const source = [
      '#!/usr/bin/env node',
      '// eslint-disable-next-line no-console',
      '// @ts-expect-error why',
      '// kept',
    ];
    expect(texts('a.js', source.join('\n'))).toEqual(['kept']);
  });

  it('reads # comments of shell and YAML files and // comments of Go files', () => {
    expect(texts('a.sh', '#!/bin/sh\n# one\n# two\necho "#" # not read')).toEqual(['one\ntwo']);
    expect(texts('a.yaml', 'a: 1\n  # indented\n')).toEqual(['indented']);
    expect(texts('a.go', '// Package a\npackage a')).toEqual(['Package a']);
  });
});

describe('comment items', () => {
  const items = (lines: string[]) => commentItems({ line: 10, lines }).map((i) => [i.line, i.text]);

  it('makes each paragraph one item, joining its lines', () => {
    expect(items(['First line', 'goes on.', '', 'Second.'])).toEqual([
      [10, 'First line goes on.'],
      [13, 'Second.'],
    ]);
  });

  it('makes each list item, flag and JSDoc tag an item that may go on over the next lines', () => {
    const lines = ['Intro:', '- one', '  more', '1. two', '--flag says', 'what', '-n short', '@param x the x'];
    expect(items(lines)).toEqual([
      [10, 'Intro:'],
      [11, '- one more'],
      [13, '1. two'],
      [14, '--flag says what'],
      [16, '-n short'],
      [17, '@param x the x'],
    ]);
  });

  it('makes each table row and column line an item of one line', () => {
    const lines = [
      'Usage:',
      '  run.sh a     does a',
      '  run.sh b     does b',
      'Then prose',
      'with `a:  b` code.',
      '| a | b |',
    ];
    expect(items(lines)).toEqual([
      [10, 'Usage:'],
      [11, 'run.sh a     does a'],
      [12, 'run.sh b     does b'],
      [13, 'Then prose with `a:  b` code.'],
      [15, '| a | b |'],
    ]);
  });

  it('leaves out fenced code', () => {
    expect(items(['Example:', '```', 'f(g(x))', '```', 'Done.'])).toEqual([
      [10, 'Example:'],
      [14, 'Done.'],
    ]);
  });
});

describe('comment sentences', () => {
  it('splits sentences as the docs check does and counts code and addresses as one word each', () => {
    const sentences = itemSentences('One two three. Then `a b c` and https://example.com/a/b count: Four five');
    expect(sentences.map((s) => s.words)).toEqual([3, 5, 2]);
  });

  it('finds parentheses inside parentheses, but not a call or inline code', () => {
    expect(hasNestedParentheses('a (b (c) d)')).toBe(true);
    expect(hasNestedParentheses('a (b) (c) d')).toBe(false);
    expect(hasNestedParentheses('a (see init() and flock(1)) b')).toBe(false);
    expect(hasNestedParentheses('a (`f (x)`) b')).toBe(false);
    expect(hasNestedParentheses('a) b (c)')).toBe(false);
  });

  it('reports a long sentence and a nested parenthesis with the line of its item', () => {
    const long = Array.from({ length: 41 }, () => 'word').join(' ');
    const source = ['// Short one.', '//', `// ${long}.`, '/* a (b (c)) */'].join('\n');
    expect(commentFindings('a.ts', source)).toEqual([
      { line: 3, problem: 'long', text: `${long}.` },
      { line: 4, problem: 'nested', text: 'a (b (c))' },
    ]);
  });
});

describe('the comments of the code', () => {
  it('finds the sources', () => {
    const names = files.map((f) => f.name);
    expect(names).toContain('shared/core/decide.ts');
    expect(names).toContain('local/cached-build.sh');
    expect(names.some((n) => n.endsWith('.test.ts'))).toBe(false);
  });

  it.each(files.map((f) => [f.name, f]))(
    '%s has no comment sentence over 40 words and no nested parentheses',
    (_name, file) => {
      expect(findingsOf(file)).toEqual([]);
    },
  );
});
