import { describe, expect, it } from 'vitest';
import type { CascadeRunStatus } from './run-status.ts';
import { resumeSlotTaken, setResumeSlotTaken, setSlotReleased, slotReleased, withBothNames } from './slot-marks.ts';

describe("a run's slot marks under their two names", () => {
  it.each<[string, CascadeRunStatus, boolean]>([
    ['neither name', {}, false],
    ['the new name only: a later release', { slotReleased: true }, true],
    ['the old name only: an older release', { counted: true }, true],
    ['an older replica resumed the run since: its old name wins', { counted: false, slotReleased: true }, false],
    ['both written by this release', { counted: true, slotReleased: true }, true],
  ])('slotReleased, %s', (_what, status, expected) => {
    expect(slotReleased(status)).toBe(expected);
  });

  it.each<[string, CascadeRunStatus, number]>([
    ['neither name', {}, 0],
    ['the new name only', { resumeSlotTaken: 2 }, 2],
    ['the old name only', { resumeCounted: 1 }, 1],
    ['an older replica gave a later resume its slot', { resumeCounted: 3, resumeSlotTaken: 2 }, 3],
  ])('resumeSlotTaken, %s', (_what, status, expected) => {
    expect(resumeSlotTaken(status)).toBe(expected);
  });

  it('are written under both names, so that an older replica reads them', () => {
    const status: CascadeRunStatus = {};
    setSlotReleased(status, true);
    setResumeSlotTaken(status, 2);
    expect(status).toEqual({ slotReleased: true, counted: true, resumeSlotTaken: 2, resumeCounted: 2 });
  });

  it.each<[string, CascadeRunStatus, CascadeRunStatus]>([
    ['neither name: none added', { notified: true }, { notified: true }],
    [
      'the old names, as an older replica left them',
      { counted: true, resumeCounted: 2 },
      { counted: true, slotReleased: true, resumeCounted: 2, resumeSlotTaken: 2 },
    ],
    [
      'the new names lagging the old',
      { counted: false, slotReleased: true, resumeCounted: 2, resumeSlotTaken: 1 },
      { counted: false, slotReleased: false, resumeCounted: 2, resumeSlotTaken: 2 },
    ],
  ])('a write carries both names, equal, as read: %s', (_what, status, expected) => {
    expect(withBothNames(status)).toEqual(expected);
  });
});
