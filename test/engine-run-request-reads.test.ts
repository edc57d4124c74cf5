// What a run request costs the function in API requests, counted exactly from
// the API server's audit log under the function's own ServiceAccount: the
// first of a fresh process reads the CascadeAutoOperator once, for its
// finalizer and scenario; the next ones read it once too. The counters are
// not a request's: the Lease's holder writes them when the tally of the runs
// changes (docs/architecture.md#counters). No ApiServerSource stand-in runs:
// nothing but the run requests reaches the function.
import { afterEach, describe, expect, it } from 'vitest';
import { auditLogOf, auditMark } from './support/audit-log.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, COUNTERS_SETTLE, post, type Harness } from './support/cascade-harness.ts';
import { functionRequests } from './support/function-requests.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** A request's own calls: without the counters' writes and the Lease's renewals, which follow their own rhythm. */
function ownCalls(byVerb: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(byVerb).filter(
      ([call]) => call !== 'cascadeautooperators/status update' && !call.startsWith('leases'),
    ),
  );
}

async function runRequest(iuid: string) {
  const ev = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid });
  const res = await post(h!.url(), ev.body, ev.headers);
  expect(res.status).toBe(200);
}

describe('run requests and API reads', () => {
  it('the first run request of a fresh process reads the operator once; the next ones once each too', async () => {
    h = await cascadeHarness({ modules: [imageModule('a', {}, { delayMs: 600_000 })], source: false });
    let mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await runRequest('abcde001');
    expect(ownCalls((await functionRequests(h.ns, mark, 1)).byVerb)).toEqual({
      'cascadeautooperators get': 1,
      'cascadeautooperators update': 1,
      'cascaderuns create': 1,
      'jobs create': 1,
      'cascaderuns/status update': 1,
      'events create': 1,
    });

    mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await runRequest('fghij002');
    expect(ownCalls((await functionRequests(h.ns, mark, 1)).byVerb)).toEqual({
      'cascadeautooperators get': 1,
      'cascaderuns create': 1,
      'jobs create': 1,
      'cascaderuns/status update': 1,
      'events create': 1,
    });
    await expect.poll(async () => (await h!.operator()).status?.active, COUNTERS_SETTLE).toBe(2);
    await waitFor(async () => (await h!.listRuns()).length === 2 || undefined, { message: 'two runs' });
  });
});
