import { describe, expect, it } from 'vitest';
import { transitionFloor, verdict, type LevelFigures } from './ceiling-verdict.ts';

const level = (senders: number, tps: number, fn: number, machine: number, apiserver429 = 0): LevelFigures => ({
  senders,
  transitionsPerSecond: tps,
  cores: { function: fn, 'kube-apiserver': 0.5 },
  machineBusyCores: machine,
  machineCores: 2,
  apiserver429,
});

describe('where the function saturates', () => {
  it('takes the level with the highest rate, and says the function when its thread is busy there', () => {
    const v = verdict([level(8, 100, 0.4, 1.2), level(32, 310, 0.95, 1.9), level(128, 290, 0.97, 2)]);
    expect(v).toMatchObject({ transitionsPerSecond: 310, atSenders: 32, limit: 'function' });
    expect(v?.evidence).toContain('function 0.95');
  });

  it("gives the function's CPU per transition and what one core to itself would carry", () => {
    const v = verdict([level(8, 100, 0.4, 1.2), level(32, 200, 0.5, 1.95)]);
    expect(v?.functionCpuMsPerTransition).toBeCloseTo(2.5);
    expect(v?.functionCeilingPerSecond).toBeCloseTo(340);
  });

  it('says the machine when every core is busy and the function is not', () => {
    expect(verdict([level(8, 50, 0.3, 1.95)])).toMatchObject({ limit: 'machine' });
  });

  it('says the API server when it answered 429s', () => {
    expect(verdict([level(8, 50, 0.3, 1.0, 12)])).toMatchObject({ limit: 'apiserver-inflight' });
  });

  it('says nothing is used up when no resource is', () => {
    expect(verdict([level(8, 50, 0.3, 1.0)])).toMatchObject({ limit: 'none' });
    expect(verdict([])).toBeUndefined();
  });
});

describe('the floor of a transition', () => {
  it("is the runtime's floor per request in, times the requests, plus the floor per API call out, times the calls, on the same share of a core", () => {
    const f = transitionFloor({
      runtimeUsPerRequest: 450,
      requestsPerTransition: 6,
      apiCallUs: 800,
      apiCallsPerTransition: 4,
    });
    expect(f.msPerTransition).toBeCloseTo(5.9);
    expect(f.perSecond).toBeCloseTo(850 / 5.9);
  });
});
