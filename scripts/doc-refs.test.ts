// The docs and the code comments agree with the repository, where a program
// can tell: every file they name exists, and every measured figure sits in one
// of its homes, linked from everywhere else (scripts/doc-refs.ts).
//
// What this cannot catch: a file that exists but does not hold what the text
// says of it; a `.js` name; a figure written without a unit or a mark of
// measurement (a date, "measured", "median", p50, p90, p99); the same figure
// in two homes; a claim in words, such as "the function needs no watch".
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commentBlocks } from './comment-prose.ts';
import { anchorOf, blocks, fileMentions, resolves, strayFigures } from './doc-refs.ts';

const root = join(import.meta.dirname, '..');
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'build', '.cascade', 'results']);
/** `npm run dist`'s output (scripts/dist.ts), git-ignored. */
const DIST = join(root, 'dist');
/** Files whose comments start with `#` and that have no extension to say so. */
const HASH_COMMENTED = new Set(['Procfile', '.ci/run', 'cli/kubectl-cascade']);
/** The dated journal names files as they were when each entry was written. */
const JOURNAL = 'bench/HISTORY.md';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) || path === DIST ? [] : filesUnder(path);
    return [relative(root, path)];
  });
}

const files = filesUnder(root);
/** Every file and folder, folders with and without their trailing slash. */
const known = new Set(
  files.flatMap((f) => {
    const parts = f.split('/');
    const folders = parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
    return [f, ...folders, ...folders.map((d) => `${d}/`)];
  }),
);

/** The prose of a file that may name other files: a page's text, or a source's comments. */
function proseOf(path: string): string | undefined {
  if (path.endsWith('.md')) return path === JOURNAL ? undefined : readFileSync(join(root, path), 'utf8');
  const text = () => readFileSync(join(root, path), 'utf8');
  if (/\.(ts|mts|js|mjs|cjs|sh|ya?ml)$/.test(path)) {
    // Comments are part of the text: when every mention in the whole text resolves, none is left to parse out.
    const all = text();
    if (fileMentions(all).every((m) => resolves(m.name, path, known))) return '';
    return commentBlocks(path, all)
      .map((b) => b.lines.join('\n'))
      .join('\n');
  }
  if (HASH_COMMENTED.has(path))
    return text()
      .split('\n')
      .filter((l) => /^\s*#(?!!)/.test(l))
      .join('\n');
  return undefined;
}

describe('fileMentions and resolves', () => {
  const repo = new Set(['scripts/containerfile.test.ts', 'shared/engine/run/reconcile.ts', 'docs/contract.md', 'docs']);

  it('finds paths and file names with the repository extensions, not URLs, products or build output', () => {
    const text = [
      'checked by `containerfile.test.ts`; see docs/contract.md and ../bench/README.md#current-figures.',
      'Node.js 24, https://example.com/a/b.md, build/functions/cascade/server.cjs, ~/.cache/x.json, <run>.yaml',
    ].join('\n');
    expect(fileMentions(text).map((m) => m.name)).toEqual([
      'containerfile.test.ts',
      'docs/contract.md',
      '../bench/README.md',
    ]);
  });

  it('resolves from the root, from the mentioning file, or as the tail of a path', () => {
    expect(resolves('containerfile.test.ts', 'Containerfile', repo)).toBe(true);
    expect(resolves('run/reconcile.ts', 'docs/architecture.md', repo)).toBe(true);
    expect(resolves('contract.md', 'docs/architecture.md', repo)).toBe(true);
    expect(resolves('../docs/contract.md', 'bench/README.md', repo)).toBe(true);
    expect(resolves('lockfile.test.ts', 'Containerfile', repo)).toBe(false);
    expect(resolves('engine/unpin-settled.ts', 'docs/architecture.md', repo)).toBe(false);
  });
});

describe('strayFigures', () => {
  it('finds figures with a unit in a block that says it was measured, tables with their introduction', () => {
    const page = [
      '## A tour',
      '',
      'Measured on a machine with 2 cores.',
      '',
      '| figure | measured |',
      '| --- | --- |',
      '| cold start | 121 ms, median of 16 |',
      '',
      'The function times out after 30 s.',
    ].join('\n');
    expect(strayFigures('README.md', page)).toEqual([{ line: 7, text: '| cold start | 121 ms, median of 16 |' }]);
  });

  it('finds the cells of a measured table whose unit is said once', () => {
    const page = 'Measured on 2 December 2026, in ms:\n\n| command | wall |\n| --- | --- |\n| `version` | 138 |\n';
    expect(strayFigures('docs/cli.md', page).map((f) => f.line)).toEqual([5]);
  });

  it('leaves the homes alone: bench/README.md and docs/local-stack.md; the README holds no figure', () => {
    const page = '## Build times\n\nMeasured on 2 cores.\n\n| what | time |\n| --- | --- |\n| promtool | 9 min |\n';
    expect(strayFigures('docs/local-stack.md', page)).toEqual([]);
    expect(strayFigures('bench/README.md', 'Measured: 121 ms.')).toEqual([]);
    expect(strayFigures('README.md', page)).toHaveLength(1);
  });

  it('reads no code block, and makes anchors as GitHub does', () => {
    expect(blocks('```sh\nsleep 5s # measured\n```\n')).toEqual([]);
    expect(anchorOf('### The CLI beside kubectl: `BENCH_ONLY=cli npm run bench`')).toBe(
      'the-cli-beside-kubectl-bench_onlycli-npm-run-bench',
    );
  });
});

describe('the repository', () => {
  it('names in its docs and comments only files that exist', () => {
    const missing = files.flatMap((path) => {
      const prose = proseOf(path);
      if (prose === undefined) return [];
      return fileMentions(prose)
        .filter((m) => !resolves(m.name, path, known))
        .map((m) => `${path}: ${m.name}`);
    });
    expect(missing).toEqual([]);
  });

  it('writes each measured figure in its home, bench/README.md and the others of FIGURE_HOMES, and links it elsewhere', () => {
    const stray = files
      .filter((f) => f.endsWith('.md'))
      .flatMap((page) =>
        strayFigures(page, readFileSync(join(root, page), 'utf8')).map((s) => `${page}:${s.line} ${s.text}`),
      );
    expect(stray).toEqual([]);
  });
});
