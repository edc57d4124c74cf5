import { describe, expect, it } from 'vitest';
import { cascadeMetrics } from './metrics.ts';

describe('metrics with the Go controller names', () => {
  it('records a run and its modules under the Go names, labels and buckets', async () => {
    const m = cascadeMetrics('cao');
    m.transition(
      { kind: 'ModuleSucceeded', module: 'grayscale', message: '', durationSeconds: 3 },
      { ob: 'org', src: 'src' },
    );
    m.transition({ kind: 'RunFailed', message: '', durationSeconds: 42 }, { ob: 'org', src: 'src' });
    m.request('/run', 200, 0.01);
    m.setCurrent([{ ob: 'org', src: 'src' }, { ob: 'org', src: 'src' }, { ob: 'x' }]);
    const text = await m.registry.metrics();
    expect(text).toContain(
      'job_execution_time_seconds_bucket{le="5",scenarioName="cao",OName="org",SName="src",moduleName="grayscale",status="succeeded"} 1',
    );
    expect(text).toContain('failed_scenario_total{scenarioName="cao",OName="org",SName="src"} 1');
    expect(text).toContain(
      'scenarion_execution_time_seconds_bucket{le="60",scenarioName="cao",OName="org",SName="src"} 1',
    );
    expect(text).toContain(
      'scenarion_execution_time_seconds_bucket{le="20",scenarioName="cao",OName="org",SName="src"} 0',
    );
    expect(text).toContain('http_requests_total{path="/run"} 1');
    expect(text).toContain('response_status{status="200",path="/run"} 1');
    expect(text).toContain('scenario_current_runs{scenarioName="cao",OName="org",SName="src"} 2');
    expect(text).toContain('cascade_transitions_total{kind="RunFailed"} 1');
  });

  it('labels each run with its own scenario, and counts queued runs per scenario', async () => {
    const m = cascadeMetrics('cao');
    m.transition(
      { kind: 'RunSucceeded', message: '', durationSeconds: 1 },
      { ob: 'o', src: 's', scenarioname: 'other' },
    );
    m.setQueued([{ scenarioname: 'other' }, { scenarioname: 'other' }, { scenarioname: 'cao' }]);
    const text = await m.registry.metrics();
    expect(text).toContain('success_scenario_total{scenarioName="other",OName="o",SName="s"} 1');
    expect(text).toContain('cascade_queued_runs{scenario="other"} 2');
    expect(text).toContain('cascade_queued_runs{scenario="cao"} 1');
    m.setQueued([]);
    expect(await m.registry.metrics()).toContain('cascade_queued_runs{scenario="cao"} 0');
  });
});
