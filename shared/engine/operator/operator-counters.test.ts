import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { Config } from '../../config.ts';
import type { Store } from '../../kube/store.ts';
import {
  batchedCounter,
  MARKS_WAITING_MAX,
  offerOperator,
  offerWatched,
  writeCounters,
  type OperatorCache,
} from './operator-counters.ts';
import { noHooks } from '../profiles.ts';
import { counterHolder } from './counter-holder.ts';

const conflict = Object.assign(new Error('conflict'), { code: 409 });

/** A Store holding one CascadeAutoOperator with a resourceVersion, as the API server checks it. */
function fakeStore() {
  let op: CascadeAutoOperator = {
    apiVersion: 'cascade.cascade.net/v1alpha1',
    kind: 'CascadeAutoOperator',
    metadata: { name: 's', resourceVersion: '1' },
    spec: {},
  } as CascadeAutoOperator;
  const calls: string[] = [];
  const store = {
    getOperator: async () => {
      calls.push('get');
      return structuredClone(op);
    },
    writeOperatorStatus: async (o: CascadeAutoOperator, status: CascadeAutoOperator['status']) => {
      calls.push('put');
      if (o.metadata.resourceVersion !== op.metadata.resourceVersion) throw conflict;
      op = {
        ...op,
        status,
        metadata: { ...op.metadata, resourceVersion: String(Number(op.metadata.resourceVersion) + 1) },
      };
      return structuredClone(op);
    },
  } as unknown as Store;
  return {
    store,
    calls,
    bump: () => {
      op = { ...op, metadata: { ...op.metadata, resourceVersion: String(Number(op.metadata.resourceVersion) + 1) } };
    },
    /** Another process's write, naming it. */
    writtenBy: (writer: string) => {
      op = {
        ...op,
        status: { ...op.status, writer },
        metadata: { ...op.metadata, resourceVersion: String(Number(op.metadata.resourceVersion) + 1) },
      };
    },
    limit: (maxConcurrentRuns: number) => {
      op = { ...op, spec: { ...op.spec, maxConcurrentRuns } };
    },
    now: () => op,
  };
}

const deps = (store: Store) => ({ store, config: { scenarioName: 's' } as Config, hooks: noHooks() });

describe('the runs a write promotes', () => {
  it('are woken, a run whose start mark rides on the same write too', async () => {
    const f = fakeStore();
    const woken: string[] = [];
    const d = {
      ...deps(f.store),
      hooks: { ...noHooks(), promoted: (_s: string, runs: string[]) => woken.push(...runs) },
    };
    f.limit(1);
    await writeCounters(d, [
      { kind: 'started', run: 'a' },
      { kind: 'started', run: 'q' },
    ]);
    expect(f.now().status).toMatchObject({ holders: ['a'], queue: ['q'] });
    await writeCounters(d, [
      { kind: 'ended', run: 'a', phase: 'Succeeded' },
      { kind: 'marked', of: 'start', run: 'q' },
    ]);
    expect(f.now().status).toMatchObject({ holders: ['q'], queue: [] });
    expect(woken).toEqual(['q']);
  });
});

describe("batchedCounter's marks", () => {
  it('ride on the next write, and make one of their own once MARKS_WAITING_MAX wait', async () => {
    const f = fakeStore();
    const counter = batchedCounter(deps(f.store));
    const runs = Array.from({ length: MARKS_WAITING_MAX }, (_, i) => `r${i}`);
    for (const run of runs) await counter({ kind: 'started', run }, 's');
    const puts = () => f.calls.filter((c) => c === 'put').length;
    const started = puts();
    expect(f.now().status?.unmarked).toHaveLength(MARKS_WAITING_MAX);
    for (const run of runs.slice(0, -1)) await counter({ kind: 'marked', of: 'start', run }, 's');
    expect(puts(), 'marks wait for the next write').toBe(started);
    await counter({ kind: 'marked', of: 'start', run: runs.at(-1)! }, 's');
    expect(puts()).toBe(started + 1);
    expect(f.now().status?.unmarked).toEqual([]);
  });
});

describe('writeCounters with the operator cache', () => {
  it('reads once, then writes from the copy it last wrote', async () => {
    const f = fakeStore();
    const cache: OperatorCache = {};
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }], cache);
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'b' }], cache);
    expect(f.calls).toEqual(['get', 'put', 'put']);
    expect(f.now().status?.active).toBe(2);
  });

  it('reads again when someone else changed it meanwhile', async () => {
    const f = fakeStore();
    const cache: OperatorCache = {};
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }], cache);
    f.bump();
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'b' }], cache);
    expect(f.calls).toEqual(['get', 'put', 'put', 'get', 'put']);
    expect(f.now().status?.active).toBe(2);
  });

  it('reads every time without a cache', async () => {
    const f = fakeStore();
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }]);
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'b' }]);
    expect(f.calls).toEqual(['get', 'put', 'get', 'put']);
  });

  it('answers the operator the change is in: as written, as read when it was in already, none without an operator', async () => {
    const f = fakeStore();
    const written = await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }]);
    expect(written).toEqual(f.now());
    expect(await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }])).toEqual(f.now());
    expect(f.calls).toEqual(['get', 'put', 'get']);
    const none = { getOperator: async () => undefined } as unknown as Store;
    expect(await writeCounters(deps(none), [{ kind: 'started', run: 'a' }])).toBeUndefined();
  });
});

