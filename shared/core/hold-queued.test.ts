import { describe, expect, it } from 'vitest';
import type { CascadeRunStatus } from '../api/cascade-run.ts';
import { decide } from './decide.ts';
import { NOW, input, job, result, run } from './testing/fixtures.ts';
import type { DecideInput, Decision } from './types.ts';

const AB = ['a', 'b'];
const LATER = '2026-11-29T12:05:00.000Z';

function summary(d: Decision) {
  const c = d.status.conditions?.find((x) => x.type === 'Succeeded');
  return {
    phase: d.status.phase,
    condition: `${c?.status}/${c?.reason}`,
    startTime: d.status.startTime,
    actions: d.actions.map((a) => a.type).join(' '),
    verdict: d.verdict,
    changed: d.changed,
  };
}

const with_ = (i: DecideInput, admission: DecideInput['admission']): DecideInput => ({ ...i, admission });
const queuedStatus = (): CascadeRunStatus => decide(with_(input(run(AB), []), 'queued')).status;

describe("decide: a run under its scenario's concurrency limit", () => {
  it.each<[string, DecideInput, ReturnType<typeof summary>]>([
    [
      'a new run told queued waits: no Job, no start time',
      with_(input(run(AB), []), 'queued'),
      {
        phase: 'Queued',
        condition: 'Unknown/Queued',
        startTime: undefined,
        actions: '',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a queued run told nothing keeps waiting, unchanged',
      input(run(AB, queuedStatus()), [], { kind: 'Observe' }, LATER),
      {
        phase: 'Queued',
        condition: 'Unknown/Queued',
        startTime: undefined,
        actions: '',
        verdict: 'observed',
        changed: false,
      },
    ],
    [
      'a queued run told queued again is unchanged',
      with_(input(run(AB, queuedStatus()), [], { kind: 'Observe' }, LATER), 'queued'),
      {
        phase: 'Queued',
        condition: 'Unknown/Queued',
        startTime: undefined,
        actions: '',
        verdict: 'observed',
        changed: false,
      },
    ],
    [
      'a queued run admitted starts its first Job, its start time the admission',
      with_(input(run(AB, queuedStatus()), [], { kind: 'Observe' }, LATER), 'admitted'),
      {
        phase: 'Running',
        condition: 'Unknown/Running',
        startTime: LATER,
        actions: 'CreateJob',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a new run admitted starts at once',
      with_(input(run(AB), []), 'admitted'),
      {
        phase: 'Running',
        condition: 'Unknown/Running',
        startTime: NOW,
        actions: 'CreateJob',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a module result for a queued run: not started',
      input(run(AB, queuedStatus()), [], result('a', 'ok')),
      {
        phase: 'Queued',
        condition: 'Unknown/Queued',
        startTime: undefined,
        actions: '',
        verdict: 'not-started',
        changed: false,
      },
    ],
  ])('%s', (_name, i, expected) => {
    expect(summary(decide(i))).toEqual(expected);
  });

  it('a running run is not held back by a stale "queued"', () => {
    const started = decide(with_(input(run(AB), []), 'admitted')).status;
    expect(summary(decide(with_(input(run(AB, started), [job(AB, 0, 'Active')]), 'queued')))).toMatchObject({
      phase: 'Running',
      changed: false,
    });
  });
});
