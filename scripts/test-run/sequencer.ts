// The order of the test files: vitest's, except that the files that run a
// binary built beside the first tests (promtool, prometheus,
// kube-state-metrics, queue-proxy, knative-validate: local/prebuild.ts) come
// after the others. On a first run the others start once the control plane
// is up, and these find their binaries built when their turn comes.
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** What a test file that runs one of those binaries says. */
export const RUNS_LATER_BUILDS =
  /\b(ensurePromtool|ensurePrometheus|ensureKubeStateMetrics|ensureKnativeValidate|promtoolCheck|startQueueProxy)\(|\bqueueProxy: \{/;

/** `files` in their order, those for which `later` holds moved to the end. */
export function laterLast<T>(files: T[], later: (file: T) => boolean): T[] {
  const last = files.filter(later);
  return [...files.filter((file) => !last.includes(file)), ...last];
}

export class LaterBuildsLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return laterLast(sorted, (file) => RUNS_LATER_BUILDS.test(readFileSync(file.moduleId, 'utf8')));
  }
}
