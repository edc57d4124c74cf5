// The function's first sync, as a controller's: each time its watch of runs
// lists them (at start, and again after 410 Gone), the process acts on every
// run whose next move is due. That is a run left behind while no process
// served: a Job that ended then, a start or a Job create cut by a crash, an
// event the Broker gave up on. The runs come from the watch's own list, their
// Jobs from the watch of Jobs (deps.runJobs, jobs-by-run.ts). sync-plan.ts
// picks the runs to move. Each moves through the loop every event uses
// (look-again.ts), once the process that made its finished Job had its chance
// to move it (made-elsewhere.ts).
// A list of the Jobs after 410 Gone lists the runs again and does the same.
// Several replicas may sync at once, and beside events: each status write
// carries the run's resourceVersion and comes before any Job, and Job names
// are deterministic, so a step's Job is made once. The janitor stays the last
// resort: a look that fails is logged and left to the next event or sweep.
import type { CascadeRun } from '../../api/cascade-run.ts';
import type { EngineDeps } from '../deps.ts';
import { admissionInSweep } from '../operator/admission.ts';
import { decideSettings } from '../run/decide-settings.ts';
import { lookAgain } from '../run/look-again.ts';
import { reconcileRun } from '../run/reconcile.ts';
import { MAKER_GRACE_MS } from './made-elsewhere.ts';
import { syncMove, type SyncMove } from './sync-plan.ts';

export interface SyncOptions {
  /** Runs one look counted as in flight: the drain after SIGTERM waits for it. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  /** True once the process drains: no new look starts. */
  stopping: () => boolean;
  /** Runs looked at at once (default 8). */
  concurrency?: number;
  /** Each pass, once it is done. */
  passed?: (pass: SyncPass) => void;
}

/** What one pass did: the runs listed, and how many of each move it made. */
export interface SyncPass {
  listed: number;
  moved: Record<Exclude<SyncMove, 'none'>, number>;
  failed: number;
}

export interface FirstSync {
  /** The watch of Jobs listed: the first list makes the view whole; a later one (after 410 Gone) syncs the runs again. */
  jobsListed(): void;
  /** The watch of runs listed: every run of the list. */
  runsListed(runs: readonly CascadeRun[]): void;
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** One run's move; false when the run was left as it is. */
async function move(deps: EngineDeps, run: CascadeRun, what: SyncMove): Promise<boolean> {
  const name = run.metadata.name;
  if (what === 'wake') {
    deps.wakeups.wake(run, () => reconcileRun(deps, name, { kind: 'Observe' }));
    return true;
  }
  // This process starts it already, after its reply to the run request.
  if (what === 'start' && deps.starts.inFlight(name)) return false;
  // A queued run moves once it holds a slot; one still queued costs no read of its own.
  if (what === 'admission' && (await admissionInSweep(deps, run)) !== 'admitted') return false;
  await lookAgain(deps, run);
  return true;
}

type Due = { run: CascadeRun; what: Exclude<SyncMove, 'none'> };

/**
 * The due runs less those whose move was their maker's: a run with a finished
 * Job another process made waits, as that Job's event does, for that process's
 * move (made-elsewhere.ts). All wait at once, so a pass after a crash is late
 * by one grace at most.
 */
async function notMakers(deps: EngineDeps, due: readonly Due[]): Promise<Due[]> {
  const waited = await Promise.all(
    due.map(async (d) => {
      if (d.what !== 'look') return d;
      const finished = deps.runJobs
        .of(d.run.metadata.name)
        .find((j) => j.state !== 'Active' && !deps.madeJobs.has(j.name));
      return finished && (await deps.madeElsewhere(finished, MAKER_GRACE_MS)) ? undefined : d;
    }),
  );
  return waited.filter((d): d is Due => d !== undefined);
}

export function firstSync(deps: EngineDeps, opts: SyncOptions): FirstSync {
  const jobs = deps.runJobs;
  const state = { jobsWhole: false, waiting: undefined as readonly CascadeRun[] | undefined };

  async function sync(runs: readonly CascadeRun[]): Promise<SyncPass> {
    // One pass's deps: each operator is read once per pass (admission.ts).
    const at: EngineDeps = { ...deps };
    const now = deps.now().toISOString();
    const pass: SyncPass = { listed: runs.length, moved: { start: 0, admission: 0, look: 0, wake: 0 }, failed: 0 };
    const due: Due[] = [];
    for (const run of runs) {
      const what = syncMove(run, jobs.of(run.metadata.name), now, decideSettings(deps.config, run));
      if (what !== 'none') due.push({ run, what });
    }
    await eachLimited(await notMakers(deps, due), opts.concurrency ?? 8, async ({ run, what }) => {
      if (opts.stopping()) return;
      try {
        if (await opts.track(() => move(at, run, what))) pass.moved[what]++;
      } catch (error) {
        pass.failed++;
        deps.log.warn({ err: error, run: run.metadata.name }, 'first sync: run not moved, left to its next event');
      }
    });
    return pass;
  }

  function begin(runs: readonly CascadeRun[] | Promise<CascadeRun[]>): void {
    const started = performance.now();
    void Promise.resolve(runs)
      .then(sync)
      .then(
        (p) => {
          opts.passed?.(p);
          const ms = Math.round(performance.now() - started);
          if (p.failed > 0 || Object.values(p.moved).some((n) => n > 0))
            deps.log.info({ ...p, ms }, 'first sync: the runs whose next move was due moved');
        },
        (error: unknown) => deps.log.warn({ err: error }, 'first sync: runs not listed, left to their next event'),
      );
  }

  return {
    jobsListed() {
      if (state.jobsWhole) return begin(deps.store.listRuns());
      state.jobsWhole = true;
      if (state.waiting) begin(state.waiting);
      state.waiting = undefined;
    },
    runsListed(runs) {
      if (state.jobsWhole) begin(runs);
      else state.waiting = runs;
    },
  };
}
