import { describe, expect, it } from 'vitest';
import type { CascadeRun, RunPhase } from '../../api/cascade-run.ts';
import type { Config } from '../../config.ts';
import { runIndex } from './counts-writer.ts';

const deps = { config: { scenarioName: 'default' } as Config };
const run = (name: string, rv: string, phase?: RunPhase, scenario?: string): CascadeRun =>
  ({
    metadata: { name, resourceVersion: rv },
    spec: { scenarioname: scenario },
    status: phase ? { phase } : undefined,
  }) as unknown as CascadeRun;
const phases = (index: ReturnType<typeof runIndex>, scenario = 'default') =>
  [...index.of(scenario)].map((s) => `${s.name}:${s.phase ?? '-'}`).sort();

describe('the runs index of the counters writer', () => {
  it('keeps the latest copy of each run, and says which scenario a change may move', () => {
    const index = runIndex(deps);
    expect(index.put(run('a', '10', 'Running'), false)).toBe('default');
    expect(index.put(run('a', '9', 'Pending'), false), 'an older copy changes nothing').toBeUndefined();
    expect(index.put(run('a', '11', 'Running'), false), 'the same phase moves no counter').toBeUndefined();
    expect(index.put(run('b', '12', undefined, 'other'), false)).toBe('other');
    expect(phases(index)).toEqual(['a:Running']);
    expect(phases(index, 'other')).toEqual(['b:-']);
  });

  it('drops a run deleted, and takes a list in place of everything', () => {
    const index = runIndex(deps);
    index.put(run('a', '10', 'Running'), false);
    expect(index.put(run('a', '10', 'Running'), true)).toBe('default');
    expect(phases(index)).toEqual([]);
    index.put(run('x', '5', 'Failed'), false);
    index.reset([run('y', '20', 'Succeeded'), run('z', '21', 'Queued')]);
    expect(phases(index)).toEqual(['y:Succeeded', 'z:Queued']);
  });
});
