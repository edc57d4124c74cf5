// The function process's side of one writer per operator (core/counter-holder.ts).
// Its watch of operators tells it who wrote each one last, and when. A count
// left to another process waits here until a copy shows its key counted.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import { holderOf, waitOver, type Holder, type LastWrite } from '../../core/counter-holder.ts';
import { isLater } from '../../kube/resource-version.ts';
import type { WatchChange } from '../../kube/watch-stream.ts';

interface Waiter {
  key: string;
  done: (op: CascadeAutoOperator | undefined) => void;
}

export interface CounterHolder {
  /**
   * The name this process's writes of `scenario`'s counters give `status.writer`: its host, which is its pod, and a
   * random part. None while it cannot hold, or while another process holds: a write then keeps that name.
   */
  name(scenario: string): string | undefined;
  /**
   * Who counts for `scenario` now. This process holds only while its watch of runs is open. It leaves nothing to
   * another process unless its watch of operators is open: it would not see the count.
   */
  holder(scenario: string): Holder;
  /** Each change of an operator the watch shows. */
  operatorSeen(change: WatchChange, op: CascadeAutoOperator): void;
  /**
   * A copy known to be recent: a write of this process, as the API server returned it, or a copy read after a write
   * was refused. Its writer holds from then on.
   */
  recent(op: CascadeAutoOperator): void;
  /** The operator as the watch last showed it. */
  copy(scenario: string): CascadeAutoOperator | undefined;
  /** Whether the watch of runs is open: a process that cannot see runs cannot count for others. */
  runsWatched(open: boolean): void;
  /** Whether the watch of operators is open. It is not until it first opens. */
  operatorsWatched(open: boolean): void;
  /**
   * The operator once a copy shows `key` counted. Undefined once the wait is over (core/counter-holder.ts
   * waitOver), checked every `checkMs`: the writer waited for is then taken as gone, and the caller writes the
   * change itself.
   */
  counted(scenario: string, key: string, checkMs?: number): Promise<CascadeAutoOperator | undefined>;
  /** `listener` is told each scenario whose counters this process comes to hold. */
  onHold(listener: (scenario: string) => void): void;
}

/** How often a wait for the holder is checked. */
const WAIT_CHECK_MS = 250;

const countedIn = (op: CascadeAutoOperator, key: string) => op.status?.countedRuns?.includes(key) === true;

/** The last write seen of each scenario's operator, and who holds it by that. */
function lastWrites(id: string, now: () => number) {
  const last = new Map<string, LastWrite & { op: CascadeAutoOperator }>();
  const state = { runsOpen: false, operatorsOpen: false };
  const holder = (scenario: string): Holder => {
    const h = holderOf(last.get(scenario), id, now());
    if (h === 'self' && !state.runsOpen) return 'none';
    return h === 'other' && !state.operatorsOpen ? 'none' : h;
  };
  /** Takes `op` unless the copy held is later; a copy seen again, as after a list, keeps when it was first seen. */
  const take = (op: CascadeAutoOperator, seenAt: number | undefined): boolean => {
    const held = last.get(op.metadata.name);
    const rv = op.metadata.resourceVersion;
    if (held && isLater(held.op.metadata.resourceVersion, rv)) return false;
    const when = held && held.op.metadata.resourceVersion === rv ? (held.seenAt ?? seenAt) : seenAt;
    last.set(op.metadata.name, { writer: op.status?.writer, seenAt: when, op });
    return true;
  };
  /** The writer waited for did not count: it is no sign of life any more. */
  const giveUp = (scenario: string, writer: string | undefined) => {
    const held = last.get(scenario);
    if (held && held.writer === writer) held.seenAt = undefined;
  };
  return { last, state, holder, take, giveUp };
}

export function counterHolder(now: () => number = Date.now, id = `${hostname()}-${randomBytes(3).toString('hex')}`) {
  const w = lastWrites(id, now);
  const waiting = new Map<string, Set<Waiter>>();
  const listeners: ((scenario: string) => void)[] = [];

  const see = (op: CascadeAutoOperator, seenAt: number | undefined) => {
    const scenario = op.metadata.name;
    const before = w.holder(scenario);
    if (!w.take(op, seenAt)) return;
    for (const waiter of waiting.get(scenario) ?? []) if (countedIn(op, waiter.key)) waiter.done(op);
    if (before !== 'self' && w.holder(scenario) === 'self') for (const l of listeners) l(scenario);
  };

  const counted = (scenario: string, key: string, checkMs = WAIT_CHECK_MS) =>
    new Promise<CascadeAutoOperator | undefined>((resolve) => {
      const set = waiting.get(scenario) ?? new Set<Waiter>();
      waiting.set(scenario, set);
      const writer = w.last.get(scenario)?.writer;
      const since = now();
      const waiter: Waiter = {
        key,
        done: (op) => {
          clearInterval(timer);
          set.delete(waiter);
          if (!op) w.giveUp(scenario, writer);
          resolve(op);
        },
      };
      const check = () => {
        const seenAt = w.last.get(scenario)?.seenAt;
        const t = now();
        const sinceLastWrite = seenAt === undefined ? undefined : t - seenAt;
        if (waitOver({ holder: w.holder(scenario), sinceLastWrite, waited: t - since })) waiter.done(undefined);
      };
      const timer = setInterval(check, checkMs);
      set.add(waiter);
    });

  return {
    name: (scenario: string) => (w.state.runsOpen && w.holder(scenario) !== 'other' ? id : undefined),
    holder: w.holder,
    operatorSeen: (change: WatchChange, op: CascadeAutoOperator) => {
      if (change === 'DELETED') w.last.delete(op.metadata.name);
      else see(op, change === 'MODIFIED' ? now() : undefined);
    },
    recent: (op: CascadeAutoOperator) => see(op, now()),
    copy: (scenario: string) => w.last.get(scenario)?.op,
    runsWatched: (open: boolean) => {
      const before = [...w.last.keys()].filter((s) => w.holder(s) !== 'self');
      w.state.runsOpen = open;
      for (const s of before) if (w.holder(s) === 'self') for (const l of listeners) l(s);
    },
    operatorsWatched: (open: boolean) => {
      w.state.operatorsOpen = open;
    },
    counted,
    onHold: (listener: (scenario: string) => void) => void listeners.push(listener),
  } satisfies CounterHolder;
}

/** The janitor's: it never holds and never leaves a count to another process. */
export const NO_HOLDER: CounterHolder = {
  name: () => undefined,
  holder: () => 'none',
  operatorSeen: () => {},
  recent: () => {},
  copy: () => undefined,
  runsWatched: () => {},
  operatorsWatched: () => {},
  counted: () => Promise.resolve(undefined),
  onHold: () => {},
};
