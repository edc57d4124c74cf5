// decide at and after a run's end: deadlines, finished runs, the Succeeded condition.
import { describe, expect, it, vi } from 'vitest';
import { decide } from './decide.ts';
import { NOW, SETTINGS, input, job, result, run } from './testing/fixtures.ts';
import { ABC, T0, running, summary } from './testing/decisions.ts';
import type { CascadeRunStatus } from '../api/cascade-run.ts';
import type { Decision } from './types.ts';

describe('decide: deadlines', () => {
  it('fails a run older than its deadline and keeps the running Job', () => {
    const d = decide({
      ...input(run(ABC, running(1)), [job(ABC, 1, 'Active')]),
      settings: { ...SETTINGS, runTimeoutSeconds: 60 },
    });
    expect(summary(d)).toMatchObject({
      phase: 'Failed',
      modules: 'Succeeded,Failed,Pending',
      reason: 'DeadlineExceeded',
      actions: 'Finish:Failed',
    });
  });

  it('fails a run with no progress for longer than the stall limit', () => {
    const d = decide({
      ...input(run(ABC, running(1)), [job(ABC, 1, 'Active')]),
      settings: { ...SETTINGS, stallAfterSeconds: 600 },
    });
    expect(summary(d)).toMatchObject({ phase: 'Failed', reason: 'Stalled' });
  });

  it('does not find a run stalled when its Job just finished', () => {
    const d = decide({
      ...input(run(ABC, running(1)), [job(ABC, 1, 'Succeeded')]),
      settings: { ...SETTINGS, stallAfterSeconds: 600 },
    });
    expect(summary(d)).toMatchObject({ phase: 'Running', modules: 'Succeeded,Succeeded,Running' });
  });
});

