// Exactly-once counters with no window, against the real API server: the
// process dies right after the CascadeAutoOperator write that counts a run's
// end, start or resume, before the run's mark. More than COUNTED_RUNS_MAX
// other counter changes follow. The delivery comes again: the change is
// counted once (docs/architecture.md, "Counters"). A run request delivered
// again that late counts its start once too.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTED_RUNS_MAX, type CascadeAutoOperatorStatus } from '../shared/api/cascade-auto-operator.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { parseConfig } from '../shared/config.ts';
import type { CounterChange } from '../shared/core/counters.ts';
import type { EngineDeps } from '../shared/engine/deps.ts';
import { janitorEngine } from '../shared/engine/profiles.ts';
import { cancelRun } from '../shared/engine/entry/cancel-run.ts';
import { resumeRun } from '../shared/engine/entry/resume-run.ts';
import { countResume, finishRun } from '../shared/engine/run/finish-run.ts';
import { observeRun } from '../shared/engine/entry/observe-run.ts';
import { writeCounters } from '../shared/engine/operator/operator-counters.ts';
import { unpinSettled } from '../shared/engine/operator/unpin-settled.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import { DEFAULT_RETRY } from '../shared/kube/api-retry.ts';
import { connectStore } from '../shared/kube/connect.ts';
import type { Store } from '../shared/kube/store.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { Crash } from './support/crashing-store.ts';
import { waitFor } from './support/kube.ts';

let h: Harness;
let real: Store;
let config: EngineDeps['config'];
beforeAll(async () => {
  h = await cascadeHarness({ modules: [imageModule('a', {})], replicas: 0, source: false });
  const parsed = parseConfig(h.env);
  if (!parsed.ok) throw new Error(parsed.reason);
  config = parsed.value;
  real = connectStore(config.namespace, DEFAULT_RETRY, h.env.KUBECONFIG);
});
afterAll(async () => {
  await h?.stop();
});

const deps = (store: Store): EngineDeps =>
  janitorEngine({ config, store, log: pino({ level: 'silent' }), now: () => new Date(), notify: async () => true });

/** The real Store, dead once it has written an operator status that adds a key `fatal` picks (the answer is lost). */
function diesAfterCount(fatal: (key: string) => boolean): { store: Store; died: () => boolean } {
  let dead = false;
  const store: Store = {
    ...real,
    writeOperatorStatus: async (op, status) => {
      if (dead) throw new Crash('process is dead');
      const written = await real.writeOperatorStatus(op, status);
      const before = new Set(op.status?.countedRuns ?? []);
      if (status?.countedRuns?.some((k) => !before.has(k) && fatal(k))) {
        dead = true;
        throw new Crash('crashed after the change was counted');
      }
      return written;
    },
    writeRunStatus: async (r, s) => {
      if (dead) throw new Crash('process is dead');
      return real.writeRunStatus(r, s);
    },
  };
  return { store, died: () => dead };
}

/**
 * The resume's key dropped since, a counter still holding the run as it was
 * before the mark reads the run, and counts nothing.
 */
async function lateResumeCountsNothing(name: string, stale: CascadeRun): Promise<void> {
  await writeCounters(deps(real), otherChanges(400, 'rsm').slice(200).flat());
  const settled = (await h.operator()).status;
  expect(settled?.countedRuns).not.toContain(`resume:${name}-r1`);
  await countResume(deps(real), stale, 'Cancelled', 1);
  const late = (await h.operator()).status;
  expect([late?.cancelled, late?.active]).toEqual([settled?.cancelled, settled?.active]);
}

/** Every run counted is in one of these: a change counted twice adds one run too many. */
function runsCounted(s: CascadeAutoOperatorStatus | undefined): number {
  return (s?.active ?? 0) + (s?.queued ?? 0) + (s?.succeeded ?? 0) + (s?.failed ?? 0) + (s?.cancelled ?? 0);
}

/** Other runs' changes, as other processes make them: each run started, ended, its mark written. */
function otherChanges(runs: number, prefix = 'other'): CounterChange[][] {
  return Array.from({ length: runs }, (_, i) => [
    { kind: 'started', run: `${prefix}-${i}` } as const,
    { kind: 'marked', of: 'start', run: `${prefix}-${i}` } as const,
    { kind: 'ended', run: `${prefix}-${i}`, phase: 'Succeeded' } as const,
    { kind: 'marked', run: `${prefix}-${i}` } as const,
  ]);
}

