import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIN_TOKEN_LENGTH, parseConfig, SERVICE_ACCOUNT_NAMESPACE_FILE, serviceAccountNamespace } from './config.ts';

const dir = mkdtempSync(join(tmpdir(), 'cascade-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A ServiceAccount namespace file holding `content`. */
function namespaceFile(content: string): string {
  const path = join(dir, `namespace-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, content);
  return path;
}
/** Not in a pod: no namespace file. */
const noPod = { namespaceFile: join(dir, 'absent') };

describe('configuration from the environment', () => {
  it('has the Go controller defaults', () => {
    expect(parseConfig({}, noPod)).toEqual({
      ok: true,
      value: expect.objectContaining({
        configPath: '/tmp/configuration',
        namespace: 'cascade-operator',
        scenarioName: 'cascadeautooperator-ip',
        outMinioAddress: 'http://example.com/test-out/',
        sink: undefined,
        rateLimitPerSecond: 100,
        rateBurst: 200,
        listPageSize: 500,
      }),
    });
  });

  it('reads CASCADE_SCENARIOS, the scenarios a run request may name: a list, or any when unset or empty', () => {
    expect(parseConfig({ CASCADE_SCENARIOS: ' a, b ,,c' }, noPod)).toMatchObject({
      ok: true,
      value: { scenarios: ['a', 'b', 'c'] },
    });
    expect(parseConfig({ CASCADE_SCENARIOS: '' }, noPod)).toMatchObject({ ok: true, value: { scenarios: undefined } });
    expect(parseConfig({}, noPod)).toMatchObject({ ok: true, value: { scenarios: undefined } });
  });

  it('reads the Go controller variables', () => {
    const r = parseConfig({
      CONFIG_PATH: '/c.json',
      POD_NAMESPACE: 'ns',
      SCENARIO_NAME: 's',
      SID: 'prod',
      OUT_MINIO_ADDRESS: 'http://m/',
      K_SINK: 'http://broker',
    });
    expect(r).toMatchObject({
      ok: true,
      value: {
        configPath: '/c.json',
        namespace: 'ns',
        scenarioName: 's',
        outMinioAddress: 'http://m/',
        sink: 'http://broker',
      },
    });
  });

  it('confirms Job events from the API server unless CASCADE_TRUST_JOB_EVENTS is true', () => {
    expect(parseConfig({}, noPod)).toMatchObject({ ok: true, value: { trustJobEvents: false } });
    expect(parseConfig({ CASCADE_TRUST_JOB_EVENTS: 'false' }, noPod)).toMatchObject({
      ok: true,
      value: { trustJobEvents: false },
    });
    expect(parseConfig({ CASCADE_TRUST_JOB_EVENTS: 'true' }, noPod)).toMatchObject({
      ok: true,
      value: { trustJobEvents: true },
    });
    expect(parseConfig({ CASCADE_TRUST_JOB_EVENTS: 'yes' }, noPod)).toEqual({
      ok: false,
      reason: 'CASCADE_TRUST_JOB_EVENTS must be true or false, got "yes"',
    });
  });

  it('reads what SinkBinding injects with TLS and OIDC on: K_CA_CERTS, and the token under /oidc unless CASCADE_OIDC_TOKEN_FILE says where', () => {
    expect(parseConfig({}, noPod)).toMatchObject({
      ok: true,
      value: { sinkCaCerts: undefined, oidcTokenFile: '/oidc/token', warnings: [] },
    });
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(parseConfig({ K_CA_CERTS: pem, CASCADE_OIDC_TOKEN_FILE: '/t/token' }, noPod)).toMatchObject({
      ok: true,
      value: { sinkCaCerts: pem, oidcTokenFile: '/t/token' },
    });
  });

  it('gives module Jobs its K_SINK itself unless an OIDC token or trust bundles are mounted, or CASCADE_MODULE_SINK is binding', () => {
    const bundles = mkdtempSync(join(dir, 'bundles-'));
    const none = { ...noPod, trustBundleDir: join(dir, 'no-bundles') };
    const sink = { K_SINK: 'http://broker', K_CA_CERTS: 'PEM', CASCADE_OIDC_TOKEN_FILE: join(dir, 'no-token') };
    expect(parseConfig(sink, none)).toMatchObject({ value: { moduleSink: { url: 'http://broker', caCerts: 'PEM' } } });
    expect(parseConfig({}, none)).toMatchObject({ value: { moduleSink: undefined } });
    const token = namespaceFile('a-token');
    expect(parseConfig({ ...sink, CASCADE_OIDC_TOKEN_FILE: token }, none)).toMatchObject({
      value: { moduleSink: undefined },
    });
    expect(parseConfig(sink, { ...noPod, trustBundleDir: bundles })).toMatchObject({
      value: { moduleSink: { url: 'http://broker' } },
    });
    expect(parseConfig({ ...sink, CASCADE_MODULE_SINK: 'binding' }, none)).toMatchObject({
      value: { moduleSink: undefined },
    });
    expect(parseConfig({ ...sink, CASCADE_MODULE_SINK: 'function' }, none)).toMatchObject({
      value: { moduleSink: { url: 'http://broker' } },
    });
    expect(parseConfig({ CASCADE_MODULE_SINK: 'webhook' }, none)).toEqual({
      ok: false,
      reason: 'CASCADE_MODULE_SINK must be function or binding, got "webhook"',
    });
    writeFileSync(join(bundles, 'ca.pem'), 'PEM');
    expect(parseConfig(sink, { ...noPod, trustBundleDir: bundles })).toMatchObject({
      value: { moduleSink: undefined, trustBundleDir: bundles },
    });
  });

  it('starts on K_CE_OVERRIDES Knative accepted, with what it changed as warnings', () => {
    expect(parseConfig({ K_CE_OVERRIDES: '{"extensions":{"Team":"a","id":"b"}}' }, noPod)).toMatchObject({
      ok: true,
      value: {
        ceExtensions: { team: 'a' },
        warnings: [
          expect.stringContaining('"Team" is sent as "team"'),
          expect.stringContaining('"id" is a CloudEvents attribute'),
        ],
      },
    });
  });

  it("reads the janitor's page size", () => {
    expect(parseConfig({ CASCADE_LIST_PAGE_SIZE: '2' })).toMatchObject({ ok: true, value: { listPageSize: 2 } });
  });

  it.each([
    ['CASCADE_RATE_LIMIT', 'fast'],
    ['CASCADE_STALL_AFTER_SECONDS', '-1'],
    ['CASCADE_METRICS_PORT', '1.5'],
    ['CASCADE_LIST_PAGE_SIZE', '0'],
  ])('rejects %s=%s with the reason', (key, value) => {
    const r = parseConfig({ [key]: value });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(key);
  });
});

describe('the namespace', () => {
  it("is read from the pod's ServiceAccount when POD_NAMESPACE is unset (no downward API needed)", () => {
    const c = parseConfig({}, { namespaceFile: namespaceFile('team-a') });
    expect(c.ok && c.value.namespace).toBe('team-a');
  });

  it('ignores the line break or spaces around it', () => {
    const c = parseConfig({ POD_NAMESPACE: '' }, { namespaceFile: namespaceFile('team-b\n') });
    expect(c.ok && c.value.namespace).toBe('team-b');
  });

  it('is POD_NAMESPACE when set, whatever the ServiceAccount says', () => {
    const c = parseConfig({ POD_NAMESPACE: 'ns' }, { namespaceFile: namespaceFile('team-a') });
    expect(c.ok && c.value.namespace).toBe('ns');
  });

  it.each([
    ['no file', join(dir, 'absent')],
    ['an empty file', namespaceFile('')],
    ['a directory', dir],
  ])('is cascade-operator with %s and no POD_NAMESPACE', (_what, path) => {
    const c = parseConfig({}, { namespaceFile: path });
    expect(c.ok && c.value.namespace).toBe('cascade-operator');
  });

  it('is looked for where the kubelet mounts the ServiceAccount', () => {
    expect(SERVICE_ACCOUNT_NAMESPACE_FILE).toBe('/var/run/secrets/kubernetes.io/serviceaccount/namespace');
    expect(serviceAccountNamespace(namespaceFile(' x '))).toBe('x');
  });
});

describe('bounded state: stall, run timeout and retention', () => {
  it('are on by default: an hour without progress, a day per run, a week after the end', () => {
    expect(parseConfig({}, noPod)).toMatchObject({
      ok: true,
      value: { stallAfterSeconds: 3600, runTimeoutSeconds: 86_400, retentionSeconds: 604_800 },
    });
  });

  it('are each turned off by 0, and an empty value keeps the default', () => {
    const off = { CASCADE_STALL_AFTER_SECONDS: '0', CASCADE_RUN_TIMEOUT_SECONDS: '0', CASCADE_RETENTION_SECONDS: '0' };
    expect(parseConfig(off, noPod)).toMatchObject({
      ok: true,
      value: { stallAfterSeconds: 0, runTimeoutSeconds: 0, retentionSeconds: 0 },
    });
    expect(parseConfig({ CASCADE_RETENTION_SECONDS: '' }, noPod)).toMatchObject({
      ok: true,
      value: { retentionSeconds: 604_800 },
    });
  });

  it('reads CASCADE_RETENTION_SECONDS', () => {
    const c = parseConfig({ CASCADE_RETENTION_SECONDS: '86400' });
    expect(c.ok && c.value.retentionSeconds).toBe(86400);
  });

  it.each(['-1', '1.5', 'a day'])('rejects CASCADE_RETENTION_SECONDS=%s', (raw) => {
    expect(parseConfig({ CASCADE_RETENTION_SECONDS: raw })).toEqual({
      ok: false,
      reason: `CASCADE_RETENTION_SECONDS must be a whole number of seconds, got "${raw}"`,
    });
  });
});

describe('the caller token (CASCADE_AUTH_TOKEN)', () => {
  const TOKEN = 'f3c1a9e07b5d4c2a8e6f1b3d5c7a9e0b2d4f6a8c1e3b5d7f';

  it("is off by default, and when empty: callers need no token, as the Go controller's", () => {
    for (const env of [{}, { CASCADE_AUTH_TOKEN: '' }]) {
      const c = parseConfig(env, noPod);
      expect(c.ok && c.value.authToken).toBeUndefined();
    }
  });

  it('is read when long enough and printable', () => {
    const c = parseConfig({ CASCADE_AUTH_TOKEN: TOKEN }, noPod);
    expect(c.ok && c.value.authToken).toBe(TOKEN);
    expect(parseConfig({ CASCADE_AUTH_TOKEN: 'x'.repeat(MIN_TOKEN_LENGTH) }, noPod).ok).toBe(true);
  });

  it.each([
    [
      'too short',
      'x'.repeat(MIN_TOKEN_LENGTH - 1),
      `CASCADE_AUTH_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters, got ${MIN_TOKEN_LENGTH - 1}`,
    ],
    ['with a space', `${TOKEN} ${TOKEN}`, 'CASCADE_AUTH_TOKEN must be printable ASCII without spaces or line breaks'],
    [
      'with a line break (a Secret written with echo)',
      `${TOKEN}\n`,
      'CASCADE_AUTH_TOKEN must be printable ASCII without spaces or line breaks',
    ],
  ])('is refused %s', (_what, token, reason) => {
    expect(parseConfig({ CASCADE_AUTH_TOKEN: token }, noPod)).toEqual({ ok: false, reason });
  });
});
