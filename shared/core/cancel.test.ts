import { describe, expect, it } from 'vitest';
import type { CascadeRun, CascadeRunStatus } from '../api/cascade-run.ts';
import { ANNOTATION_CANCEL_REQUESTED_AT, ANNOTATION_RESUME_REQUESTED_AT } from '../names.ts';
import { decide } from './decide.ts';
import { NOW, SETTINGS, input, job, result, run } from './testing/fixtures.ts';
import type { ObservedJob } from './observed-job.ts';
import type { Decision, Fact } from './types.ts';

const ABC = ['a', 'b', 'c'];
const T0 = '2026-11-29T11:00:00.000Z';
const CANCEL: Fact = { kind: 'Cancel' };

function running(step: number, extra: Partial<CascadeRunStatus> = {}): CascadeRunStatus {
  const status = structuredClone(decide(input(run(ABC), [])).status);
  for (const rec of status.modules ?? []) {
    if (rec.step < step) Object.assign(rec, { phase: 'Succeeded', startTime: T0, completionTime: T0 });
    if (rec.step === step) Object.assign(rec, { phase: 'Running', startTime: T0 });
  }
  return { ...status, startTime: T0, currentStep: step, currentModule: ABC[step], ...extra };
}

/** A run as a decision ended it, its slot released and notified. */
function ended(phase: 'Succeeded' | 'Failed' | 'Cancelled'): CascadeRunStatus {
  const jobs = {
    Succeeded: [job(ABC, 2, 'Succeeded')],
    Failed: [job(ABC, 2, 'Failed')],
    Cancelled: [job(ABC, 2, 'Active')],
  }[phase];
  const d = decide(input(run(ABC, running(2)), jobs, phase === 'Cancelled' ? CANCEL : { kind: 'Observe' }));
  return { ...d.status, slotReleased: true, notified: true };
}

function annotated(r: CascadeRun, value: string): CascadeRun {
  return { ...r, metadata: { ...r.metadata, annotations: { [ANNOTATION_CANCEL_REQUESTED_AT]: value } } };
}

function summary(d: Decision) {
  const succeeded = d.status.conditions?.find((c) => c.type === 'Succeeded');
  return {
    phase: d.status.phase,
    modules: d.status.modules?.map((m) => m.phase).join(','),
    condition: `${succeeded?.status}/${succeeded?.reason}`,
    actions: d.actions
      .map((a) =>
        a.type === 'FinishRun' || a.type === 'SendRunEndEvent'
          ? `${a.type === 'FinishRun' ? 'Finish' : 'Send'}:${a.phase}`
          : 'step' in a
            ? `${a.type}:${a.step}`
            : a.type,
      )
      .join(' '),
    verdict: d.verdict,
    changed: d.changed,
  };
}

