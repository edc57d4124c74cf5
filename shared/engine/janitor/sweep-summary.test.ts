import { describe, expect, it } from 'vitest';
import type { Decision, Transition } from '../../core/types.ts';
import { emptySummary, exitCode, tally } from './sweep-summary.ts';

function decision(transitions: Transition[], finish = false): Decision {
  return {
    status: {},
    changed: true,
    verdict: 'observed',
    transitions,
    ignoredJobs: [],
    actions: finish ? [{ type: 'FinishRun', phase: 'Failed', eventOwed: false }] : [],
  };
}

describe('tally', () => {
  it('counts a run moved forward, a run failed by reason, and ends finished', () => {
    const s = emptySummary();
    tally(
      s,
      decision([
        { kind: 'ModuleSucceeded', message: '' },
        { kind: 'ModuleStarted', message: '' },
      ]),
    );
    tally(
      s,
      decision(
        [
          { kind: 'ModuleFailed', reason: 'JobMissing', message: '' },
          { kind: 'RunFailed', reason: 'JobMissing', message: '' },
        ],
        true,
      ),
    );
    tally(s, decision([{ kind: 'RunFailed', reason: 'Stalled', message: '' }], true));
    tally(s, decision([{ kind: 'RunFailed', reason: 'Stalled', message: '' }], true));
    tally(s, decision([{ kind: 'RunSucceeded', message: '' }], true));
    tally(s, decision([]));
    expect(s).toMatchObject({ advanced: 2, failed: { JobMissing: 1, Stalled: 2 }, finished: 4 });
  });

  it('an ended run only notified now counts as finished, not advanced', () => {
    const s = emptySummary();
    tally(s, decision([], true));
    expect(s).toMatchObject({ advanced: 0, failed: {}, finished: 1, eventsOwed: 0 });
  });

  it('counts the run-end events owed, whether the end is finished now or was before', () => {
    const s = emptySummary();
    const send = { type: 'SendRunEndEvent', phase: 'Failed' } as const;
    tally(s, { ...decision([]), actions: [{ type: 'FinishRun', phase: 'Failed', eventOwed: true }, send] });
    tally(s, { ...decision([]), actions: [send] });
    expect(s).toMatchObject({ finished: 1, eventsOwed: 2 });
  });
});

describe('exit code', () => {
  it.each([
    ['a clean sweep', {}, 0],
    ['an empty namespace', { runsHandled: 0, runErrors: 0 }, 0],
    ['some runs failed to be handled', { runsHandled: 10, runErrors: 5, errors: 5 }, 0],
    ['more than half of the runs failed', { runsHandled: 10, runErrors: 6, errors: 6 }, 1],
    ['an orphan not deleted', { errors: 1 }, 0],
    ['runs could not be listed', { aborted: 'cannot list runs or Jobs: forbidden', errors: 1 }, 1],
  ])('%s → %i', (_n, fields, code) => {
    expect(exitCode({ ...emptySummary(), ...fields })).toBe(code);
  });
});
