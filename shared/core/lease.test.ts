import { describe, expect, it } from 'vitest';
import { expired, heldSpec, leaseStep, microTime, releasedSpec } from './lease.ts';

const at = new Date('2026-12-04T10:00:00.000Z');
const later = (s: number) => new Date(at.getTime() + s * 1000);

describe('the counters Lease', () => {
  it('is made when there is none, renewed by its holder, left to another holder while it renews', () => {
    expect(leaseStep(undefined, 'me', at)).toBe('create');
    const mine = heldSpec(undefined, 'me', at, 15);
    expect(leaseStep(mine, 'me', later(5))).toBe('renew');
    expect(leaseStep(mine, 'other', later(5))).toBe('wait');
  });

  it("is taken over once its holder's renewal is past the duration, or when given up", () => {
    const theirs = heldSpec(undefined, 'other', at, 15);
    expect(expired(theirs, later(15))).toBe(false);
    expect(leaseStep(theirs, 'me', later(16))).toBe('take');
    expect(leaseStep(releasedSpec(theirs, later(1)), 'me', later(1))).toBe('take');
  });

  it('counts its transitions, and keeps the acquire time while renewed', () => {
    const first = heldSpec(undefined, 'a', at, 15);
    const renewed = heldSpec(first, 'a', later(5), 15);
    expect(renewed.acquireTime).toBe(first.acquireTime);
    expect(renewed.renewTime).toBe(microTime(later(5)));
    expect(heldSpec(renewed, 'b', later(30), 15).leaseTransitions).toBe(1);
  });

  it('writes MicroTime with six fraction digits', () => {
    expect(microTime(new Date('2026-12-04T10:00:00.123Z'))).toBe('2026-12-04T10:00:00.123000Z');
  });
});
