import { describe, expect, it } from 'vitest';
import { withoutLeases } from './function-requests.ts';

describe("the function's requests", () => {
  it('leave out those on Leases, from the counts too', () => {
    const requests = {
      reads: 3,
      writes: 3,
      events: 1,
      byVerb: { 'leases get': 1, 'leases update': 2, 'cascaderuns get': 2, 'jobs create': 1, 'events create': 1 },
    };
    expect(withoutLeases(requests)).toEqual({
      reads: 2,
      writes: 1,
      events: 1,
      byVerb: { 'cascaderuns get': 2, 'jobs create': 1, 'events create': 1 },
    });
    expect(requests.byVerb['leases get']).toBe(1);
  });
});
