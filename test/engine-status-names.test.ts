// The status fields slotReleased and resumeSlotTaken, formerly counted and
// resumeCounted (docs/adr/0006-status-field-names.md), against the real API
// server: two replicas in-process, one of this release and one of the
// release before, on one scenario under maxConcurrentRuns 1. The older
// replica reads and writes only the old names and carries the new ones along
// untouched, as its JSON copy of the status does. Whichever replica gets an
// event, twice or late, every slot is taken and released once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CascadeRun, CascadeRunStatus } from '../shared/api/cascade-run.ts';
import type { EngineDeps } from '../shared/engine/deps.ts';
import { acceptModuleResult } from '../shared/engine/entry/accept-result.ts';
import { resumeRun } from '../shared/engine/entry/resume-run.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import { sweep } from '../shared/engine/janitor/sweep.ts';
import { wakePromoted } from '../shared/engine/operator/admission.ts';
import { janitorEngine } from '../shared/engine/profiles.ts';
import type { Store } from '../shared/kube/store.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness, SCENARIO } from './support/cascade-harness.ts';
import { engineBase } from './support/engine-base.ts';

const NEW_NAMES = ['slotReleased', 'resumeSlotTaken'] as const;
type NewMarks = Pick<CascadeRunStatus, (typeof NEW_NAMES)[number]>;

function newMarksOf(status: CascadeRunStatus | undefined): NewMarks {
  return Object.fromEntries(NEW_NAMES.flatMap((k) => (status?.[k] === undefined ? [] : [[k, status[k]]])));
}

function withoutNewMarks(status: CascadeRunStatus): CascadeRunStatus {
  return Object.fromEntries(Object.entries(status).filter(([k]) => !(NEW_NAMES as readonly string[]).includes(k)));
}

/**
 * The store as the release before sees it: the new names are fields it does
 * not know. It reads past them, and writes them back as it read them.
 */
function olderStore(store: Store): Store {
  const carried = new Map<string, NewMarks>();
  const seen = (run: CascadeRun): CascadeRun => {
    carried.set(run.metadata.name, newMarksOf(run.status));
    return run.status ? { ...run, status: withoutNewMarks(run.status) } : run;
  };
  return {
    ...store,
    getRun: async (name) => {
      const run = await store.getRun(name);
      return run && seen(run);
    },
    listRuns: async (selector) => (await store.listRuns(selector)).map(seen),
    pageRuns: async (request) => {
      const page = await store.pageRuns(request);
      return { ...page, items: page.items.map(seen) };
    },
    writeRunStatus: async (run, status) =>
      seen(await store.writeRunStatus(run, { ...withoutNewMarks(status), ...carried.get(run.metadata.name) })),
  };
}

let h: Harness;
const FOREVER = { delayMs: 600_000 };
beforeAll(async () => {
  const modules = [imageModule('first', {}, FOREVER), imageModule('second', {}, FOREVER)];
  h = await cascadeHarness({ modules, replicas: 0, source: false, operatorSpec: { maxConcurrentRuns: 1 } });
});
afterAll(async () => {
  await h?.stop();
});

const newer = (): EngineDeps => janitorEngine(engineBase(h.env));
function older(): EngineDeps {
  const base = engineBase(h.env);
  return janitorEngine({ ...base, store: olderStore(base.store) });
}

async function start(deps: EngineDeps, iuid: string): Promise<string> {
  const started = await startRun(deps, { turlinfo: `s3://in/${iuid}.tgz`, iuid });
  return String((started as { body: Record<string, unknown> }).body.run);
}

const result = (deps: EngineDeps, runname: string, modulename: string, moduleresult: string) =>
  acceptModuleResult(deps, { runname, modulename, moduleresult });
const resume = (deps: EngineDeps, runname: string, requestId: string) =>
  resumeRun(deps, { target: { runname }, requestId });

/** What the operator and the run show of the marks. */
async function marks(name: string) {
  const op = (await h.operator()).status;
  const s = (await h.getRun(name)).status;
  return {
    holders: op?.holders ?? [],
    queue: op?.queue ?? [],
    phase: s?.phase,
    old: [s?.counted, s?.resumeCounted],
    new: [s?.slotReleased, s?.resumeSlotTaken],
  };
}

describe('a replica of the release before beside one of this release', () => {
  it('each slot is taken and released once, whichever replica gets an event, twice or late', async () => {
    const [a, b] = [newer(), older()];
    const one = await start(a, 'a1b2c-one');
    const two = await start(b, 'd3e4f-two');
    expect(await marks(one)).toMatchObject({ holders: [one], queue: [two] });
    expect(await marks(two)).toMatchObject({ phase: 'Queued' });

    // The older replica ends run one: a status as an older release leaves it in etcd, the old name only.
    await result(b, one, 'first', 'failed');
    expect(await marks(one)).toMatchObject({ holders: [two], queue: [], phase: 'Failed', old: [true, undefined] });
    expect((await h.getRun(one)).status).not.toHaveProperty('slotReleased');
    // This release reads it as released: the result delivered again, late, writes nothing.
    const stored = (await h.getRun(one)).metadata.resourceVersion;
    await result(a, one, 'first', 'failed');
    expect((await h.getRun(one)).metadata.resourceVersion).toBe(stored);

    // This release resumes it, and writes both names.
    expect(await resume(a, one, 'resume-1')).toMatchObject({ body: { verdict: 'resumed' } });
    expect(await marks(one)).toMatchObject({
      holders: [two, `${one}/r1`],
      phase: 'Running',
      old: [false, 1],
      new: [false, 1],
    });
    expect(await resume(b, one, 'resume-1')).toMatchObject({ body: { verdict: 'duplicate' } });
    await result(a, one, 'first', 'failed');
    expect(await marks(one)).toMatchObject({ holders: [two], phase: 'Failed', old: [true, 1], new: [true, 1] });

    // A late event on the older replica: it reads resume 1 as given its slot, and takes no slot again.
    await result(b, one, 'first', 'failed');
    expect(await marks(one)).toMatchObject({ holders: [two], phase: 'Failed' });

    // The older replica resumes it: it resets the old name only, and gives the resume its slot under it.
    expect(await resume(b, one, 'resume-2')).toMatchObject({ body: { verdict: 'resumed' } });
    expect(await marks(one)).toMatchObject({
      holders: [two, `${one}/r2`],
      phase: 'Running',
      old: [false, 2],
      new: [true, 1],
    });
    // This release ends it: the old name, read first, says the slot is still held, so it is released.
    for (const m of ['first', 'second']) await result(a, one, m, 'success');
    await result(b, one, 'second', 'success');
    await result(a, one, 'second', 'success');
    expect(await marks(one)).toMatchObject({
      holders: [two],
      phase: 'Succeeded',
      old: [true, 2],
      new: [true, 2],
    });

    // Run two, admitted when run one's first end released its slot, runs and ends on either replica.
    await wakePromoted(a, SCENARIO, [two]);
    await result(b, two, 'first', 'success');
    await result(a, two, 'second', 'success');
    await result(b, two, 'second', 'success');
    expect(await marks(two)).toMatchObject({ holders: [], queue: [], phase: 'Succeeded', old: [true, undefined] });

    // The janitor of this release finds nothing to finish, and counts each run once.
    const swept = await sweep(newer(), new Date());
    expect(swept).toMatchObject({ finished: 0, errors: 0 });
    expect((await h.operator()).status).toMatchObject({ active: 0, succeeded: 2, failed: 0, holders: [], queue: [] });
  });
});
