import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.ts';

describe('configuration from the environment', () => {
  it('has the Go controller defaults', () => {
    expect(parseConfig({})).toEqual({ ok: true, value: expect.objectContaining({
      configPath: '/tmp/configuration', namespace: 'cascade-operator', scenarioName: 'cascadeautooperator-ip',
      sid: 'UnderTest', outMinioAddress: 'http://example.com/test-out/', sink: undefined,
      rateLimitPerSecond: 100, rateBurst: 200, stallAfterSeconds: 0, runTimeoutSeconds: 0,
    }) });
  });

  it('reads the Go controller variables', () => {
    const r = parseConfig({ CONFIG_PATH: '/c.json', POD_NAMESPACE: 'ns', SCENARIO_NAME: 's', SID: 'prod', OUT_MINIO_ADDRESS: 'http://m/', K_SINK: 'http://broker' });
    expect(r).toMatchObject({ ok: true, value: { configPath: '/c.json', namespace: 'ns', scenarioName: 's', sid: 'prod', outMinioAddress: 'http://m/', sink: 'http://broker' } });
  });

  it.each([['CASCADE_RATE_LIMIT', 'fast'], ['CASCADE_STALL_AFTER_SECONDS', '-1'], ['CASCADE_METRICS_PORT', '1.5']])('rejects %s=%s with the reason', (key, value) => {
    const r = parseConfig({ [key]: value });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(key);
  });
});
