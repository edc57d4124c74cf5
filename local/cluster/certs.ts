// The cluster PKI, made with the openssl CLI: one CA, the API server's
// serving cert, client certs per component and the service-account key pair.
import { mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { runCommand } from './run-command.ts';

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const days = ['-days', '3650'];

/** Client identities the control plane uses (file stem → subject). */
export const clientIdentities = {
  admin: { cn: 'cascade-admin', org: 'system:masters' },
  'kube-controller-manager': { cn: 'system:kube-controller-manager' },
  'kube-scheduler': { cn: 'system:kube-scheduler' },
  kwok: { cn: 'cascade-kwok', org: 'system:masters' },
  // the API server's identity towards a kubelet (pod logs, exec), as kubeadm names it
  'apiserver-kubelet-client': { cn: 'kube-apiserver-kubelet-client', org: 'system:masters' },
} as const satisfies Record<string, { cn: string; org?: string }>;

export type ClientName = keyof typeof clientIdentities;

export interface Pki {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  saKey: string;
  saPub: string;
  client(name: ClientName): { cert: string; key: string };
}

function subject(cn: string, org?: string): string {
  return org ? `/O=${org}/CN=${cn}` : `/CN=${cn}`;
}

async function signed(dir: string, stem: string, subj: string, extensions: string): Promise<void> {
  const ext = join(dir, `${stem}.ext`);
  await writeFile(ext, extensions);
  const [key, csr, crt] = ['key', 'csr', 'crt'].map((e) => join(dir, `${stem}.${e}`)) as [string, string, string];
  await runCommand('openssl', ['req', '-new', ...ecKey, '-keyout', key, '-out', csr, '-subj', subj]);
  await runCommand('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    join(dir, 'ca.crt'),
    '-CAkey',
    join(dir, 'ca.key'),
    '-set_serial',
    `0x${randomBytes(12).toString('hex')}`,
    '-out',
    crt,
    ...days,
    '-extfile',
    ext,
  ]);
}

function leafExtensions(usage: 'serverAuth' | 'clientAuth', san?: string): string {
  const lines = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${usage}`,
  ];
  if (san) lines.push(`subjectAltName=${san}`);
  return `${lines.join('\n')}\n`;
}

/**
 * A client certificate and key signed by the CA of `dir` (createPki's), as
 * `<stem>.crt` and `<stem>.key` there: for an identity that joins a running
 * cluster, such as the real node's kubelet.
 */
export async function signClient(dir: string, stem: string, id: { cn: string; org?: string }) {
  await signed(dir, stem, subject(id.cn, id.org), leafExtensions('clientAuth'));
  return { cert: join(dir, `${stem}.crt`), key: join(dir, `${stem}.key`) };
}

/** Creates every key and certificate under `dir`; `serviceIp` is the `kubernetes` Service IP. */
export async function createPki(dir: string, serviceIp: string): Promise<Pki> {
  await mkdir(dir, { recursive: true });
  await runCommand('openssl', [
    'req',
    '-x509',
    '-new',
    ...ecKey,
    '-keyout',
    join(dir, 'ca.key'),
    '-out',
    join(dir, 'ca.crt'),
    ...days,
    '-subj',
    '/CN=cascade-local-ca',
  ]);
  const san = `IP:127.0.0.1,IP:${serviceIp},DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local`;
  const jobs: Promise<void>[] = [
    signed(dir, 'apiserver', subject('kube-apiserver'), leafExtensions('serverAuth', san)),
    runCommand('openssl', ['genrsa', '-out', join(dir, 'sa.key'), '2048']).then(() =>
      runCommand('openssl', ['rsa', '-in', join(dir, 'sa.key'), '-pubout', '-out', join(dir, 'sa.pub')]).then(
        () => undefined,
      ),
    ),
  ];
  for (const [name, id] of Object.entries(clientIdentities)) {
    const org = 'org' in id ? id.org : undefined;
    jobs.push(signed(dir, name, subject(id.cn, org), leafExtensions('clientAuth')));
  }
  await Promise.all(jobs);
  return pkiIn(dir);
}

/** The file layout createPki wrote. */
export function pkiIn(dir: string): Pki {
  return {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    serverCert: join(dir, 'apiserver.crt'),
    serverKey: join(dir, 'apiserver.key'),
    saKey: join(dir, 'sa.key'),
    saPub: join(dir, 'sa.pub'),
    client: (name) => ({ cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) }),
  };
}
