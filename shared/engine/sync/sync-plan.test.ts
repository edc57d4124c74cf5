import { describe, expect, it } from 'vitest';
import type { CascadeRun, CascadeRunStatus } from '../../api/cascade-run.ts';
import { decide } from '../../core/decide.ts';
import { ABC, running, T0 } from '../../core/testing/decisions.ts';
import { input, job, NOW, run, SETTINGS } from '../../core/testing/fixtures.ts';
import { ANNOTATION_CANCEL_REQUESTED_AT } from '../../names.ts';
import { jobsByRun } from './jobs-by-run.ts';
import { syncMove } from './sync-plan.ts';

const later = (seconds: number) => new Date(Date.parse(NOW) + seconds * 1000).toISOString();

/** A run as a decision on `jobs` leaves it, with its slot released and notified when `told`. */
function after(status: CascadeRunStatus, jobs: Parameters<typeof input>[1], told = true): CascadeRunStatus {
  const d = decide(input(run(ABC, status), jobs));
  return told ? { ...d.status, slotReleased: true, notified: true } : d.status;
}

function waitingRetry(at: string): CascadeRunStatus {
  const status = structuredClone(running(0));
  Object.assign(status.modules![0]!, { phase: 'Pending', attempt: 2, retryAt: at, startTime: undefined });
  return status;
}

describe('what the first sync does with each run it lists', () => {
  it.each([
    ['never started (a crash after its creation)', run(ABC), [], 'start'],
    ['queued: its operator says whether it holds a slot', run(ABC, { phase: 'Queued' }), [], 'admission'],
    [
      'its Job running, its uid not recorded yet: no write only to record it',
      run(ABC, running(0)),
      [job(ABC, 0, 'Active', { uid: 'u0' })],
      'none',
    ],
    ['its Job running, no uid to record', run(ABC, running(0)), [job(ABC, 0, 'Active')], 'none'],
    [
      'its Job complete, the next never made (no process served)',
      run(ABC, running(0)),
      [job(ABC, 0, 'Succeeded', { uid: 'u0' })],
      'look',
    ],
    ['its Job failed unseen', run(ABC, running(1)), [job(ABC, 1, 'Failed')], 'look'],
    ['its step started and its Job never made (a crash between the two)', run(ABC, running(1)), [], 'look'],
    ['a retry waiting for its backoff: a timer', run(ABC, waitingRetry(later(30))), [], 'wake'],
    ['a retry whose backoff is over', run(ABC, waitingRetry(later(-1))), [], 'look'],
    [
      'a cancel asked by annotation whose event was missed',
      {
        ...run(ABC, running(0)),
        metadata: { ...run(ABC).metadata, annotations: { [ANNOTATION_CANCEL_REQUESTED_AT]: T0 } },
      },
      [job(ABC, 0, 'Active')],
      'look',
    ],
    [
      'ended, its slot not released yet',
      run(ABC, after(running(2), [job(ABC, 2, 'Succeeded')], false)),
      [job(ABC, 2, 'Succeeded', { done: true })],
      'look',
    ],
    ['ended, released and told, its Jobs gone', run(ABC, after(running(2), [job(ABC, 2, 'Succeeded')])), [], 'none'],
    [
      'ended, released and told, a Job left to delete',
      run(ABC, after(running(2), [job(ABC, 2, 'Succeeded')])),
      [job(ABC, 2, 'Succeeded')],
      'look',
    ],
  ] as [string, CascadeRun, ReturnType<typeof job>[], string][])('%s: %s', (_name, r, jobs, expected) => {
    expect(syncMove(r, jobs, NOW, SETTINGS)).toBe(expected);
  });

  it('a run being deleted is left alone', () => {
    const r = run(ABC, running(0));
    const deleting = { ...r, metadata: { ...r.metadata, deletionTimestamp: NOW } };
    expect(syncMove(deleting, [job(ABC, 0, 'Succeeded')], NOW, SETTINGS)).toBe('none');
  });

  it('a run stalled past CASCADE_STALL_AFTER_SECONDS', () => {
    const stalled = { ...SETTINGS, stallAfterSeconds: 60 };
    expect(syncMove(run(ABC, running(0)), [job(ABC, 0, 'Active')], later(3600), stalled)).toBe('look');
  });
});

describe("the Jobs by run, as the function's watch shows them", () => {
  const jobObject = (name: string, uid: string, step: number, complete = false) => ({
    metadata: {
      name,
      uid,
      labels: { 'cascade.cascade.net/run': 'r1', 'cascade.cascade.net/step': String(step) },
    },
    status: complete ? { conditions: [{ type: 'Complete', status: 'True' }] } : {},
  });

  it('keeps each Job as last seen, and forgets it once deleted', () => {
    const jobs = jobsByRun();
    jobs.see('ADDED', jobObject('j0', 'u0', 0));
    jobs.see('MODIFIED', jobObject('j0', 'u0', 0, true));
    jobs.see('ADDED', jobObject('j1', 'u1', 1));
    expect(jobs.of('r1').map((j) => `${j.name} ${j.state}`)).toEqual(['j0 Succeeded', 'j1 Active']);
    jobs.see('DELETED', jobObject('j0', 'u0', 0, true));
    expect(jobs.of('r1').map((j) => j.name)).toEqual(['j1']);
    expect(jobs.of('other')).toEqual([]);
  });

  it("an older Job's deletion leaves the newer Job of the same name", () => {
    const jobs = jobsByRun();
    jobs.see('ADDED', jobObject('j0', 'new', 0));
    jobs.see('DELETED', jobObject('j0', 'old', 0));
    expect(jobs.of('r1').map((j) => j.uid)).toEqual(['new']);
  });
});
