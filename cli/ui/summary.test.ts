import { describe, expect, it } from 'vitest';
import { runsHolding } from './summary.ts';

describe('runsHolding', () => {
  it("names each run holding a slot once, a resumed run's slot by its run", () => {
    expect(runsHolding(['a', 'b/r1', 'c/r2', 'b'])).toEqual(['a', 'b', 'c']);
    expect(runsHolding([])).toEqual([]);
  });
});
