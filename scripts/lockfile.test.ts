// package-lock.json is whole: `npm ci` (what func's buildpack, the image's
// build and a user's CI run) finds every dependency in it. The real
// `npm ci` and `npm ci --omit=dev` from a clean copy run in
// test/production-build.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingFromLock, resolve, type Lockfile } from './lockfile.ts';

const root = join(import.meta.dirname, '..');
const read = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8')) as unknown;

describe('package-lock.json', () => {
  const lock = read('package-lock.json') as Lockfile;
  const pkg = read('package.json') as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

  it("is a version 3 lock of exactly package.json's dependencies", () => {
    expect(lock.lockfileVersion).toBe(3);
    expect(lock.packages['']).toMatchObject({ dependencies: pkg.dependencies, devDependencies: pkg.devDependencies });
  });

  it('has an entry for every dependency any package names, optional ones included', () => {
    expect(missingFromLock(lock)).toEqual([]);
  });

  it("locks vite, vitest's peer, at the version package.json pins", () => {
    expect(lock.packages['node_modules/vite']).toMatchObject({ version: pkg.devDependencies.vite });
  });
});

describe('missingFromLock', () => {
  const lock = (packages: Lockfile['packages']): Lockfile => ({ lockfileVersion: 3, packages });

  it('reports an optional dependency the lock has no entry for (what npm ci refuses)', () => {
    const missing = missingFromLock(
      lock({
        '': { devDependencies: { vite: '8.4.0' } },
        'node_modules/vite': {
          optionalDependencies: { fsevents: '~2.3.3', 'napi-windows-process-start-time': '^0.1.0' },
        },
        'node_modules/fsevents': {},
      }),
    );
    expect(missing).toEqual(['node_modules/vite -> napi-windows-process-start-time']);
  });

  it("reports required peers but not optional ones, and the root's dev dependencies", () => {
    const missing = missingFromLock(
      lock({
        '': { devDependencies: { vitest: '5.1.2', eslint: '10.15.0' } },
        'node_modules/vitest': {
          peerDependencies: { vite: '^8.0.0', jsdom: '*' },
          peerDependenciesMeta: { jsdom: { optional: true } },
        },
      }),
    );
    expect(missing).toEqual(['(root) -> eslint', 'node_modules/vitest -> vite']);
  });

  it('finds a dependency nested under its parent before the hoisted one', () => {
    const packages: Lockfile['packages'] = {
      '': { dependencies: { a: '1' } },
      'node_modules/a': { dependencies: { b: '2' } },
      'node_modules/a/node_modules/b': { dependencies: { c: '1' } },
      'node_modules/b': {},
      'node_modules/c': {},
    };
    expect(resolve(packages, 'node_modules/a', 'b')).toBe('node_modules/a/node_modules/b');
    expect(resolve(packages, 'node_modules/a/node_modules/b', 'c')).toBe('node_modules/c');
    expect(resolve(packages, 'node_modules/a/node_modules/b', 'd')).toBeUndefined();
    expect(missingFromLock(lock(packages))).toEqual([]);
  });
});
