// What a run request costs the function in API requests, counted exactly from
// the API server's audit log under the function's own ServiceAccount: the
// first of a fresh process reads the CascadeAutoOperator once, for its
// finalizer and scenario, and the counter write starts from that copy; the
// next ones read it once too and write from the copy the process last wrote.
// No ApiServerSource stand-in runs: nothing but the run requests reaches the
// function.
import { afterEach, describe, expect, it } from 'vitest';
import { auditLogOf, auditMark } from '../local/audit-log.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, post, type Harness } from './support/cascade-harness.ts';
import { functionRequests } from './support/function-requests.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

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
    expect((await functionRequests(h.ns, mark, 1)).byVerb).toEqual({
      'cascadeautooperators get': 1,
      'cascadeautooperators update': 1,
      'cascaderuns create': 1,
      'jobs create': 1,
      'cascadeautooperators/status update': 1,
      'cascaderuns/status update': 1,
      'events create': 1,
    });

    mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await runRequest('fghij002');
    expect((await functionRequests(h.ns, mark, 1)).byVerb).toEqual({
      'cascadeautooperators get': 1,
      'cascaderuns create': 1,
      'jobs create': 1,
      'cascadeautooperators/status update': 1,
      'cascaderuns/status update': 1,
      'events create': 1,
    });
    const op = await h.operator();
    expect(op.status?.active).toBe(2);
    await waitFor(async () => (await h!.listRuns()).length === 2 || undefined, { message: 'two runs' });
  });
});
