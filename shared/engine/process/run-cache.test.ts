import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { runCache } from './run-cache.ts';

const run = (name: string, phase: string, rv = '1') =>
  ({ metadata: { name, resourceVersion: rv }, spec: {}, status: { phase } }) as unknown as CascadeRun;

describe('the runs this process wrote last', () => {
  it('keeps the last copy written of a run in progress', () => {
    const c = runCache();
    c.put(run('a', 'Running', '1'));
    c.put(run('a', 'Running', '2'));
    expect(c.get('a')?.metadata.resourceVersion).toBe('2');
    expect(c.size()).toBe(1);
  });

  it('keeps a run that ended: its last Job is deleted once the Job controller is done with it', () => {
    const c = runCache();
    for (const phase of ['Succeeded', 'Failed', 'Cancelled']) {
      c.put(run('a', 'Running'));
      c.put(run('a', phase));
      expect(c.get('a')?.status?.phase, phase).toBe(phase);
    }
  });

  it('holds at most `limit` runs, the least recently written out first', () => {
    const c = runCache(2);
    c.put(run('a', 'Running'));
    c.put(run('b', 'Running'));
    c.put(run('a', 'Running'));
    c.put(run('c', 'Running'));
    expect([c.get('a'), c.get('b'), c.get('c')].map((r) => r?.metadata.name)).toEqual(['a', undefined, 'c']);
  });

  it('drops a run whose copy proved stale', () => {
    const c = runCache();
    c.put(run('a', 'Running'));
    c.drop('a');
    expect(c.get('a')).toBeUndefined();
  });
});

describe("the watch's later copies of the runs held", () => {
  const copy = (rv: string, uid = 'u1') =>
    ({
      metadata: { name: 'a', uid, resourceVersion: rv },
      spec: {},
      status: { phase: 'Running' },
    }) as unknown as CascadeRun;

  it('replace a held run only when later', () => {
    const c = runCache();
    c.put(copy('5'));
    c.offer('MODIFIED', copy('7'));
    expect(c.get('a')?.metadata.resourceVersion).toBe('7');
    c.offer('MODIFIED', copy('6'));
    expect(c.get('a')?.metadata.resourceVersion).toBe('7');
    // This process's own write, answered after the watch showed a later one: the later copy stays.
    c.put(copy('6'));
    expect(c.get('a')?.metadata.resourceVersion).toBe('7');
  });

  it('drop a held run when it is deleted, not when another of its name was', () => {
    const c = runCache();
    c.put(copy('5'));
    c.offer('DELETED', copy('6', 'u0'));
    expect(c.get('a')).toBeDefined();
    c.offer('DELETED', copy('6'));
    expect(c.get('a')).toBeUndefined();
  });
});

describe("the watch's copies of runs not held", () => {
  const copy = (name: string, phase?: string) =>
    ({
      metadata: { name, uid: name, resourceVersion: '3' },
      spec: {},
      status: phase ? { phase } : {},
    }) as unknown as CascadeRun;

  it('are taken while the run runs; not once it ended, not before it started, not when deleted', () => {
    const c = runCache();
    c.offer('ADDED', copy('running', 'Running'));
    c.offer('MODIFIED', copy('queued', 'Queued'));
    for (const phase of ['Succeeded', 'Failed', 'Cancelled']) c.offer('MODIFIED', copy(phase, phase));
    c.offer('ADDED', copy('new'));
    c.offer('DELETED', copy('gone', 'Running'));
    expect(['running', 'queued', 'Succeeded', 'Failed', 'Cancelled', 'new', 'gone'].filter((n) => c.get(n))).toEqual([
      'running',
      'queued',
    ]);
  });

  it('an offer works unbound, as the watch calls it', () => {
    const c = runCache();
    const { offer } = c;
    offer('ADDED', copy('running', 'Running'));
    expect(c.get('running')).toBeDefined();
  });
});
