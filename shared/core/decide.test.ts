// decide as a run moves through its steps: transitions, results, refused Jobs, informational results.
import { describe, expect, it } from 'vitest';
import { decide } from './decide.ts';
import { IUID, NOW, SETTINGS, input, job, result, run } from './testing/fixtures.ts';
import { ABC, running, summary } from './testing/decisions.ts';
import type { CascadeRunStatus } from '../api/cascade-run.ts';

/** The status with the uid of step `step`'s Job recorded: that Job was seen once. */
function withUid(status: CascadeRunStatus, step: number): CascadeRunStatus {
  const modules = status.modules?.map((m) => (m.step === step ? { ...m, jobUid: `job-uid-${step}` } : m));
  return { ...status, modules };
}
import type { CascadeRun } from '../api/cascade-run.ts';
import type { ObservedJob } from './observed-job.ts';
import type { Fact } from './types.ts';

describe('decide: one transition each', () => {
  it.each([
    [
      'a new run creates the first Job',
      run(ABC),
      [],
      undefined,
      {
        phase: 'Running',
        modules: 'Running,Pending,Pending',
        reason: 'Running',
        actions: 'CreateJob:0',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a running Job changes nothing',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active')],
      undefined,
      {
        phase: 'Running',
        modules: 'Running,Pending,Pending',
        reason: 'Running',
        actions: '',
        verdict: 'observed',
        changed: false,
      },
    ],
    [
      'a completed Job starts the next and is kept until the run ends',
      run(ABC, running(0)),
      [job(ABC, 0, 'Succeeded')],
      undefined,
      {
        phase: 'Running',
        modules: 'Succeeded,Running,Pending',
        reason: 'Running',
        actions: 'CreateJob:1',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a failed Job fails the run and is kept',
      run(ABC, running(1)),
      [job(ABC, 1, 'Failed', { reason: 'BackoffLimitExceeded' })],
      undefined,
      {
        phase: 'Failed',
        modules: 'Succeeded,Failed,Pending',
        reason: 'ModuleFailed',
        actions: 'Finish:Failed',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a Job past its deadline fails the run with that reason',
      run(ABC, running(0)),
      [job(ABC, 0, 'Failed', { reason: 'DeadlineExceeded' })],
      undefined,
      {
        phase: 'Failed',
        modules: 'Failed,Pending,Pending',
        reason: 'DeadlineExceeded',
        actions: 'Finish:Failed',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a success result starts the next step before the Job ends',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active')],
      result('a', 'Success'),
      {
        phase: 'Running',
        modules: 'Succeeded,Running,Pending',
        reason: 'Running',
        actions: 'CreateJob:1',
        verdict: 'applied',
        changed: true,
      },
    ],
    [
      'a failure result fails the run and keeps the Job',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active')],
      result('a', 'failed'),
      {
        phase: 'Failed',
        modules: 'Failed,Pending,Pending',
        reason: 'ModuleResultFailed',
        actions: 'Finish:Failed',
        verdict: 'applied',
        changed: true,
      },
    ],
    [
      'an informational result is recorded only',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active')],
      result('a', '50% done'),
      {
        phase: 'Running',
        modules: 'Running,Pending,Pending',
        reason: 'Running',
        actions: '',
        verdict: 'applied',
        changed: true,
      },
    ],
    [
      'the last Job completing ends the run',
      run(ABC, running(2)),
      [job(ABC, 2, 'Succeeded')],
      undefined,
      {
        phase: 'Succeeded',
        modules: 'Succeeded,Succeeded,Succeeded',
        reason: 'Succeeded',
        actions: 'DeleteRunJobs Finish:Succeeded',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a running step whose recorded Job is gone fails',
      run(ABC, withUid(running(1), 1)),
      [],
      undefined,
      {
        phase: 'Failed',
        modules: 'Succeeded,Failed,Pending',
        reason: 'JobMissing',
        actions: 'Finish:Failed',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a result for a module not in the scenario',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active')],
      result('zzz', 'success'),
      {
        phase: 'Running',
        modules: 'Running,Pending,Pending',
        reason: 'Running',
        actions: '',
        verdict: 'unknown-module',
        changed: false,
      },
    ],
    [
      'a result for a module not started yet',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active')],
      result('c', 'success'),
      {
        phase: 'Running',
        modules: 'Running,Pending,Pending',
        reason: 'Running',
        actions: '',
        verdict: 'not-started',
        changed: false,
      },
    ],
    [
      'a Job of a later step proves the earlier ones done, and both are kept',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active'), job(ABC, 2, 'Active')],
      undefined,
      {
        phase: 'Running',
        modules: 'Succeeded,Succeeded,Running',
        reason: 'Running',
        actions: '',
        verdict: 'observed',
        changed: true,
      },
    ],
    [
      'a run with no scenario snapshot fails as invalid',
      { ...run([]), spec: { ...run([]).spec, cascademodules: [] } },
      [],
      undefined,
      {
        phase: 'Failed',
        modules: '',
        reason: 'InvalidSpec',
        actions: 'Finish:Failed',
        verdict: 'observed',
        changed: true,
      },
    ],
  ] as Array<[string, CascadeRun, ObservedJob[], Fact | undefined, ReturnType<typeof summary>]>)(
    '%s',
    (_name, r, jobs, fact, expected) => {
      expect(summary(decide(input(r, jobs, fact ?? { kind: 'Observe' })))).toEqual(expected);
    },
  );
});

