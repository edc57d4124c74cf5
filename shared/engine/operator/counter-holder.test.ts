import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../api/cascade-run.ts';
import type { CounterChange } from '../../core/counters.ts';
import { HOLD_MS, WAIT_CAP_MS, WAIT_MS } from '../../core/counter-holder.ts';
import { counterHolder } from './counter-holder.ts';
import { countForOthers } from './count-for-others.ts';

const op = (rv: string, writer?: string, countedRuns: string[] = []): CascadeAutoOperator =>
  ({
    metadata: { name: 's', namespace: 'ns', resourceVersion: rv },
    spec: {},
    status: { writer, countedRuns },
  }) as unknown as CascadeAutoOperator;

const run = (name: string, status?: CascadeRun['status']): CascadeRun =>
  ({ metadata: { name, namespace: 'ns', uid: 'u' }, spec: { scenarioname: 's' }, status }) as unknown as CascadeRun;

function clock() {
  let t = 1_000_000;
  return { now: () => t, pass: (ms: number) => (t += ms) };
}

describe('counterHolder', () => {
  it("holds once its own write is seen, only while its watch of runs is open; another's write makes it the other's", () => {
    const c = clock();
    const h = counterHolder(c.now, 'me');
    h.operatorsWatched(true);
    expect(h.holder('s')).toBe('none');
    h.recent(op('5', 'me'));
    expect(h.holder('s')).toBe('none');
    h.runsWatched(true);
    expect(h.holder('s')).toBe('self');
    h.operatorSeen('MODIFIED', op('6', 'them'));
    expect(h.holder('s')).toBe('other');
    h.operatorsWatched(false);
    expect(h.holder('s'), 'its watch of operators down, nothing is left to another').toBe('none');
    h.operatorsWatched(true);
    c.pass(HOLD_MS);
    expect(h.holder('s')).toBe('none');
  });

  it('a listed copy is no sign of life; the same copy listed again keeps when it was seen; an older one is dropped', () => {
    const c = clock();
    const h = counterHolder(c.now, 'me');
    h.operatorsWatched(true);
    h.operatorSeen('ADDED', op('7', 'them'));
    expect(h.holder('s')).toBe('none');
    h.operatorSeen('MODIFIED', op('8', 'them'));
    h.operatorSeen('ADDED', op('8', 'them'));
    expect(h.holder('s')).toBe('other');
    h.operatorSeen('MODIFIED', op('3', 'me'));
    expect(h.copy('s')?.metadata.resourceVersion).toBe('8');
    h.operatorSeen('DELETED', op('9', 'them'));
    expect(h.copy('s')).toBeUndefined();
  });

  it('a count left to the holder ends when a copy shows its key', async () => {
    const h = counterHolder(Date.now, 'me');
    h.operatorsWatched(true);
    h.operatorSeen('MODIFIED', op('1', 'them'));
    const waited = h.counted('s', 'start:a', 5);
    h.operatorSeen('MODIFIED', op('2', 'them', ['start:b']));
    h.operatorSeen('MODIFIED', op('3', 'them', ['start:b', 'start:a']));
    expect((await waited)?.metadata.resourceVersion).toBe('3');
  });

  it('is waited for while the holder writes, and given up once its writes stop: it is then taken as gone', async () => {
    const c = clock();
    const h = counterHolder(c.now, 'me');
    h.operatorsWatched(true);
    h.operatorSeen('MODIFIED', op('1', 'them'));
    let over = false;
    const waited = h.counted('s', 'start:c', 5).then((r) => ((over = true), r));
    for (let i = 2; i < 4; i++) {
      c.pass(WAIT_MS - 1);
      h.operatorSeen('MODIFIED', op(String(i), 'them'));
      await new Promise((r) => setTimeout(r, 15));
      expect(over, 'a busy holder is waited for').toBe(false);
    }
    c.pass(WAIT_MS);
    expect(await waited).toBeUndefined();
    expect(h.holder('s'), 'the writer that did not count is no longer taken as alive').toBe('none');
  });

  it('is given up after the cap however busy the holder is', async () => {
    const c = clock();
    const h = counterHolder(c.now, 'me');
    h.operatorsWatched(true);
    h.operatorSeen('MODIFIED', op('1', 'them'));
    const waited = h.counted('s', 'start:c', 5);
    c.pass(WAIT_CAP_MS);
    h.operatorSeen('MODIFIED', op('2', 'them'));
    expect(await waited).toBeUndefined();
  });

  it('no holder, or none any more: the wait is over at the first check', async () => {
    const h = counterHolder(Date.now, 'me');
    h.operatorsWatched(true);
    expect(await h.counted('s', 'start:c', 5)).toBeUndefined();
  });

  it('names itself in a write only when no other process holds', () => {
    const h = counterHolder(Date.now, 'me');
    h.operatorsWatched(true);
    expect(h.name('s')).toBeUndefined();
    h.runsWatched(true);
    expect(h.name('s')).toBe('me');
    h.operatorSeen('MODIFIED', op('2', 'them'));
    expect(h.name('s')).toBeUndefined();
  });
});

describe('countForOthers', () => {
  const log = { warn: () => {} } as never;
  const config = { scenarioName: 's' } as never;
  const setUp = () => {
    const counted: CounterChange[] = [];
    const deps = { counter: (ch: CounterChange) => (counted.push(ch), Promise.resolve(undefined)), config, log };
    const h = counterHolder(Date.now, 'me');
    h.operatorsWatched(true);
    return { counted, h, others: countForOthers(deps, h) };
  };

  it('counts what a run owes while this process holds, and nothing otherwise', () => {
    const { counted, h, others } = setUp();
    h.runsWatched(true);
    h.operatorSeen('MODIFIED', op('3', 'them'));
    others.run('ADDED', run('a'));
    expect(counted).toEqual([]);
    h.recent(op('4', 'me', ['start:b']));
    counted.length = 0;
    others.run('ADDED', run('c'));
    others.run('ADDED', run('b'));
    others.run('DELETED', run('d'));
    expect(counted).toEqual([{ kind: 'started', run: 'c' }]);
  });

  it('coming to hold, counts what the runs it saw before still owe; a run that moved on or went owes nothing', () => {
    const { counted, h, others } = setUp();
    h.runsWatched(true);
    h.operatorSeen('MODIFIED', op('3', 'them'));
    others.run('ADDED', run('a'));
    others.run('ADDED', run('b'));
    others.run('MODIFIED', run('b', { phase: 'Running' }));
    others.run('ADDED', run('e', { phase: 'Failed' }));
    others.run('ADDED', run('g'));
    others.run('DELETED', run('g'));
    expect(counted).toEqual([]);
    h.recent(op('5', 'me'));
    expect(counted).toEqual([
      { kind: 'started', run: 'a' },
      { kind: 'ended', run: 'e', phase: 'Failed', resumes: undefined, uid: 'u' },
    ]);
  });

  it('a process whose watch of runs opens while it is the last writer comes to hold then', () => {
    const { counted, h, others } = setUp();
    h.recent(op('5', 'me'));
    others.run('ADDED', run('a'));
    expect(counted).toEqual([]);
    h.runsWatched(true);
    expect(counted).toEqual([{ kind: 'started', run: 'a' }]);
  });
});
