import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeconfigPaths, loadKubeconfig, resolveKubeconfig, type KubeconfigFile } from './kubeconfig.ts';

const file = (doc: KubeconfigFile['doc'], dir = '/cfg'): KubeconfigFile => ({ dir, doc });
const base = file({
  clusters: [
    {
      name: 'c',
      cluster: { server: 'https://a:6443/', 'certificate-authority-data': Buffer.from('CA').toString('base64') },
    },
    { name: 'd', cluster: { server: 'https://d:6443', 'insecure-skip-tls-verify': true } },
  ],
  users: [
    { name: 'u', user: { token: 't0k' } },
    { name: 'e', user: { exec: { command: 'aws' } } },
  ],
  contexts: [
    { name: 'x', context: { cluster: 'c', user: 'u', namespace: 'ops' } },
    { name: 'y', context: { cluster: 'd', user: 'e' } },
  ],
  'current-context': 'x',
});

describe('the kubeconfig, read as kubectl reads it', () => {
  it("takes the current context's cluster, user and namespace; -n and --context win", () => {
    const a = resolveKubeconfig([base], {});
    expect(a).toMatchObject({ conn: { server: 'https://a:6443', insecure: false }, namespace: 'ops', context: 'x' });
    expect(a.conn.token()).toBe('t0k');
    expect(a.conn.ca?.toString()).toBe('CA');
    expect(resolveKubeconfig([base], { namespace: 'n1' }).namespace).toBe('n1');
    const y = resolveKubeconfig([base], { context: 'y' });
    expect(y).toMatchObject({ conn: { server: 'https://d:6443', insecure: true }, namespace: 'default', context: 'y' });
  });

  it('refuses an unknown --context and a context without a cluster', () => {
    expect(() => resolveKubeconfig([base], { context: 'nope' })).toThrow(
      'context "nope" does not exist in the kubeconfig',
    );
    expect(() =>
      resolveKubeconfig([file({ contexts: [{ name: 'x', context: {} }], 'current-context': 'x' })], {}),
    ).toThrow('no cluster in the kubeconfig');
  });

  it('sends a username and password as basic authentication, and refuses an auth-provider or a proxy-url', () => {
    const user = (u: Record<string, unknown>) =>
      file({
        clusters: [{ name: 'c', cluster: { server: 'https://h' } }],
        users: [{ name: 'u', user: u }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      });
    expect(resolveKubeconfig([user({ username: 'ann', password: 'pw' })], {}).conn.basic).toBe(
      Buffer.from('ann:pw').toString('base64'),
    );
    expect(() => resolveKubeconfig([user({ 'auth-provider': { name: 'oidc' } })], {})).toThrow(/auth-provider/);
    const proxied = file({
      ...base.doc,
      clusters: [{ name: 'c', cluster: { server: 'https://h', 'proxy-url': 'http://p' } }],
    });
    expect(() => resolveKubeconfig([proxied], {})).toThrow(/proxy-url/);
  });

  it('merges several files: the first to name an entry or a current context wins', () => {
    const second = file({ clusters: [{ name: 'c', cluster: { server: 'https://other' } }], 'current-context': 'y' });
    expect(resolveKubeconfig([file({}), base, second], {}).conn.server).toBe('https://a:6443');
  });

  it('without any kubeconfig talks to http://localhost:8080, as kubectl does', () => {
    expect(resolveKubeconfig([], {})).toMatchObject({
      conn: { server: 'http://localhost:8080' },
      namespace: 'default',
    });
  });

  it('reads certificate and token files relative to their kubeconfig; --kubeconfig, else $KUBECONFIG, else ~/.kube/config', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cascade-kc-'));
    writeFileSync(join(dir, 'ca.crt'), 'CA-FILE');
    writeFileSync(join(dir, 'token'), 'from-file\n');
    writeFileSync(
      join(dir, 'config'),
      [
        'clusters: [{name: c, cluster: {server: "https://h", certificate-authority: ca.crt}}]',
        'users: [{name: u, user: {tokenFile: token, username: ignored}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    const a = loadKubeconfig({ kubeconfig: join(dir, 'config') }, {});
    expect(a.conn.ca?.toString()).toBe('CA-FILE');
    expect(a.conn.token()).toBe('from-file');
    expect(kubeconfigPaths({}, { KUBECONFIG: `/a:/b` })).toEqual(['/a', '/b']);
    expect(kubeconfigPaths({ kubeconfig: '/k' }, { KUBECONFIG: '/a' })).toEqual(['/k']);
    expect(kubeconfigPaths({}, {})[0]).toMatch(/\.kube\/config$/);
    expect(loadKubeconfig({}, { KUBECONFIG: join(dir, 'missing') }).conn.server).toBe('http://localhost:8080');
    expect(() => loadKubeconfig({ kubeconfig: join(dir, 'missing') }, {})).toThrow(/ENOENT/);
  });
});
