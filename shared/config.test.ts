import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.ts';

describe('configuration from the environment', () => {
  it('has the Go controller defaults', () => {
    expect(parseConfig({})).toEqual({ ok: true, value: expect.objectContaining({
      configPath: '/tmp/configuration', namespace: 'cascade-operator', scenarioName: 'cascadeautooperator-ip',
      outMinioAddress: 'http://example.com/test-out/', sink: undefined,
      rateLimitPerSecond: 100, rateBurst: 200, stallAfterSeconds: 0, runTimeoutSeconds: 0,
    }) });
  });

  it('reads the Go controller variables', () => {
    const r = parseConfig({ CONFIG_PATH: '/c.json', POD_NAMESPACE: 'ns', SCENARIO_NAME: 's', SID: 'prod', OUT_MINIO_ADDRESS: 'http://m/', K_SINK: 'http://broker' });
    expect(r).toMatchObject({ ok: true, value: { configPath: '/c.json', namespace: 'ns', scenarioName: 's', outMinioAddress: 'http://m/', sink: 'http://broker' } });
  });

  it.each([['CASCADE_RATE_LIMIT', 'fast'], ['CASCADE_STALL_AFTER_SECONDS', '-1'], ['CASCADE_METRICS_PORT', '1.5']])('rejects %s=%s with the reason', (key, value) => {
    const r = parseConfig({ [key]: value });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(key);
  });
});

describe('the janitor\'s retention', () => {
  it('keeps finished runs forever by default', () => {
    const c = parseConfig({});
    expect(c.ok && c.value.retentionSeconds).toBe(0);
  });

  it('reads CASCADE_RETENTION_SECONDS', () => {
    const c = parseConfig({ CASCADE_RETENTION_SECONDS: '86400' });
    expect(c.ok && c.value.retentionSeconds).toBe(86400);
  });

  it.each(['-1', '1.5', 'a day'])('rejects CASCADE_RETENTION_SECONDS=%s', (raw) => {
    expect(parseConfig({ CASCADE_RETENTION_SECONDS: raw })).toEqual({ ok: false, reason: `CASCADE_RETENTION_SECONDS must be a whole number of seconds, got "${raw}"` });
  });
});
