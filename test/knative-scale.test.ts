// Scale out on real Knative: RUNS run requests of a 3-module scenario at once
// through the real Broker, the modules' pods on kwok's nodes, the function
// with a low concurrency target (test/support/knative-scale.ts), so that
// Knative's autoscaler runs it on several pods. Every run ends Succeeded,
// each step's Job and pod made once, and the function ran on more than one
// pod at once. bench/knative-scale.ts measures the same at 10 to 1,000 at once.
import { describe, expect, it } from 'vitest';
import {
  recordScale,
  runsOf,
  SCALE_MODULES,
  SCALE_SERVICE,
  stepProblems,
  uniqueIuids,
} from './support/knative-scale.ts';
import { requestRun, useKnativeCascade } from './support/knative-cascade.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';

/** Runs at once: bench/README.md gives the figures up to 1,000. */
const RUNS = 100;

const namespace = useKnativeCascade({ scenario: { cascademodules: SCALE_MODULES }, service: SCALE_SERVICE });
const log = (line: string) => process.stderr.write(`${line}\n`);

describe('scale out on real Knative', () => {
  it(`${RUNS} runs at once end Succeeded, each step once, the function on several pods`, async () => {
    const recorder = recordScale(adminKubeconfigPath(), namespace());
    await recorder.synced;
    const iuids = uniqueIuids(RUNS);
    const sent = Date.now();
    await Promise.all(iuids.map((iuid) => requestRun(namespace(), undefined, iuid)));
    const { record } = recorder;
    await waitFor(
      () => {
        const runs = [...runsOf(record, iuids).values()];
        return runs.length === RUNS && runs.every((r) => record.ended.has(r.metadata.name));
      },
      { timeoutMs: 900_000, intervalMs: 1000, message: `${RUNS} runs ended` },
    );
    log(`knative-scale: ${RUNS} runs ended in ${(Date.now() - sent) / 1000} s, at most ${record.mostReady} pods Ready`);
    recorder.stop();
    expect(stepProblems(record, iuids, SCALE_MODULES.length)).toEqual([]);
    expect(record.mostReady).toBeGreaterThan(1);
  }, 1_200_000);
});