describe('decide: finished runs', () => {
  it("deletes, with every Job but the failed step's, a Job that a lost race created after the run failed", () => {
    const failed = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'fail'))).status;
    const d = decide(input(run(ABC, { ...failed, notified: true }), [job(ABC, 0, 'Active'), job(ABC, 1, 'Active')]));
    expect(summary(d)).toMatchObject({ phase: 'Failed', actions: 'DeleteRunJobs:keep0', changed: false });
  });

  it('a result from the Job a lost race created after the run failed moves nothing', () => {
    const failed = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'fail'))).status;
    const d = decide(
      input(
        run(ABC, { ...failed, notified: true }),
        [job(ABC, 0, 'Active'), job(ABC, 1, 'Active')],
        result('b', 'success'),
      ),
    );
    expect(summary(d)).toMatchObject({
      phase: 'Failed',
      modules: 'Failed,Pending,Pending',
      actions: 'DeleteRunJobs:keep0',
      verdict: 'not-started',
      changed: false,
    });
  });

  it('asks to finish a terminal run only until it is notified', () => {
    const done = decide(input(run(ABC, running(2)), [job(ABC, 2, 'Succeeded')])).status;
    expect(decide(input(run(ABC, done), [])).actions).toEqual([
      { type: 'FinishRun', phase: 'Succeeded', eventOwed: false },
    ]);
    expect(decide(input(run(ABC, { ...done, notified: true }), [])).actions).toEqual([]);
  });

  it('with a K_SINK, owes the run-end event until it is sent: its slot released once, sent again while not notified', () => {
    const withSink = (status: CascadeRunStatus, fact = input(run(ABC, status), [])) =>
      decide({ ...fact, settings: { ...SETTINGS, sink: true } });
    const failed = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'fail'))).status;
    const ending = decide({
      ...input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'fail')),
      settings: { ...SETTINGS, sink: true },
    });
    expect(ending.actions.filter((a) => a.type !== 'DeleteJob')).toEqual([
      { type: 'FinishRun', phase: 'Failed', eventOwed: true },
      { type: 'SendRunEndEvent', phase: 'Failed' },
    ]);
    expect(withSink({ ...failed, slotReleased: true }).actions).toEqual([{ type: 'SendRunEndEvent', phase: 'Failed' }]);
    expect(
      withSink(
        { ...failed, slotReleased: true, notified: false },
        input(run(ABC, { ...failed, slotReleased: true }), [], result('a', 'fail')),
      ).actions,
    ).toEqual([{ type: 'SendRunEndEvent', phase: 'Failed' }]);
    expect(withSink({ ...failed, slotReleased: true, notified: true }).actions).toEqual([]);
    expect(withSink({ ...failed, notified: true }).actions, 'an older version wrote only notified').toEqual([]);
  });

  it("reads the slot's release under the old name first: an older replica writes only counted", () => {
    const failed = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'fail'))).status;
    const finish = [{ type: 'FinishRun', phase: 'Failed', eventOwed: false }];
    expect(decide(input(run(ABC, { ...failed, counted: true }), [])).actions, 'stored by it').toEqual([]);
    expect(
      decide(input(run(ABC, { ...failed, counted: false, slotReleased: true }), [])).actions,
      'resumed by it since an earlier end: the new name is stale',
    ).toEqual(finish);
    expect(decide(input(run(ABC, failed), [])).actions, 'neither name').toEqual(finish);
  });

  it('without a K_SINK, leaves an owed event to a process that has one, and owes none for a run it ends', () => {
    const failed = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'fail'))).status;
    expect(decide(input(run(ABC, { ...failed, slotReleased: true }), [])).actions).toEqual([]);
    expect(decide(input(run(ABC, failed), [])).actions).toEqual([
      { type: 'FinishRun', phase: 'Failed', eventOwed: false },
    ]);
  });

  it("decides from the input's now, never from the clock: the same input at other times gives the same decision", () => {
    const i = input(run(ABC, running(0)), [job(ABC, 0, 'Succeeded')]);
    vi.useFakeTimers();
    try {
      vi.setSystemTime(new Date('2030-01-01T00:00:00.000Z'));
      const first = decide(i);
      vi.setSystemTime(new Date('2031-06-15T08:30:00.000Z'));
      const second = decide(structuredClone(i));
      expect(second).toEqual(first);
      expect(first.status.modules?.map((m) => [m.phase, m.completionTime ?? '', m.startTime ?? ''])).toEqual([
        ['Succeeded', NOW, T0],
        ['Running', '', NOW],
        ['Pending', '', ''],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('decide: the Succeeded condition', () => {
  const condition = (d: Decision) => d.status.conditions?.find((c) => c.type === 'Succeeded');
  const T1 = '2026-11-29T12:00:00.000Z';
  const T2 = '2026-11-29T12:05:00.000Z';
  const T3 = '2026-11-29T12:09:00.000Z';

  it('keeps lastTransitionTime while its status stays the same, and moves it when the status changes', () => {
    const started = decide(input(run(ABC), [], { kind: 'Observe' }, T1));
    expect(condition(started)).toMatchObject({ status: 'Unknown', reason: 'Running', lastTransitionTime: T1 });

    const next = decide(input(run(ABC, started.status), [job(ABC, 0, 'Succeeded')], { kind: 'Observe' }, T2));
    expect(condition(next)).toMatchObject({
      status: 'Unknown',
      message: 'module b (step 2 of 3) is running',
      lastTransitionTime: T1,
    });

    const quiet = decide(input(run(ABC, next.status), [job(ABC, 1, 'Active')], { kind: 'Observe' }, T3));
    expect(quiet.changed).toBe(false);
    expect(condition(quiet)?.lastTransitionTime).toBe(T1);

    const failed = decide(
      input(
        run(ABC, next.status),
        [job(ABC, 1, 'Failed', { reason: 'BackoffLimitExceeded' })],
        { kind: 'Observe' },
        T3,
      ),
    );
    expect(condition(failed)).toMatchObject({ status: 'False', reason: 'ModuleFailed', lastTransitionTime: T3 });
  });
});

describe('decide: a run keeps its Jobs until it ends', () => {
  const partial = (status: CascadeRunStatus, shown: ReturnType<typeof job>[]) =>
    decide({ ...input(run(ABC, status), shown), partialJobs: true });

  it('keeps a finished step’s Job while the run goes on', () => {
    const d = decide(input(run(ABC, running(1)), [job(ABC, 0, 'Succeeded'), job(ABC, 1, 'Active')]));
    expect(d.actions).toEqual([]);
  });

  it('deletes them together once the Job controller is done with the last: none at SuccessCriteriaMet, one at Complete', () => {
    const met = partial(running(2), [job(ABC, 2, 'Succeeded', { done: false })]);
    expect(summary(met)).toMatchObject({ phase: 'Succeeded', actions: 'Finish:Succeeded' });
    const told = { ...met.status, slotReleased: true, notified: true };
    const complete = partial(told, [job(ABC, 2, 'Succeeded')]);
    expect(complete.actions).toEqual([{ type: 'DeleteRunJobs', run: run(ABC).metadata.name, keep: undefined }]);
    expect(complete.changed).toBe(false);
  });

  it('asks nothing more of a Job already deleted', () => {
    const ended = { ...partial(running(2), [job(ABC, 2, 'Succeeded')]).status, slotReleased: true, notified: true };
    const gone = partial(ended, [job(ABC, 1, 'Succeeded', { gone: true })]);
    expect(gone.actions).toEqual([]);
  });

  it('a failed run keeps its failed step’s last attempt: the delete names it', () => {
    const status = running(1);
    status.modules![1]!.attempt = 3;
    const d = decide(input(run(ABC, status), [job(ABC, 1, 'Failed', { attempt: 3 }), job(ABC, 0, 'Succeeded')]));
    expect(d.status.phase).toBe('Failed');
    expect(d.actions.find((a) => a.type === 'DeleteRunJobs')).toEqual({
      type: 'DeleteRunJobs',
      run: run(ABC).metadata.name,
      keep: { step: 1, attempt: 3 },
    });
  });
});
