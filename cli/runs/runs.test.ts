import { describe, expect, it } from 'vitest';
import { palette } from '../format/colour.ts';
import { EXIT_ERROR, exitCodeOf } from './exit-code.ts';
import { goneReason, jobsOfStep, prefixLines, splitChunk } from './log-lines.ts';
import type { RunObject } from './run-object.ts';
import { changeLines, redrawPrefix, screenLines, type Shown } from './screen.ts';
import { moduleRows, runRow, selectRuns, stepOf } from './view.ts';
import { attemptRows } from './attempts.ts';

const off = palette(false);
const T0 = Date.parse('2026-11-30T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString().replace('.000', '');

function run(name: string, created: number, status: RunObject['status'] = undefined): RunObject {
  return {
    metadata: { name, namespace: 'ns', creationTimestamp: at(created) },
    spec: { pid: `iuid-${name}`, scenarioname: 'demo', modules: ['a', 'bb', 'c'] },
    ...(status ? { status } : {}),
  };
}

const pending = (step: number, name: string) => ({ step, name, jobName: `job-${name}`, phase: 'Pending' });
const queued = run('q', 0, {
  phase: 'Queued',
  conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'Queued' }],
  modules: [pending(0, 'a'), pending(1, 'bb'), pending(2, 'c')],
});

const running = run('r1', 0, {
  phase: 'Running',
  currentStep: 1,
  currentModule: 'bb',
  startTime: at(1),
  conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'Running' }],
  modules: [
    { step: 0, name: 'a', jobName: 'job-a', phase: 'Succeeded', startTime: at(1), completionTime: at(3), result: 'ok' },
    { step: 1, name: 'bb', jobName: 'job-bb', phase: 'Running', startTime: at(3) },
  ],
});

