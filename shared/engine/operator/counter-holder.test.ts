import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../api/cascade-run.ts';
import type { CounterChange } from '../../core/counters.ts';
import { HOLD_MS } from '../../core/counter-holder.ts';
import { counterHolder, countForOthers } from './counter-holder.ts';

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
    expect(h.holder('s')).toBe('none');
    h.wrote(op('5', 'me'));
    expect(h.holder('s')).toBe('none');
    h.runsWatched(true);
    expect(h.holder('s')).toBe('self');
    h.operatorSeen('MODIFIED', op('6', 'them'));
    expect(h.holder('s')).toBe('other');
    c.pass(HOLD_MS);
    expect(h.holder('s')).toBe('none');
  });

  it('a listed copy is no sign of life; the same copy listed again keeps when it was seen; an older one is dropped', () => {
    const c = clock();
    const h = counterHolder(c.now, 'me');
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

  it('a count left to the holder ends when a copy shows its key, or after the wait with nothing', async () => {
    const h = counterHolder(Date.now, 'me');
    const waited = h.counted('s', 'start:a', 1_000);
    h.operatorSeen('MODIFIED', op('2', 'them', ['start:b']));
    h.operatorSeen('MODIFIED', op('3', 'them', ['start:b', 'start:a']));
    expect((await waited)?.metadata.resourceVersion).toBe('3');
    expect(await h.counted('s', 'start:c', 20)).toBeUndefined();
  });
});

describe('countForOthers', () => {
  const log = { warn: () => {} } as never;
  const config = { scenarioName: 's' } as never;

  it('counts what a run owes while this process holds, and nothing otherwise', () => {
    const counted: CounterChange[] = [];
    const deps = { counter: (ch: CounterChange) => (counted.push(ch), Promise.resolve(undefined)), config, log };
    const h = counterHolder(Date.now, 'me');
    countForOthers(deps, h, 'ADDED', run('a'));
    expect(counted).toEqual([]);
    h.runsWatched(true);
    h.wrote(op('4', 'me', ['start:b']));
    countForOthers(deps, h, 'ADDED', run('a'));
    countForOthers(deps, h, 'ADDED', run('b'));
    countForOthers(deps, h, 'DELETED', run('c'));
    expect(counted).toEqual([{ kind: 'started', run: 'a' }]);
  });
});