describe('decide: a cancel', () => {
  it.each([
    [
      'of a run whose first Job is not created yet: no Job is',
      run(ABC),
      [],
      CANCEL,
      {
        phase: 'Cancelled',
        modules: 'Cancelled,Pending,Pending',
        condition: 'False/Cancelled',
        actions: 'Finish:Cancelled',
        verdict: 'cancelled',
        changed: true,
      },
    ],
    [
      'at step 1: its Job is deleted, nothing later starts',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active')],
      CANCEL,
      {
        phase: 'Cancelled',
        modules: 'Cancelled,Pending,Pending',
        condition: 'False/Cancelled',
        actions: 'DeleteRunJobs Finish:Cancelled',
        verdict: 'cancelled',
        changed: true,
      },
    ],
    [
      'at step 2',
      run(ABC, running(1)),
      [job(ABC, 1, 'Active')],
      CANCEL,
      {
        phase: 'Cancelled',
        modules: 'Succeeded,Cancelled,Pending',
        condition: 'False/Cancelled',
        actions: 'DeleteRunJobs Finish:Cancelled',
        verdict: 'cancelled',
        changed: true,
      },
    ],
    [
      'at step 3',
      run(ABC, running(2)),
      [job(ABC, 2, 'Active')],
      CANCEL,
      {
        phase: 'Cancelled',
        modules: 'Succeeded,Succeeded,Cancelled',
        condition: 'False/Cancelled',
        actions: 'DeleteRunJobs Finish:Cancelled',
        verdict: 'cancelled',
        changed: true,
      },
    ],
    [
      "after a step's Job completed unseen: that step succeeded, the next is cancelled before it starts",
      run(ABC, running(0)),
      [job(ABC, 0, 'Succeeded')],
      CANCEL,
      {
        phase: 'Cancelled',
        modules: 'Succeeded,Cancelled,Pending',
        condition: 'False/Cancelled',
        actions: 'DeleteRunJobs Finish:Cancelled',
        verdict: 'cancelled',
        changed: true,
      },
    ],
    [
      'with a later Job created by a decision that lost the race: that Job goes too',
      run(ABC, running(0)),
      [job(ABC, 0, 'Succeeded'), job(ABC, 1, 'Active')],
      CANCEL,
      {
        phase: 'Cancelled',
        modules: 'Succeeded,Cancelled,Pending',
        condition: 'False/Cancelled',
        actions: 'DeleteRunJobs Finish:Cancelled',
        verdict: 'cancelled',
        changed: true,
      },
    ],
    [
      "racing the last step's completion, seen first: the run succeeded, nothing is cancelled",
      run(ABC, running(2)),
      [job(ABC, 2, 'Succeeded')],
      CANCEL,
      {
        phase: 'Succeeded',
        modules: 'Succeeded,Succeeded,Succeeded',
        condition: 'True/Succeeded',
        actions: 'DeleteRunJobs Finish:Succeeded',
        verdict: 'already-finished',
        changed: true,
      },
    ],
    [
      'racing a failing Job, seen first: the run failed',
      run(ABC, running(1)),
      [job(ABC, 1, 'Failed')],
      CANCEL,
      {
        phase: 'Failed',
        modules: 'Succeeded,Failed,Pending',
        condition: 'False/ModuleFailed',
        actions: 'Finish:Failed',
        verdict: 'already-finished',
        changed: true,
      },
    ],
    [
      'of a succeeded run changes nothing',
      run(ABC, ended('Succeeded')),
      [],
      CANCEL,
      {
        phase: 'Succeeded',
        modules: 'Succeeded,Succeeded,Succeeded',
        condition: 'True/Succeeded',
        actions: '',
        verdict: 'already-finished',
        changed: false,
      },
    ],
    [
      'of a failed run changes nothing and keeps its failed Job',
      run(ABC, ended('Failed')),
      [job(ABC, 2, 'Failed')],
      CANCEL,
      {
        phase: 'Failed',
        modules: 'Succeeded,Succeeded,Failed',
        condition: 'False/ModuleFailed',
        actions: '',
        verdict: 'already-finished',
        changed: false,
      },
    ],
    [
      'delivered again changes nothing',
      run(ABC, ended('Cancelled')),
      [],
      CANCEL,
      {
        phase: 'Cancelled',
        modules: 'Succeeded,Succeeded,Cancelled',
        condition: 'False/Cancelled',
        actions: '',
        verdict: 'already-finished',
        changed: false,
      },
    ],
  ] as Array<[string, CascadeRun, ObservedJob[], Fact, ReturnType<typeof summary>]>)(
    '%s',
    (_name, r, jobs, fact, expected) => {
      expect(summary(decide(input(r, jobs, fact)))).toEqual(expected);
    },
  );

  it("writes the end as the Go controller's readers and kubectl see it", () => {
    const d = decide(input(run(ABC, running(1)), [job(ABC, 1, 'Active')], CANCEL));
    expect(d.status).toMatchObject({ info: 'Cancelled', completionTime: NOW, currentStep: 1, currentModule: 'b' });
    expect(d.status.modules?.[1]).toMatchObject({
      phase: 'Cancelled',
      startTime: T0,
      completionTime: NOW,
      reason: 'Cancelled',
    });
    expect(d.status.modules?.[2]).toEqual(expect.not.objectContaining({ completionTime: expect.anything() }));
    expect(d.status.conditions?.find((c) => c.type === 'Succeeded')).toMatchObject({
      status: 'False',
      reason: 'Cancelled',
      message: 'cancelled at module b (step 2 of 3)',
      lastTransitionTime: NOW,
    });
    expect(d.transitions.map((t) => t.kind)).toEqual(['ModuleCancelled', 'RunCancelled']);
    expect(d.transitions[1]?.durationSeconds).toBe(3600);
  });

  it('owes the run-end event when a sink is set, as any end', () => {
    const d = decide({
      ...input(run(ABC, running(0)), [job(ABC, 0, 'Active')], CANCEL),
      settings: { ...SETTINGS, sink: true },
    });
    expect(d.actions.filter((a) => a.type !== 'DeleteRunJobs')).toEqual([
      { type: 'FinishRun', phase: 'Cancelled', eventOwed: true },
      { type: 'SendRunEndEvent', phase: 'Cancelled' },
    ]);
  });

  it('no decision after it creates a Job: a result, a completed Job, a look again, the deadlines', () => {
    const cancelled = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], CANCEL)).status;
    const later = [
      input(run(ABC, cancelled), [job(ABC, 0, 'Succeeded')], result('a', 'success')),
      input(run(ABC, cancelled), [job(ABC, 0, 'Succeeded')]),
      input(run(ABC, cancelled), []),
      {
        ...input(run(ABC, cancelled), [], { kind: 'Observe' }, '2026-12-29T12:00:00.000Z'),
        settings: { ...SETTINGS, stallAfterSeconds: 1, runTimeoutSeconds: 1 },
      },
    ];
    for (const i of later) {
      const d = decide(i);
      expect(d.actions.filter((a) => a.type === 'CreateJob')).toEqual([]);
      expect(d.status.phase).toBe('Cancelled');
    }
    // A late result is recorded, as on any ended run.
    expect(decide(later[0]!).verdict).toBe('recorded');
  });
});