describe('exit status', () => {
  it("0 when the run succeeded, 2 failed, 3 cancelled (1 is the CLI's own error); none while it goes on", () => {
    expect([exitCodeOf('Succeeded'), exitCodeOf('Failed'), exitCodeOf('Cancelled')]).toEqual([0, 2, 3]);
    expect([exitCodeOf('Running'), exitCodeOf('Queued'), exitCodeOf(undefined)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(EXIT_ERROR).toBe(1);
  });
});

describe('list and get rows', () => {
  it('newest first, then by name; --phase matches whatever its case', () => {
    const runs = [run('old', 0), run('b-new', 10), run('a-new', 10, { phase: 'Failed' })];
    expect(selectRuns(runs).map((r) => r.metadata.name)).toEqual(['a-new', 'b-new', 'old']);
    expect(selectRuns(runs, { phase: 'failed' }).map((r) => r.metadata.name)).toEqual(['a-new']);
    expect(selectRuns(runs, { phase: 'Pending' }).map((r) => r.metadata.name)).toEqual(['b-new', 'old']);
  });

  it('sorts by start time (creation for a run not started); --since keeps the recent ones, --limit the newest N', () => {
    const runs = [
      run('created-first-started-last', 0, { phase: 'Running', startTime: at(50) }),
      run('queued', 40, { phase: 'Queued' }),
      run('started-first', 5, { phase: 'Succeeded', startTime: at(6) }),
    ];
    const names = (rs: RunObject[]) => rs.map((r) => r.metadata.name);
    expect(names(selectRuns(runs))).toEqual(['created-first-started-last', 'queued', 'started-first']);
    const now = new Date(at(60)).getTime();
    expect(names(selectRuns(runs, { sinceMs: 30_000, now }))).toEqual(['created-first-started-last', 'queued']);
    expect(names(selectRuns(runs, { limit: 1 }))).toEqual(['created-first-started-last']);
    expect(names(selectRuns(runs, { phase: 'succeeded', limit: 5 }))).toEqual(['started-first']);
  });

  it('the step is the one being run of all, counted from 1; none before the first starts', () => {
    expect(stepOf(running)).toBe('2/3');
    expect(stepOf(run('new', 0))).toBeUndefined();
    expect(stepOf(queued)).toBeUndefined();
  });

  it('a Queued run, every step listed Pending but none started, shows no step, no Job and Waiting steps', () => {
    expect(runRow(queued, T0 + 5000, off)).toEqual(['q', 'demo', 'Queued', '-', '5s', '-']);
    expect(moduleRows(queued, T0, off).map((r) => r.slice(0, 4).concat(r[8]!))).toEqual([
      ['1', 'a', '-', 'Waiting', '0'],
      ['2', 'bb', '-', 'Waiting', '0'],
      ['3', 'c', '-', 'Waiting', '0'],
    ]);
    expect(screenLines(queued, T0, off).slice(1)).toEqual(['  · a   Waiting', '  · bb  Waiting', '  · c   Waiting']);
    expect(changeLines(queued, new Map(), T0)).toEqual(['run q Queued']);
  });

  it('a run row: name, scenario, phase, step, age, duration; wide adds iuid, module, reason', () => {
    expect(runRow(running, T0 + 10_000, off)).toEqual(['r1', 'demo', 'Running', '2/3', '10s', '9.0s']);
    expect(runRow(running, T0 + 10_000, off, true).slice(6)).toEqual(['iuid-r1', 'bb', 'Running']);
    expect(runRow(run('new', 0), T0, off)).toEqual(['new', 'demo', 'Pending', '-', '0s', '-']);
  });

  it('one row per module of the scenario, those not reached yet Waiting', () => {
    expect(moduleRows(running, T0 + 10_000, off)).toEqual([
      ['1', 'a', 'job-a', 'Succeeded', '9s ago', '2.0s', 'ok', '', '1'],
      ['2', 'bb', 'job-bb', 'Running', '7s ago', '7.0s', '', '', '1'],
      ['3', 'c', '-', 'Waiting', '-', '-', '', '', '0'],
    ]);
  });

  it('attempts: the current attempt when the run records one, else earlier attempts + 1', () => {
    const retried = run('r2', 0, {
      modules: [
        { step: 0, name: 'a', jobName: 'job-a-a3', phase: 'Running', attempt: 3 },
        {
          step: 1,
          name: 'bb',
          jobName: 'job-bb',
          phase: 'Failed',
          attempts: [{ attempt: 1, jobName: 'job-bb', phase: 'Failed' }],
        },
      ],
    });
    expect(moduleRows(retried, T0, off).map((r) => r[8])).toEqual(['3', '2', '0']);
  });
});

describe('watch screen', () => {
  it("the run's line, then one line per module with its state and elapsed time", () => {
    expect(screenLines(running, T0 + 10_000, off)).toEqual([
      'r1  Running  9.0s',
      '  ✓ a   Succeeded     2.0s  ok',
      '  ▶ bb  Running       7.0s',
      '  · c   Waiting',
    ]);
  });

  it('plain lines say only what changed since the last ones', () => {
    const shown: Shown = new Map();
    expect(changeLines(running, shown, T0 + 10_000)).toEqual([
      'a Succeeded in 2.0s (ok)',
      'bb Running',
      'run r1 Running',
    ]);
    expect(changeLines(running, shown, T0 + 11_000)).toEqual([]);
    const done = {
      ...running,
      status: {
        ...running.status!,
        phase: 'Failed',
        completionTime: at(8),
        modules: [
          running.status!.modules![0]!,
          { ...running.status!.modules![1]!, phase: 'Failed', completionTime: at(8), reason: 'BackoffLimitExceeded' },
        ],
      },
    };
    expect(changeLines(done, shown, T0 + 12_000)).toEqual([
      'bb Failed in 5.0s (BackoffLimitExceeded)',
      'run r1 Failed in 7.0s',
    ]);
  });

  it('a redraw moves up over the lines drawn and clears them', () => {
    expect(redrawPrefix(0)).toBe('');
    expect(redrawPrefix(4)).toBe('\x1b[4A\r\x1b[J');
  });
});

describe('log lines', () => {
  it('each line prefixed with its module, the last newline not making an empty line', () => {
    expect(prefixLines('grayscale', 'one\ntwo\n', off)).toEqual(['[grayscale] one', '[grayscale] two']);
    expect(prefixLines('m', '', off)).toEqual([]);
  });

  it('a followed stream keeps a partial line until its end arrives', () => {
    const first = splitChunk('', 'a\nb');
    expect(first).toEqual({ lines: ['a'], carry: 'b' });
    expect(splitChunk(first.carry, 'c\n')).toEqual({ lines: ['bc'], carry: '' });
  });
});

describe('logs of Jobs that are gone', () => {
  const resumed = {
    step: 1,
    name: 'fail',
    jobName: 'job-fail-a2',
    phase: 'Failed',
    attempt: 2,
    startTime: at(5),
    attempts: [{ attempt: 1, jobName: 'job-fail', phase: 'Failed' }],
  };

  it("lists the step's Jobs, earlier attempts first", () => {
    expect(jobsOfStep(resumed)).toEqual([
      { jobName: 'job-fail', attempt: 1, phase: 'Failed', earlier: true },
      { jobName: 'job-fail-a2', attempt: 2, phase: 'Failed', earlier: false },
    ]);
  });

  it("says why each is gone: the run's end, else what the step or attempt was", () => {
    const [first, current] = jobsOfStep(resumed);
    const ended = (phase: string) =>
      `the run ended ${phase}: Cascade deletes a run's Jobs, and their pods, when it ends`;
    expect(goneReason(first!, 'Failed')).toBe(ended('Failed'));
    expect(goneReason({ ...current!, phase: 'Succeeded' }, 'Succeeded')).toBe(ended('Succeeded'));
    expect(goneReason(current!, 'Cancelled')).toBe(ended('Cancelled'));
    // a failed run keeps its failed step's Job: its pod went some other way
    expect(goneReason(current!, 'Failed')).toBe('the step is Failed, and its Job has no pod now');
    expect(goneReason(first!, 'Running')).toBe('attempt 1 ended Failed, and its Job has no pod now');
    expect(goneReason({ ...current!, phase: 'Succeeded' }, 'Running')).toBe(
      'the step is Succeeded, and its Job has no pod now',
    );
  });
});

describe('watch screen in colour', () => {
  it('has no trailing blanks, even inside a colour (a terminal would keep them)', () => {
    const on = palette(true);
    const lines = screenLines({ ...running, status: { ...running.status!, startTime: undefined } }, T0 + 10_000, on);
    const plain = lines.map((l) => l.replaceAll(/\x1b\[[0-9;]*m/g, ''));
    expect(plain).toEqual([
      'r1  Running',
      '  ✓ a   Succeeded     2.0s  ok',
      '  ▶ bb  Running       7.0s',
      '  · c   Waiting',
    ]);
    for (const line of lines) expect(line).not.toMatch(/ (\x1b\[[0-9;]*m)*$/);
  });
});

describe("get's attempts", () => {
  it('lists each attempt of a retried or resumed step, oldest first, with its trigger, reason and retry time', () => {
    const r = run('r3', 0, {
      phase: 'Running',
      modules: [
        { step: 0, name: 'a', jobName: 'job-a', phase: 'Succeeded', startTime: at(0), completionTime: at(1) },
        {
          step: 1,
          name: 'bb',
          jobName: 'job-bb-a3',
          phase: 'Pending',
          attempt: 3,
          trigger: 'Retry',
          retryAt: at(30),
          attempts: [
            {
              attempt: 1,
              jobName: 'job-bb',
              phase: 'Failed',
              trigger: 'Initial',
              startTime: at(1),
              completionTime: at(3),
              reason: 'ModuleResultFailed',
            },
            {
              attempt: 2,
              jobName: 'job-bb-a2',
              phase: 'Failed',
              trigger: 'Resume',
              startTime: at(10),
              completionTime: at(12),
              reason: 'JobFailed',
            },
          ],
        },
      ],
    });
    expect(attemptRows(r, new Date(at(20)).getTime(), off)).toEqual([
      ['2', 'bb', '1', 'Initial', 'job-bb', 'Failed', '19s ago', '2.0s', '-', 'ModuleResultFailed'],
      ['2', 'bb', '2', 'Resume', 'job-bb-a2', 'Failed', '10s ago', '2.0s', '-', 'JobFailed'],
      ['2', 'bb', '3', 'Retry', '-', 'Pending', '-', '-', at(30), ''],
    ]);
    expect(attemptRows(run('plain', 0, { phase: 'Running', modules: [r.status!.modules![0]!] }), 0, off)).toEqual([]);
  });
});
