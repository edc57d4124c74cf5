// Kubeconfig files with the certificates embedded.
import { readFile, writeFile } from 'node:fs/promises';
import { dump } from 'js-yaml';

export interface KubeconfigSpec {
  server: string;
  caCert: string;
  clientCert: string;
  clientKey: string;
  user: string;
}

const b64 = async (file: string) => (await readFile(file)).toString('base64');

export async function writeKubeconfig(file: string, spec: KubeconfigSpec): Promise<void> {
  const name = 'cascade-local';
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: spec.server, 'certificate-authority-data': await b64(spec.caCert) } }],
    users: [
      {
        name: spec.user,
        user: {
          'client-certificate-data': await b64(spec.clientCert),
          'client-key-data': await b64(spec.clientKey),
        },
      },
    ],
    contexts: [{ name, context: { cluster: name, user: spec.user, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  };
  await writeFile(file, dump(doc), { mode: 0o600 });
}
