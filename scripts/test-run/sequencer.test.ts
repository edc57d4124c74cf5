import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { laterLast, RUNS_LATER_BUILDS } from './sequencer.ts';

const root = join(import.meta.dirname, '..', '..');
const runsLaterBuilds = (path: string) => RUNS_LATER_BUILDS.test(readFileSync(join(root, path), 'utf8'));

describe('the order of the test files', () => {
  it('moves the files that need a later build to the end, the rest in their order', () => {
    expect(laterLast(['a', 'B', 'c', 'D', 'e'], (f) => f === f.toUpperCase())).toEqual(['a', 'c', 'e', 'B', 'D']);
    expect(laterLast(['a', 'b'], () => false)).toEqual(['a', 'b']);
  });

  it.each([
    'test/monitoring.test.ts',
    'test/podmonitor.test.ts',
    'test/prometheus-rules.test.ts',
    'test/ops-metrics.test.ts',
    'test/ops-queue-proxy.test.ts',
    'test/ops-events.test.ts',
  ])('knows %s needs a later build', (path) => {
    expect(runsLaterBuilds(path)).toBe(true);
  });

  it.each(['test/informer.test.ts', 'test/engine-cancel.test.ts', 'test/janitor.test.ts'])(
    'knows %s needs only the control plane',
    (path) => {
      expect(runsLaterBuilds(path)).toBe(false);
    },
  );
});
