import { describe, expect, it } from 'vitest';
import type { RunObject } from '../runs/run-object.ts';
import { moduleDurations, runsPerHour } from './stats.ts';

const NOW = Date.parse('2026-01-02T12:30:00Z');
const ended = (phase: string, completionTime: string): RunObject => ({
  metadata: {},
  status: { phase, completionTime },
});

describe('runsPerHour', () => {
  it('counts the runs that ended in each of the last 24 hours, by outcome; older and running runs not', () => {
    const hours = runsPerHour(
      [
        ended('Succeeded', '2026-01-02T12:10:00Z'),
        ended('Failed', '2026-01-02T12:20:00Z'),
        ended('Cancelled', '2026-01-02T11:59:59Z'),
        ended('Succeeded', '2026-01-01T12:59:59Z'),
        ended('Succeeded', '2026-01-01T13:00:00Z'),
        { metadata: {}, status: { phase: 'Running' } },
      ],
      NOW,
    );
    expect(hours).toHaveLength(24);
    expect(hours[23]).toEqual({ hour: '2026-01-02T12:00:00.000Z', Succeeded: 1, Failed: 1, Cancelled: 0 });
    expect(hours[22]).toMatchObject({ Cancelled: 1 });
    expect(hours[0]).toEqual({ hour: '2026-01-01T13:00:00.000Z', Succeeded: 1, Failed: 0, Cancelled: 0 });
    expect(hours.reduce((n, h) => n + h.Succeeded + h.Failed + h.Cancelled, 0)).toBe(4);
  });
});

describe('moduleDurations', () => {
  it("each module's finished attempts, shortest first, in the scenario's order", () => {
    const run: RunObject = {
      metadata: {},
      status: {
        modules: [
          {
            step: 0,
            name: 'b',
            jobName: 'j',
            phase: 'Succeeded',
            startTime: '2026-01-01T00:00:10Z',
            completionTime: '2026-01-01T00:00:13Z',
            attempts: [
              {
                attempt: 1,
                jobName: 'j-1',
                phase: 'Failed',
                startTime: '2026-01-01T00:00:00Z',
                completionTime: '2026-01-01T00:00:01Z',
              },
            ],
          },
          { step: 1, name: 'a', jobName: 'k', phase: 'Running', startTime: '2026-01-01T00:00:14Z' },
        ],
      },
    };
    expect(moduleDurations([run], ['a', 'b'])).toEqual([
      { module: 'a', durations: [] },
      { module: 'b', durations: [1000, 3000] },
    ]);
  });
});
