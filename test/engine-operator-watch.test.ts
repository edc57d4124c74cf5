// Two replicas of the function count runs on the one CascadeAutoOperator.
// Each keeps a copy of it, fed by its own writes and by its watch of the
// operators, so a counter write starts from the other replica's last write.
// Runs one after another, through both replicas in turn, then meet no 409 on
// the operator's status: without the watch, each replica's first write after
// the other's was refused. Counted from the API server's audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLinesSince, auditLogOf, auditMark } from './support/audit-log.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import { operatorRequests } from '../bench/sustained-figures.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, post, type Harness } from './support/cascade-harness.ts';
import { adminKubeconfigPath } from './support/kube.ts';

let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: [imageModule('only', {}, { delayMs: 0 })], replicas: 2 });
});
afterAll(async () => {
  await h?.stop();
});

describe("the operator's counters with two replicas", () => {
  it("each replica's write starts from the other's last one, as its watch showed it: no 409", async () => {
    // Each replica loads its engine at its first request and opens its watches a second later.
    for (let i = 0; i < 2; i++) {
      const warm = await post(h.url(i), { turlinfo: 's3://in/x.tgz', iuid: `1a7c${i}-warm` });
      await h.waitEnded(String(warm.body.run));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    for (let i = 0; i < 4; i++) {
      const reply = await post(h.url(i % 2), { turlinfo: 's3://in/x.tgz', iuid: `0a7c${i}-turns` });
      expect(reply.status).toBe(200);
      await h.waitEnded(String(reply.body.run));
      // The ending replica's last counter write lands before the next run starts: no two writes cross.
      await new Promise((r) => setTimeout(r, 1000));
    }
    const op = await h.operator();
    expect(op.status).toMatchObject({ active: 0, succeeded: 6, failed: 0 });
    const lines = auditLinesSince(auditLogOf(adminKubeconfigPath()), mark);
    const { statusWrites, conflicts } = operatorRequests(lines, serviceAccountUser(h.ns, 'cascade-function'));
    expect(statusWrites).toBeGreaterThanOrEqual(4);
    expect(conflicts).toBe(0);
  });
});
