import { describe, expect, it } from 'vitest';
import type { Request } from './inputs.ts';
import { laneOf } from './lane.ts';

const run: Request = { kind: 'run', body: { turlinfo: 's3://in/x.tgz', iuid: 'i-1' } };
const target = { runname: 'cascadeautooperator-ip-i-1' };

describe('laneOf', () => {
  it('run and resume requests are new work: the token bucket admits them', () => {
    expect(laneOf(run)).toBe('new-work');
    expect(laneOf({ kind: 'resume', target, requestId: 'r-1' })).toBe('new-work');
  });

  it('a body that failed its checks stays behind the bucket', () => {
    expect(laneOf({ kind: 'invalid', reason: 'iuid: required field is missing' })).toBe('new-work');
  });

  it('progress of admitted runs never meets the bucket', () => {
    const progress: Request[] = [
      { kind: 'result', body: { runname: target.runname, modulename: 'm', moduleresult: 'success' } },
      { kind: 'job', runname: target.runname, job: 'j', change: 'update', observed: undefined },
      { kind: 'cancel', target },
      { kind: 'run-requests', runname: target.runname },
      { kind: 'run-start', runname: target.runname },
      { kind: 'ignored', reason: 'Job j is not Cascade’s' },
    ];
    expect(progress.map(laneOf)).toEqual(progress.map(() => 'progress'));
  });
});
