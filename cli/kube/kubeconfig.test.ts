import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeconfigPaths, loadAccess, resolveAccess, type KubeconfigFile } from './kubeconfig.ts';

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
    const a = resolveAccess([base], {});
    expect(a).toMatchObject({ server: 'https://a:6443', namespace: 'ops', token: 't0k', insecure: false });
    expect(a.ca?.toString()).toBe('CA');
    expect(a.needsClientNode).toBeUndefined();
    expect(resolveAccess([base], { namespace: 'n1' }).namespace).toBe('n1');
    const y = resolveAccess([base], { context: 'y' });
    expect(y).toMatchObject({ server: 'https://d:6443', namespace: 'default', insecure: true });
    expect(y.needsClientNode).toBe('an exec plugin');
  });

  it('refuses an unknown --context and a context without a cluster', () => {
    expect(() => resolveAccess([base], { context: 'nope' })).toThrow('context "nope" does not exist in the kubeconfig');
    expect(() => resolveAccess([file({ contexts: [{ name: 'x', context: {} }], 'current-context': 'x' })], {})).toThrow(
      'no cluster in the kubeconfig',
    );
  });

  it('merges several files: the first to name an entry or a current context wins', () => {
    const second = file({ clusters: [{ name: 'c', cluster: { server: 'https://other' } }], 'current-context': 'y' });
    expect(resolveAccess([file({}), base, second], {}).server).toBe('https://a:6443');
  });

  it('without any kubeconfig talks to http://localhost:8080, as kubectl does', () => {
    expect(resolveAccess([], {})).toMatchObject({ server: 'http://localhost:8080', namespace: 'default' });
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
    const a = loadAccess({ kubeconfig: join(dir, 'config') }, {});
    expect(a.ca?.toString()).toBe('CA-FILE');
    expect(a.token).toBe('from-file');
    expect(kubeconfigPaths({}, { KUBECONFIG: `/a:/b` })).toEqual(['/a', '/b']);
    expect(kubeconfigPaths({ kubeconfig: '/k' }, { KUBECONFIG: '/a' })).toEqual(['/k']);
    expect(kubeconfigPaths({}, {})[0]).toMatch(/\.kube\/config$/);
    expect(loadAccess({}, { KUBECONFIG: join(dir, 'missing') }).server).toBe('http://localhost:8080');
    expect(() => loadAccess({ kubeconfig: join(dir, 'missing') }, {})).toThrow(/ENOENT/);
  });
});
