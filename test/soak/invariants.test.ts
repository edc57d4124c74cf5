// The soak's checks find what they are for, and nothing in a clean record.
import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../../shared/api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { runEndEventId } from '../../shared/engine/run/finish-run.ts';
import {
  countersExact,
  endedRight,
  jobsCreatedOnce,
  oneRunPerRequest,
  runEndEventsDelivered,
  stepGaps,
} from './invariants.ts';
import { percentile } from '../../bench/stats.ts';

function run(pid: string, phase: string, extra: Partial<NonNullable<CascadeRun['status']>> = {}): CascadeRun {
  return {
    apiVersion: 'cascade.cascade.net/v1alpha1',
    kind: 'CascadeRun',
    metadata: { name: `s-${pid}`, namespace: 'ns', uid: `uid-${pid}` },
    spec: { pid, scenarioname: 's' },
    status: { phase, notified: true, ...extra },
  } as CascadeRun;
}

const operator = (status: NonNullable<CascadeAutoOperator['status']>) => ({ status }) as CascadeAutoOperator;
const asked = (iuid: string, cancelled = false, resumed = false) => ({ iuid, cancelled, resumed });

describe('the soak invariants', () => {
  it('a clean record has no violation', () => {
    const runs = [run('a', 'Succeeded'), run('b', 'Cancelled')];
    const requested = [asked('a'), asked('b', true)];
    expect(oneRunPerRequest(requested, runs)).toEqual([]);
    expect(endedRight(requested, runs)).toEqual([]);
    expect(jobsCreatedOnce(new Map([['j1', 1]]))).toEqual([]);
    expect(countersExact(operator({ active: 0, succeeded: 1, cancelled: 1 }), runs)).toEqual([]);
    const ids = new Set(runs.map((r) => runEndEventId(r, r.status!.phase as 'Succeeded' | 'Cancelled')));
    expect(runEndEventsDelivered(runs, ids)).toEqual([]);
  });

  it('finds two runs for one request, and a run no one asked for', () => {
    expect(
      oneRunPerRequest([asked('a')], [run('a', 'Succeeded'), run('a', 'Succeeded'), run('x', 'Succeeded')]),
    ).toEqual(['request a: 2 runs', 'run of x: never requested']);
  });

  it('finds a run not ended, and a phase its history does not allow', () => {
    const requested = [asked('a'), asked('b', true, true), asked('c')];
    const runs = [run('a', 'Running', { notified: false }), run('b', 'Cancelled'), run('c', 'Failed')];
    expect(endedRight(requested, runs)).toEqual([
      's-a: not ended (Running, notified false)',
      's-b: Cancelled, expected Succeeded',
      's-c: Failed, expected Succeeded',
    ]);
  });

  it('finds a Job created twice, counters off, slots held, and a run-end event lost', () => {
    expect(jobsCreatedOnce(new Map([['j1', 2]]))).toEqual(['Job j1: created 2 times']);
    const runs = [run('a', 'Succeeded')];
    expect(countersExact(operator({ active: 1, succeeded: 2, holders: ['s-z'] }), runs)).toEqual([
      'operator active: 1, expected 0',
      'operator succeeded: 2, expected 1',
      'operator holders left: s-z',
    ]);
    expect(runEndEventsDelivered(runs, new Set(['other']))).toEqual([
      's-a: run-end event uid-a-succeeded never reached the sink',
    ]);
  });

  it("measures the gap from one step's end to the next one's start", () => {
    const modules = [
      { step: 0, completionTime: '2026-12-01T10:00:00.100Z' },
      { step: 1, startTime: '2026-12-01T10:00:00.150Z', completionTime: '2026-12-01T10:00:01.000Z' },
      { step: 2, startTime: '2026-12-01T10:00:01.300Z' },
    ];
    const gaps = stepGaps([run('a', 'Succeeded', { modules } as never)]);
    expect(gaps).toEqual([50, 300]);
    expect(percentile(gaps, 50)).toBe(50);
    expect(percentile(gaps, 99)).toBe(300);
    expect(percentile([], 50)).toBeUndefined();
  });
});