describe('a run end counted, the process dead before its mark, delivered again late', () => {
  it(`is counted once after more than ${COUNTED_RUNS_MAX} other counter changes`, { timeout: 180_000 }, async () => {
    const started = await startRun(deps(real), { turlinfo: 's3://in/late', iuid: 'abc0001-late' });
    if (started.kind !== 'accepted') throw new Error(JSON.stringify(started));
    const name = String(started.body.run);
    const dying = diesAfterCount((k) => k === `end:${name}`);
    await waitFor(
      async () => {
        await observeRun(deps(dying.store), name).catch((error: unknown) => {
          if (!(error instanceof Crash)) throw error;
        });
        return dying.died();
      },
      { timeoutMs: 60_000, message: `the end of ${name} counted` },
    );
    expect((await h.getRun(name)).status).toMatchObject({ phase: 'Succeeded' });
    expect((await h.getRun(name)).status?.counted).toBeUndefined();
    expect((await h.operator()).status).toMatchObject({ succeeded: 1, active: 0 });

    // Other processes count other runs: 2 keys each, in writes of 10 runs.
    const others = otherChanges(160);
    for (let i = 0; i < others.length; i += 10) await writeCounters(deps(real), others.slice(i, i + 10).flat());
    const keys = (await h.operator()).status?.countedRuns ?? [];
    expect(keys.filter((k) => k.includes(':other-')).length).toBeGreaterThanOrEqual(COUNTED_RUNS_MAX);
    expect(keys).toContain(`end:${name}`);
    const stale = await h.getRun(name);

    // The delivery again, on a healthy process: the run's mark is written, its end not counted again.
    await observeRun(deps(real), name);
    expect((await h.getRun(name)).status).toMatchObject({ phase: 'Succeeded', counted: true });
    expect((await h.operator()).status).toMatchObject({ succeeded: 161, active: 0, failed: 0 });
    // Marked: its key is unpinned, and the next changes drop it. A finisher still holding the run as it was before
    // the mark counts nothing: with the key dropped, it reads the run, which shows the mark.
    expect((await h.operator()).status?.unmarked ?? []).not.toContain(`end:${name}`);
    await writeCounters(deps(real), otherChanges(300).slice(160).flat());
    expect((await h.operator()).status?.countedRuns).not.toContain(`end:${name}`);
    await finishRun(deps(real), stale, 'Succeeded', false);
    expect((await h.operator()).status).toMatchObject({ succeeded: 301, active: 0 });
  });

  it(
    `a run request delivered again after more than ${COUNTED_RUNS_MAX} other counter changes counts its start once`,
    {
      timeout: 120_000,
    },
    async () => {
      const request = { turlinfo: 's3://in/again', iuid: 'again03' };
      const first = await startRun(deps(real), request);
      if (first.kind !== 'accepted') throw new Error(JSON.stringify(first));
      const name = String(first.body.run);
      expect((await h.getRun(name)).status?.phase).toBeDefined();
      const before = runsCounted((await h.operator()).status);
      expect((await h.operator()).status?.countedRuns).toContain(`start:${name}`);

      const others = otherChanges(200, 'again');
      for (let i = 0; i < others.length; i += 10) await writeCounters(deps(real), others.slice(i, i + 10).flat());
      expect((await h.operator()).status?.countedRuns).not.toContain(`start:${name}`);

      const again = await startRun(deps(real), request);
      expect(again).toMatchObject({ kind: 'accepted', body: { run: name } });
      expect(runsCounted((await h.operator()).status)).toBe(before + 200);
    },
  );

  it(
    `a start counted, the process dead before the run's first phase, counted once after ${COUNTED_RUNS_MAX} other changes`,
    {
      timeout: 120_000,
    },
    async () => {
      const request = { turlinfo: 's3://in/phaseless', iuid: 'fst04-phaseless' };
      const dying = diesAfterCount((k) => k.startsWith('start:') && k.includes('fst04'));
      await expect(startRun(deps(dying.store), request)).rejects.toThrow(Crash);
      const name = (await h.listRuns()).find((r) => r.spec.pid === request.iuid)!.metadata.name;
      expect((await h.getRun(name)).status?.phase).toBeUndefined();
      const pinned = (await h.operator()).status;
      expect(pinned?.unmarked).toContain(`start:${name}`);
      const active = pinned?.active ?? 0;

      await writeCounters(deps(real), otherChanges(200, 'fst').flat());
      expect((await h.operator()).status?.countedRuns).toContain(`start:${name}`);
      const again = await startRun(deps(real), request);
      expect(again).toMatchObject({ kind: 'accepted', body: { run: name } });
      expect((await h.getRun(name)).status?.phase).toBeDefined();
      const marked = (await h.operator()).status;
      expect(marked?.active, 'the start counted once').toBe(active);
      expect(marked?.unmarked, "the run's first phase unpinned its key").not.toContain(`start:${name}`);

      // Dropped since: a counter still holding the run as it was before its phase reads the run, and counts nothing.
      await writeCounters(deps(real), otherChanges(400, 'fst').slice(200).flat());
      expect((await h.operator()).status?.countedRuns).not.toContain(`start:${name}`);
      await writeCounters(deps(real), [{ kind: 'started', run: name }]);
      expect((await h.operator()).status?.active).toBe(active);
    },
  );

  it(
    `a resume counted, the process dead before the run records it, counted once after ${COUNTED_RUNS_MAX} other changes`,
    {
      timeout: 120_000,
    },
    async () => {
      const started = await startRun(deps(real), { turlinfo: 's3://in/resumed', iuid: 'rsm05-resumed' });
      if (started.kind !== 'accepted') throw new Error(JSON.stringify(started));
      const name = String(started.body.run);
      expect(await cancelRun(deps(real), { runname: name })).toMatchObject({ kind: 'accepted' });
      const cancelled = (await h.operator()).status;
      const dying = diesAfterCount((k) => k === `resume:${name}-r1`);
      await expect(resumeRun(deps(dying.store), { target: { runname: name } })).rejects.toThrow(Crash);
      const stale = await h.getRun(name);
      expect(stale.status).toMatchObject({ resumes: 1 });
      expect(stale.status?.resumeCounted).toBeUndefined();
      expect((await h.operator()).status?.unmarked).toContain(`resume:${name}-r1`);

      await writeCounters(deps(real), otherChanges(200, 'rsm').flat());
      await observeRun(deps(real), name);
      expect((await h.getRun(name)).status?.resumeCounted).toBe(1);
      // The resumed run may have ended since: every run counted is in one of the counters, once.
      const after = (await h.operator()).status;
      expect([after?.cancelled, runsCounted(after)], 'cancelled-1, and the run counted once').toEqual([
        (cancelled?.cancelled ?? 0) - 1,
        runsCounted(cancelled) + 200,
      ]);
      expect(after?.unmarked, 'the mark unpinned its key').not.toContain(`resume:${name}-r1`);

      await lateResumeCountsNothing(name, stale);
    },
  );

  it("the janitor's sweep unpins the keys a crash left pinned, and only those", { timeout: 60_000 }, async () => {
    // Changes counted whose process died before the unpin. Ends: a run gone since, and one whose mark is not
    // written yet. A start and a resume of runs gone since.
    const started = await startRun(deps(real), { turlinfo: 's3://in/open', iuid: 'abc0002-open' });
    if (started.kind !== 'accepted') throw new Error(JSON.stringify(started));
    const open = String(started.body.run);
    await writeCounters(deps(real), [
      { kind: 'ended', run: 'gone-run', phase: 'Succeeded' },
      { kind: 'ended', run: open, phase: 'Succeeded' },
      { kind: 'started', run: 'gone-start' },
      { kind: 'resumed', run: 'gone-resumed', from: 'Failed', resumes: 1 },
    ]);
    const settled = ['end:gone-run', 'start:gone-start', 'resume:gone-resumed-r1'];
    expect((await h.operator()).status?.unmarked).toEqual(expect.arrayContaining([...settled, `end:${open}`]));
    expect(await unpinSettled(deps(real), new Set([SCENARIO]))).toBe(3);
    const unmarked = (await h.operator()).status?.unmarked ?? [];
    for (const key of settled) expect(unmarked).not.toContain(key);
    expect(unmarked).toContain(`end:${open}`);
  });
});
