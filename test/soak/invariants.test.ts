// The soak's checks find what they are for, and nothing in a clean record.
import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../../shared/api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { runEndEventId } from '../../shared/engine/run/finish-run.ts';
import {
  countersExact,
  endedRight,
  endedWithin,
  faultToNextStep,
  handOffs,
  jobsCreatedOnce,
  oneRunPerRequest,
  runEndEventsDelivered,
  stepGaps,
  stepsMadeOnce,
  type JobSeen,
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

  it('finds a step whose Job was made twice, by uid or by name', () => {
    const job = (uid: string, name: string, step = 0): JobSeen => ({ uid, name, run: 'r', step, seen: 0 });
    expect(stepsMadeOnce([job('u1', 'r-0'), job('u2', 'r-1', 1)])).toEqual([]);
    expect(stepsMadeOnce([job('u1', 'r-0'), job('u2', 'r-0'), job('u3', 'r-0-b')])).toEqual([
      'Job r-0: made 2 times',
      'r step 0: 2 Jobs, r-0, r-0-b',
    ]);
  });

  it('finds a run that ended past its deadline', () => {
    const late = run('a', 'Succeeded', { completionTime: '2026-12-01T10:05:00.001Z' });
    const sent = new Map([['a', Date.parse('2026-12-01T10:00:00.000Z')]]);
    expect(endedWithin(sent, [late], 300_000)).toEqual(['s-a: ended 300001 ms after its request']);
    expect(endedWithin(sent, [late], 300_001)).toEqual([]);
  });

  it('times each fault to the next step that moved through the whole event path after it', () => {
    const jobs: JobSeen[] = [
      { uid: '1', name: 'a-0', run: 'a', step: 0, seen: 0, completeSeen: 900 },
      { uid: '2', name: 'a-1', run: 'a', step: 1, seen: 1000, completeSeen: 5000 },
      { uid: '3', name: 'a-2', run: 'a', step: 2, seen: 7000 },
      { uid: '4', name: 'b-0', run: 'b', step: 0, seen: 1500 },
    ];
    // a Job that completed before the fault does not count, though its next came after
    expect(faultToNextStep([950, 4000, 6000], jobs)).toEqual([6050, 3000, undefined]);
    expect(handOffs(jobs)).toEqual([100, 2000]);
  });
});
