// An HTTP proxy between the function and the API server that records every
// write the function makes and can kill the function right after its n-th
// write is acknowledged. The function talks plain HTTP to the proxy, with its
// own token; the proxy talks HTTPS to the API server. Nothing in the product
// knows of it. Once the kill is done, the proxy answers nothing more from the
// dead process: its answer to that write is lost, as in a real crash.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { tempDir } from '../../local/temp-dir.ts';

/** A write the API server took (2xx): `POST /apis/.../cascaderuns`, and the answer's status. Refused writes (409) change nothing and are not points. */
export interface Write {
  call: string;
  status: number;
}

export interface ApiWriteProxy {
  /** A kubeconfig file for the function: the proxy's address, the same token. */
  kubeconfig: string;
  /** Every write since the last reset, in the order the API server answered them. */
  writes(): Write[];
  /** Writes sent since the last reset, refused ones (409) included: what the audit log shows. */
  sent(): number;
  /** Starts counting again from 0; after `killAt` writes answered (1-based), `kill` is called. */
  arm(killAt: number | undefined, kill: () => void): void;
  /** Whether the armed kill happened. */
  killed(): boolean;
  /** Serves the next process (the killed one's requests are refused until then). */
  revive(): void;
  close(): Promise<void>;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A write the crash points count: not a read, not a Kubernetes Event (a note,
 * not state), not the counters' Lease (renewed every few seconds, whatever runs).
 */
function isWrite(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  return !READS.has(req.method ?? 'GET') && !/\/events(\/|\?|$)/.test(url) && !url.includes('/leases');
}

/** The call's method and path without the query, the namespace's segment kept. */
function callOf(req: IncomingMessage): string {
  return `${req.method} ${(req.url ?? '').split('?')[0]}`;
}

export async function apiWriteProxy(functionKubeconfig: string): Promise<ApiWriteProxy> {
  const kc = new KubeConfig();
  kc.loadFromFile(functionKubeconfig);
  const cluster = kc.getCurrentCluster()!;
  const upstream = new URL(cluster.server);
  const ca = cluster.caData
    ? Buffer.from(cluster.caData, 'base64')
    : cluster.caFile
      ? readFileSync(cluster.caFile)
      : undefined;
  const token = kc.getCurrentUser()?.token;
  let writes: Write[] = [];
  let sent = 0;
  let killAt: number | undefined;
  let kill: () => void = () => undefined;
  let dead = false;
  let done = false;

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const write = isWrite(req);
    const up = httpsRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
        ca,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          if (dead) return void res.destroy();
          if (write) sent++;
          if (write && (answer.statusCode ?? 0) < 300) {
            writes.push({ call: callOf(req), status: answer.statusCode ?? 0 });
            if (killAt !== undefined && writes.length === killAt) {
              dead = true;
              done = true;
              kill();
              return void res.destroy();
            }
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
        });
      },
    );
    up.on('error', () => res.destroy());
    up.end(body);
  };

  const server = createServer((req, res) => {
    if (dead) return void res.destroy();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => (dead ? res.destroy() : forward(req, res, Buffer.concat(chunks))));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const file = join(tempDir('cascade-crash-kc-'), 'kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'proxy', cluster: { server: `http://127.0.0.1:${port}` } }],
    users: [{ name: 'function', user: { token } }],
    contexts: [{ name: 'proxy', context: { cluster: 'proxy', user: 'function' } }],
    'current-context': 'proxy',
  };
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return {
    kubeconfig: file,
    writes: () => [...writes],
    sent: () => sent,
    arm(at, k) {
      writes = [];
      sent = 0;
      killAt = at;
      kill = k;
      done = false;
    },
    killed: () => done,
    revive() {
      dead = false;
      killAt = undefined;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