describe('decide: results and status text', () => {
  it('writes the Go controller line for each result and the final address on success', () => {
    const d = decide(input(run(ABC, running(2)), [job(ABC, 2, 'Active')], result('c', 'success')));
    expect(d.status.result).toEqual(['c: success\n']);
    expect(d.status.info).toBe(`${SETTINGS.outMinioAddress}${SETTINGS.scenarioName}/${IUID}/${IUID}-final.zip`);
    expect(d.status.modules?.[2]?.result).toBe('success');
  });

  it('writes Failed as info when the run fails', () => {
    const d = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'fail')));
    expect(d.status.info).toBe('Failed');
    expect(d.status.completionTime).toBe(NOW);
  });

  it('records a late result of a step that its Job already finished, once', () => {
    const after = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Succeeded')]));
    const late = decide(input(run(ABC, after.status), [job(ABC, 1, 'Active')], result('a', 'success')));
    expect(late.verdict).toBe('recorded');
    expect(late.status.result).toEqual(['a: success\n']);
    expect(late.actions).toEqual([]);
    const again = decide(input(run(ABC, late.status), [job(ABC, 1, 'Active')], result('a', 'success')));
    expect(again).toMatchObject({ verdict: 'duplicate', changed: false });
  });

  it('ignores a second terminal result for the same step', () => {
    const first = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'fail')));
    const second = decide(input(run(ABC, first.status), [job(ABC, 0, 'Active')], result('a', 'success')));
    expect(second).toMatchObject({ verdict: 'duplicate', changed: false });
    expect(second.status.phase).toBe('Failed');
  });

  it('applies a result to the running occurrence of a repeated module name', () => {
    const names = ['x', 'y', 'x'];
    const r = run(names);
    const started = decide(input(r, [])).status;
    for (const rec of started.modules ?? [])
      if (rec.step < 2) Object.assign(rec, { phase: 'Succeeded', result: 'success' });
    Object.assign(started.modules?.[2] ?? {}, { phase: 'Running' });
    const d = decide(input(run(names, started), [job(names, 2, 'Active')], result('x', 'success')));
    expect(d.verdict).toBe('applied');
    expect(d.status.phase).toBe('Succeeded');
  });
});

describe('decide: a Job the API server refused', () => {
  it('fails its step, and the result that moved the run on stays recorded with the step it ended', () => {
    const first = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'success')));
    expect(summary(first)).toMatchObject({ actions: 'CreateJob:1' });
    const again = decide({
      ...input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', 'success')),
      refused: { step: 1, message: 'bad template' },
    });
    expect(summary(again)).toEqual({
      phase: 'Failed',
      modules: 'Succeeded,Failed,Pending',
      reason: 'JobCreationFailed',
      actions: 'DeleteRunJobs:keep1 Finish:Failed',
      verdict: 'applied',
      changed: true,
    });
    expect(again.status.result).toEqual(['a: success\n']);
    expect(again.status.modules?.[1]?.message).toBe('the API server refused the Job: bad template');
  });

  it('fails the step whose Job a completed predecessor made due', () => {
    const d = decide({
      ...input(run(ABC, running(0)), [job(ABC, 0, 'Succeeded')]),
      refused: { step: 1, message: 'bad' },
    });
    expect(summary(d)).toMatchObject({
      phase: 'Failed',
      modules: 'Succeeded,Failed,Pending',
      reason: 'JobCreationFailed',
      actions: 'DeleteRunJobs:keep1 Finish:Failed',
    });
  });
});

describe('decide: informational results', () => {
  const active = [job(ABC, 0, 'Active')];

  it('records each new informational result, and a terminal result after them still ends the step', () => {
    const first = decide(input(run(ABC, running(0)), active, result('a', '50% done')));
    const second = decide(input(run(ABC, first.status), active, result('a', '75% done')));
    expect(summary(second)).toMatchObject({
      modules: 'Running,Pending,Pending',
      actions: '',
      verdict: 'applied',
      changed: true,
    });
    expect(second.status.result).toEqual(['a: 50% done\n', 'a: 75% done\n']);
    const done = decide(input(run(ABC, second.status), active, result('a', 'success')));
    expect(summary(done)).toMatchObject({
      modules: 'Succeeded,Running,Pending',
      actions: 'CreateJob:1',
      verdict: 'applied',
    });
    expect(done.status.result).toEqual(['a: 50% done\n', 'a: 75% done\n', 'a: success\n']);
  });

  it('records a result that reaches a step its Job finished after an informational one (a race lost by the result)', () => {
    const info = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active')], result('a', '50% done')));
    const finished = decide(input(run(ABC, info.status), [job(ABC, 0, 'Succeeded')]));
    const late = decide(input(run(ABC, finished.status), [job(ABC, 1, 'Active')], result('a', 'success')));
    expect(late).toMatchObject({ verdict: 'recorded', changed: true, actions: [] });
    expect(late.status.result).toEqual(['a: 50% done\n', 'a: success\n']);
    expect(late.status.modules?.[0]).toMatchObject({ phase: 'Succeeded', result: 'success' });
    expect(decide(input(run(ABC, late.status), [job(ABC, 1, 'Active')], result('a', 'success')))).toMatchObject({
      verdict: 'duplicate',
      changed: false,
    });
  });

  it('takes the same informational result delivered again as a duplicate', () => {
    const first = decide(input(run(ABC, running(0)), active, result('a', '50% done')));
    const again = decide(input(run(ABC, first.status), active, result('a', '50% done')));
    expect(again).toMatchObject({ verdict: 'duplicate', changed: false });
    expect(again.status.result).toEqual(['a: 50% done\n']);
  });
});
