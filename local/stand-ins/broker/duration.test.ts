import { describe, expect, it } from 'vitest';
import { durationMs } from './duration.ts';

describe('durationMs', () => {
  it.each([
    ['PT0.5S', 500],
    ['PT1S', 1000],
    ['PT0.2S', 200],
    ['PT30S', 30_000],
    ['PT1M', 60_000],
    ['PT1H1M1.5S', 3_661_500],
    ['P1D', 86_400_000],
    ['P1DT1S', 86_401_000],
    ['P1W', 604_800_000],
    ['PT0,25S', 250],
  ])('%s is %i ms', (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });

  it.each(['', 'P', 'PT', '1S', 'PT1', 'P1Y', 'P1M', 'PT-1S', 'pt1s', 'PT1S '])('%j is refused', (text) => {
    expect(() => durationMs(text)).toThrow(/not an ISO 8601 duration/);
  });
});
