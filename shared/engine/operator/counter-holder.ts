// The function process's side of one writer per operator (core/counter-holder.ts).
// Its watch of operators tells it who wrote each one last, and when. A count
// left to another process waits here until a copy shows its key counted.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { holderOf, owedChanges, WAIT_MS, type Holder, type LastWrite } from '../../core/counter-holder.ts';
import { isLater } from '../../kube/resource-version.ts';
import type { WatchChange } from '../../kube/watch-stream.ts';
import type { EngineDeps } from '../deps.ts';
import { scenarioOf } from '../run/finish-run.ts';

interface Waiter {
  key: string;
  done: (op: CascadeAutoOperator | undefined) => void;
}

export interface CounterHolder {
  /** The name this process's writes give `status.writer`: its host, which is its pod, and a random part. None while it cannot hold. */
  name(): string | undefined;
  /** Who counts for `scenario` now. This process holds only while its watch of runs is open. */
  holder(scenario: string): Holder;
  /** Each change of an operator the watch shows. */
  operatorSeen(change: WatchChange, op: CascadeAutoOperator): void;
  /** Each write of an operator this process made, as the API server returned it: it holds from then on. */
  wrote(op: CascadeAutoOperator): void;
  /** The operator as the watch last showed it. */
  copy(scenario: string): CascadeAutoOperator | undefined;
  /** Whether the watch of runs is open: a process that cannot see runs cannot count for others. */
  runsWatched(open: boolean): void;
  /** The operator once a copy shows `key` counted; undefined after `waitMs`. */
  counted(scenario: string, key: string, waitMs?: number): Promise<CascadeAutoOperator | undefined>;
}

const countedIn = (op: CascadeAutoOperator, key: string) => op.status?.countedRuns?.includes(key) === true;

export function counterHolder(now: () => number = Date.now, id = `${hostname()}-${randomBytes(3).toString('hex')}`) {
  const last = new Map<string, LastWrite & { op: CascadeAutoOperator }>();
  const waiting = new Map<string, Set<Waiter>>();
  let runsOpen = false;

  const holder = (scenario: string): Holder => {
    const h = holderOf(last.get(scenario), id, now());
    return h === 'self' && !runsOpen ? 'none' : h;
  };

  /** Takes `op` unless the copy held is later; a copy seen again, as after a list, keeps when it was first seen. */
  const take = (op: CascadeAutoOperator, seenAt: number | undefined) => {
    const scenario = op.metadata.name;
    const held = last.get(scenario);
    const rv = op.metadata.resourceVersion;
    if (held && isLater(held.op.metadata.resourceVersion, rv)) return;
    const when = held && held.op.metadata.resourceVersion === rv ? (held.seenAt ?? seenAt) : seenAt;
    last.set(scenario, { writer: op.status?.writer, seenAt: when, op });
    for (const w of waiting.get(scenario) ?? []) if (countedIn(op, w.key)) w.done(op);
  };

  const operatorSeen = (change: WatchChange, op: CascadeAutoOperator) => {
    if (change === 'DELETED') last.delete(op.metadata.name);
    else take(op, change === 'MODIFIED' ? now() : undefined);
  };

  const counted = (scenario: string, key: string, waitMs = WAIT_MS) =>
    new Promise<CascadeAutoOperator | undefined>((resolve) => {
      const set = waiting.get(scenario) ?? new Set<Waiter>();
      waiting.set(scenario, set);
      const waiter: Waiter = {
        key,
        done: (op) => {
          clearTimeout(timer);
          set.delete(waiter);
          resolve(op);
        },
      };
      const timer = setTimeout(() => waiter.done(undefined), waitMs);
      set.add(waiter);
    });

  return {
    name: () => (runsOpen ? id : undefined),
    holder,
    operatorSeen,
    wrote: (op: CascadeAutoOperator) => take(op, now()),
    copy: (scenario: string) => last.get(scenario)?.op,
    runsWatched: (open: boolean) => {
      runsOpen = open;
    },
    counted,
  } satisfies CounterHolder;
}

/** The janitor's: it never holds and never leaves a count to another process. */
export const NO_HOLDER: CounterHolder = {
  name: () => undefined,
  holder: () => 'none',
  operatorSeen: () => {},
  wrote: () => {},
  copy: () => undefined,
  runsWatched: () => {},
  counted: () => Promise.resolve(undefined),
};

/**
 * A run the watch showed, while this process holds its scenario's counters:
 * what the run owes them is counted here, for the process that moved it. A
 * write that fails is left to that process, which writes the change itself
 * once its wait is over, and to the janitor.
 */
export function countForOthers(
  deps: Pick<EngineDeps, 'counter' | 'config' | 'log'>,
  holder: CounterHolder,
  change: WatchChange,
  run: CascadeRun,
): void {
  const scenario = scenarioOf(deps, run);
  if (change === 'DELETED' || holder.holder(scenario) !== 'self') return;
  const op = holder.copy(scenario);
  if (!op) return;
  for (const owed of owedChanges(run, op.status))
    deps
      .counter(owed, scenario)
      .catch((error: unknown) =>
        deps.log.warn({ run: run.metadata.name, kind: owed.kind, err: error }, 'a count for another process failed'),
      );
}