describe('decide: a cancel requested by annotation', () => {
  const value = '2026-11-29T11:30:00Z';

  it('is applied by any decision and recorded handled in the same write, whatever the fact', () => {
    for (const fact of [{ kind: 'Observe' }, result('a', '50% done')] as Fact[]) {
      const d = decide(input(annotated(run(ABC, running(0)), value), [job(ABC, 0, 'Active')], fact));
      expect(summary(d)).toMatchObject({
        phase: 'Cancelled',
        modules: 'Cancelled,Pending,Pending',
        actions: 'DeleteRunJobs Finish:Cancelled',
      });
      expect(d.status.lastHandledCancel).toBe(value);
    }
  });

  it('keeps the verdict of the fact the event brought', () => {
    const d = decide(input(annotated(run(ABC, running(0)), value), [job(ABC, 0, 'Active')], result('a', '50% done')));
    expect(d.verdict).toBe('applied');
  });

  it('is handled once: the value recorded is no longer pending', () => {
    const first = decide(input(annotated(run(ABC, running(0)), value), [job(ABC, 0, 'Active')]));
    const again = decide(
      input(annotated(run(ABC, { ...first.status, slotReleased: true, notified: true }), value), []),
    );
    expect(again.changed).toBe(false);
    expect(again.actions).toEqual([]);
  });

  it('on a finished run changes nothing but records the value handled', () => {
    const d = decide(input(annotated(run(ABC, ended('Succeeded')), value), []));
    expect(d.status).toEqual({ ...ended('Succeeded'), lastHandledCancel: value });
    expect(d.actions).toEqual([]);
  });

  it('a new value after a handled one is a new request; an empty one is none', () => {
    const handled = { ...running(0), lastHandledCancel: value };
    expect(
      decide(input(annotated(run(ABC, handled), '2026-11-29T11:31:00Z'), [job(ABC, 0, 'Active')])).status.phase,
    ).toBe('Cancelled');
    expect(decide(input(annotated(run(ABC, running(0)), ''), [job(ABC, 0, 'Active')])).status.phase).toBe('Running');
  });
});

describe('cancel meets the queue and resume', () => {
  const queued = (): CascadeRun => run(ABC, { ...decide({ ...input(run(ABC), []), admission: 'queued' }).status });

  it('a queued run is cancelled while it waits: it ends Cancelled, no Job, never started', () => {
    const r = queued();
    expect(r.status?.phase).toBe('Queued');
    const d = decide({ ...input(r, [], CANCEL), admission: 'queued' });
    expect(summary(d)).toMatchObject({ phase: 'Cancelled', condition: 'False/Cancelled', verdict: 'cancelled' });
    expect(d.actions.filter((a) => a.type === 'CreateJob')).toEqual([]);
  });

  it('a queued run whose cancel annotation is pending is cancelled by any decision', () => {
    const d = decide({ ...input(annotated(queued(), 't1'), []), admission: 'queued' });
    expect(d.status.phase).toBe('Cancelled');
    expect(d.status.lastHandledCancel).toBe('t1');
  });

  it('a resume annotation pending on a cancelled run resumes it from any decision, recorded handled once', () => {
    const r: CascadeRun = {
      ...run(ABC, ended('Cancelled')),
      metadata: { ...run(ABC).metadata, annotations: { [ANNOTATION_RESUME_REQUESTED_AT]: 'r1' } },
    };
    const d = decide(input(r, []));
    expect(d.status.phase).not.toBe('Cancelled');
    expect(d.status.lastHandledResume).toBe('r1');
    expect(d.status.resumes).toBe(1);
    expect(d.actions.filter((a) => a.type === 'CreateJob').map((a) => 'step' in a && a.step)).toEqual([2]);
    const again = decide(input({ ...r, status: d.status }, []));
    expect(again.status.resumes).toBe(1);
  });
});
