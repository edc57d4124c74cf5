import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { fromKubeconfig, inCluster } from './connection.ts';
import { parseKubeconfig } from './kubeconfig.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

const yamlConfig = `
apiVersion: v1
kind: Config
current-context: b
clusters:
- name: ca
  cluster: { server: "https://127.0.0.1:6443/", certificate-authority-data: ${b64('CA')} }
- name: cb
  cluster: { server: "https://10.0.0.1", insecure-skip-tls-verify: true }
users:
- name: ua
  user: { client-certificate-data: ${b64('CERT')}, client-key-data: ${b64('KEY')} }
- name: ub
  user: { token: abc }
contexts:
- { name: a, context: { cluster: ca, user: ua } }
- { name: b, context: { cluster: cb, user: ub } }
`;

describe('kubeconfig', () => {
  it('takes the current context: server, insecure flag and token', () => {
    const c = fromKubeconfig(yamlConfig);
    expect({ server: c.server, insecure: c.insecure, token: c.token(), ca: c.ca, cert: c.cert }).toEqual({
      server: 'https://10.0.0.1',
      insecure: true,
      token: 'abc',
      ca: undefined,
      cert: undefined,
    });
  });

  it('reads embedded certificates, as JSON too (kubeconfigs written by client-node)', () => {
    const json = JSON.stringify({
      'current-context': 'a',
      clusters: [
        { name: 'ca', cluster: { server: 'https://127.0.0.1:6443/', 'certificate-authority-data': b64('CA') } },
      ],
      users: [{ name: 'ua', user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') } }],
      contexts: [{ name: 'a', context: { cluster: 'ca', user: 'ua' } }],
    });
    const c = fromKubeconfig(json);
    expect([c.server, c.ca?.toString(), c.cert?.toString(), c.key?.toString(), c.token()]).toEqual([
      'https://127.0.0.1:6443',
      'CA',
      'CERT',
      'KEY',
      undefined,
    ]);
  });

  it('reads certificate and token files relative to the kubeconfig', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-'));
    writeFileSync(join(dir, 'ca.crt'), 'FILE-CA');
    writeFileSync(join(dir, 'token'), 'tok-from-file\n');
    const c = fromKubeconfig(
      `
current-context: x
clusters: [{ name: c, cluster: { server: "https://h", certificate-authority: ca.crt } }]
users: [{ name: u, user: { tokenFile: ${join(dir, 'token')} } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
`,
      dir,
    );
    expect([c.ca?.toString(), c.token()]).toEqual(['FILE-CA', 'tok-from-file']);
  });

  it('reads a JSON kubeconfig as the YAML parser would, and a YAML flow mapping that is not JSON as YAML', () => {
    const doc = {
      'current-context': 'a',
      clusters: [{ name: 'ca', cluster: { server: 'https://h:1', 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'ua', user: { token: 't' } }],
      contexts: [{ name: 'a', context: { cluster: 'ca', user: 'ua' } }],
    };
    const json = `  ${JSON.stringify(doc, null, 2)}\n`;
    expect(parseKubeconfig(json)).toEqual(load(json));
    expect(parseKubeconfig(json)).toEqual(doc);
    const flow =
      '{current-context: a, clusters: [{name: ca, cluster: {server: "https://f:2"}}], contexts: [{name: a, context: {cluster: ca}}]}';
    expect(() => JSON.parse(flow)).toThrow();
    expect(fromKubeconfig(flow).server).toBe('https://f:2');
  });

  it('names what is missing', () => {
    expect(() => fromKubeconfig('current-context: nope\ncontexts: []\n')).toThrow(/no cluster in the kubeconfig/);
  });

  it('says why there is no in-cluster configuration', () => {
    expect(() => inCluster({})).toThrow(/KUBERNETES_SERVICE_HOST/);
  });
});