describe('offerOperator: a copy just read spares the counter write its own read', () => {
  it('an empty cache takes the copy, and the write starts from it', async () => {
    const f = fakeStore();
    const cache: OperatorCache = {};
    offerOperator(cache, await f.store.getOperator('s'));
    f.calls.length = 0;
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }], cache);
    expect(f.calls).toEqual(['put']);
    expect(f.now().status?.active).toBe(1);
  });

  it('a copy changed since costs a refused write and a read: the count is made once all the same', async () => {
    const f = fakeStore();
    const cache: OperatorCache = {};
    offerOperator(cache, await f.store.getOperator('s'));
    f.bump();
    f.calls.length = 0;
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }], cache);
    expect(f.calls).toEqual(['put', 'get', 'put']);
    expect(f.now().status?.active).toBe(1);
  });

  it('does not replace the copy the process last wrote, nor take nothing', async () => {
    const f = fakeStore();
    const cache: OperatorCache = {};
    const older = await f.store.getOperator('s');
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }], cache);
    const written = cache.op;
    offerOperator(cache, older);
    expect(cache.op).toBe(written);
    const empty: OperatorCache = {};
    offerOperator(empty, undefined);
    expect(empty).toEqual({});
  });
});

describe("the operator's copies from the process's watch", () => {
  const copy = (resourceVersion: string, uid = 'u1') =>
    ({ metadata: { name: 's', uid, resourceVersion }, spec: {} }) as CascadeAutoOperator;

  it('replace the cached copy only when later, by resourceVersion as a number', () => {
    const cache: OperatorCache = {};
    offerWatched(cache, 'ADDED', copy('9'));
    expect(cache.op?.metadata.resourceVersion).toBe('9');
    offerWatched(cache, 'MODIFIED', copy('10'));
    expect(cache.op?.metadata.resourceVersion).toBe('10');
    // The watch tells of a write older than the one this process just made: kept as it is.
    offerWatched(cache, 'MODIFIED', copy('8'));
    expect(cache.op?.metadata.resourceVersion).toBe('10');
    // A version that is not a number is never taken as later.
    offerWatched(cache, 'MODIFIED', copy('z1'));
    expect(cache.op?.metadata.resourceVersion).toBe('10');
  });

  it('drop the cached copy when that operator is deleted, not when another of its name was', () => {
    const cache: OperatorCache = { op: copy('5') };
    offerWatched(cache, 'DELETED', copy('6', 'u0'));
    expect(cache.op?.metadata.resourceVersion).toBe('5');
    offerWatched(cache, 'DELETED', copy('6'));
    expect(cache.op).toBeUndefined();
  });

  it("spare the 409 another replica's write would cost: the next write starts from the watched copy", async () => {
    const f = fakeStore();
    const cache: OperatorCache = {};
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'a' }], cache);
    f.bump(); // another replica writes
    offerWatched(cache, 'MODIFIED', structuredClone(f.now()));
    f.calls.length = 0;
    await writeCounters(deps(f.store), [{ kind: 'started', run: 'b' }], cache);
    expect(f.calls).toEqual(['put']);
  });
});

describe('one writer among processes (counter-holder.ts)', () => {
  it('each write names this process once it sees runs; while another holds, a start waits for its key and a mark is left', async () => {
    const f = fakeStore();
    const left: string[] = [];
    const hooks = { ...noHooks(), countLeft: (outcome: string) => void left.push(outcome) };
    const me = counterHolder(Date.now, 'me');
    me.operatorsWatched(true);
    const count = batchedCounter({ ...deps(f.store), hooks }, new Map(), me);
    await count({ kind: 'started', run: 'z' }, 's');
    expect(f.now().status?.writer, 'no name while its watch of runs is not open').toBeUndefined();
    me.runsWatched(true);
    await count({ kind: 'started', run: 'a' }, 's');
    expect(f.now().status?.writer).toBe('me');

    me.operatorSeen('MODIFIED', { ...f.now(), status: { ...f.now().status, writer: 'them' } });
    f.calls.length = 0;
    expect(await count({ kind: 'marked', of: 'start', run: 'a' }, 's')).toBeUndefined();
    const started = count({ kind: 'started', run: 'b' }, 's');
    const byThem = { ...f.now(), status: { ...f.now().status, writer: 'them', countedRuns: ['start:a', 'start:b'] } };
    me.operatorSeen('MODIFIED', { ...byThem, metadata: { ...byThem.metadata, resourceVersion: '9' } });
    expect((await started)?.metadata.resourceVersion).toBe('9');
    expect(f.calls).toEqual([]);
    expect(left).toEqual(['counted']);
  });

  it('a process that cannot hold yet learns the writer from the copy it reads after a refused write', async () => {
    const f = fakeStore();
    const me = counterHolder(Date.now, 'me');
    me.operatorsWatched(true);
    const count = batchedCounter(deps(f.store), new Map(), me);
    await count({ kind: 'started', run: 'a' }, 's');
    expect(me.holder('s')).toBe('none');
    f.writtenBy('them');
    await count({ kind: 'started', run: 'b' }, 's');
    expect(f.calls.slice(-3)).toEqual(['put', 'get', 'put']);
    expect(f.now().status?.writer, 'its write keeps the name').toBe('them');
    expect(me.holder('s')).toBe('other');
  });
});
