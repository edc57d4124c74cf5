// A K_SINK as Eventing serves one with transport encryption and OIDC on: HTTPS
// with a certificate from a CA of its own (made with the openssl CLI), and
// 401 to any request without `Authorization: Bearer <the token it expects>`.
// It records every request, with what it answered.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { tempDir } from '../../local/temp-dir.ts';
import { runCommand } from '../../local/cluster/run-command.ts';

const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export interface HttpsSinkRequest {
  authorization: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
}

/** A CA, and a serving certificate it signed for 127.0.0.1 and localhost, in a temporary directory. */
async function certificates(dir: string): Promise<{ ca: string; key: string; cert: string }> {
  const at = (f: string) => join(dir, f);
  await runCommand('openssl', [
    'req',
    '-x509',
    '-new',
    ...ecKey,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.crt'),
    '-days',
    '1',
    '-subj',
    '/CN=cascade-test-sink-ca',
  ]);
  await runCommand('openssl', [
    'req',
    '-new',
    ...ecKey,
    '-keyout',
    at('sink.key'),
    '-out',
    at('sink.csr'),
    '-subj',
    '/CN=sink',
  ]);
  await writeFile(
    at('sink.ext'),
    'basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  );
  await runCommand('openssl', [
    'x509',
    '-req',
    '-in',
    at('sink.csr'),
    '-CA',
    at('ca.crt'),
    '-CAkey',
    at('ca.key'),
    '-set_serial',
    '0x01',
    '-out',
    at('sink.crt'),
    '-days',
    '1',
    '-extfile',
    at('sink.ext'),
  ]);
  const [ca, key, cert] = await Promise.all(['ca.crt', 'sink.key', 'sink.crt'].map((f) => readFile(at(f), 'utf8')));
  return { ca: ca!, key: key!, cert: cert! };
}

export async function httpsSink() {
  const dir = tempDir('cascade-https-sink-');
  const { ca, key, cert } = await certificates(dir);
  let expected = 'token-1';
  const received: HttpsSinkRequest[] = [];
  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const authorization = req.headers.authorization;
      const status = authorization === `Bearer ${expected}` ? 202 : 401;
      received.push({ authorization, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const tokenFile = join(dir, 'token');
  return {
    url: `https://127.0.0.1:${port}/`,
    /** The sink's CA, PEM: what SinkBinding puts in K_CA_CERTS. */
    ca,
    /** Where the test writes the token, as the kubelet writes /oidc/token. */
    tokenFile,
    received,
    /** The sink expects `token` from now on; `mount` also writes it to the token file, as a renewal does. */
    async rotate(token: string, mount = true) {
      expected = token;
      if (mount) await writeFile(tokenFile, `${token}\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type HttpsSink = Awaited<ReturnType<typeof httpsSink>>;
