// The files that start the real node, install Knative or its CRDs, or run
// `npm start` are in the `real-node` project (REAL_NODE_FILES of
// vitest.config.ts): they change what the whole cluster has, so they run one
// at a time and never beside each other.
import { readdirSync, readFileSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REAL_NODE_FILES } from '../../vitest.config.ts';

const root = join(import.meta.dirname, '..', '..');
const NEEDS_REAL_NODE =
  /\b(useRealNode|useKnative\w*|startRealNode|installServing|installEventing|installKnativeCrds)\(|npmAsNewcomer\(\['start'\]/;

const inRealNode = (path: string) => REAL_NODE_FILES.some((glob) => matchesGlob(path, glob));

describe('the real-node project', () => {
  it('matches its globs as vitest does', () => {
    expect(inRealNode('test/knative-e2e.test.ts')).toBe(true);
    expect(inRealNode('test/real-node-scenarios.test.ts')).toBe(true);
    expect(inRealNode('test/knative/x.test.ts')).toBe(false);
    expect(inRealNode('test/ops-metrics.test.ts')).toBe(false);
  });

  it('holds every test file that starts the real node, installs Knative or runs npm start', () => {
    const files = readdirSync(join(root, 'test'))
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => `test/${name}`);
    const needing = files.filter((path) => NEEDS_REAL_NODE.test(readFileSync(join(root, path), 'utf8')));
    expect(needing.length).toBeGreaterThan(10);
    expect(needing.filter((path) => !inRealNode(path))).toEqual([]);
  });
});
