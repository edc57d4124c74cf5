// docs/local-stack.md's table of the files in local/ is complete: it lists
// every file under local/, by itself or by a folder that holds it, and every
// path it lists exists. The table chooses whether it names a folder or its
// files. A unit test beside a file goes with the file it tests.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const page = readFileSync(join(root, 'docs', 'local-stack.md'), 'utf8');

/** The paths in the first column of the table under "## Files in `local/`". */
function tablePaths(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Files in `local/`')) ?? '';
  return section
    .split('\n')
    .map((line) => /^\| `([^`]+)` \|/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : [relative(root, path)];
  });
}

/** Whether a listed path names the file: the file itself, its test's file, or a folder above it, which ends in `/`. */
function covers(listed: string, file: string): boolean {
  return listed.endsWith('/') ? file.startsWith(listed) : file.replace(/\.test\.ts$/, '.ts') === listed;
}

describe('the table of files in local/', () => {
  const listed = tablePaths(page);

  it('is found', () => {
    expect(listed.length).toBeGreaterThan(10);
  });

  it('lists paths under local/ that exist', () => {
    expect(listed.filter((p) => !p.startsWith('local/') || !existsSync(join(root, p)))).toEqual([]);
  });

  it('lists every file under local/, itself or by a folder', () => {
    const files = filesUnder(join(root, 'local'));
    expect(files.filter((f) => !listed.some((p) => covers(p, f)))).toEqual([]);
  });
});
