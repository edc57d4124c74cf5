// A TCP proxy in front of the API server that a test can cut and restore: the
// function's connection to the Kubernetes API, and only that, goes away. TLS
// passes through untouched (the server certificate names 127.0.0.1, whatever
// the port). Cut, every open connection is destroyed and each new one is
// closed as soon as it is accepted, as a server that went away mid-flight.
// Stalled, every open connection is destroyed and each new one is accepted and
// held open with nothing behind it, as a server that no longer answers: the
// client's request hangs until its own timeout.
import { connect, createServer, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

export interface TcpProxy {
  port: number;
  /** Connections accepted so far (each one a connection attempt of the client). */
  accepted(): number;
  /** Connections accepted while stalled (held with nothing behind them). */
  stalled(): number;
  cut(): void;
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'open' | 'cut' | 'stall' = 'open';
  let accepted = 0;
  let stalled = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    accepted++;
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    if (mode === 'stall') {
      stalled++;
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      client.on('error', () => client.destroy());
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    accepted: () => accepted,
    stalled: () => stalled,
    cut() {
      mode = 'cut';
      for (const s of sockets) s.destroy();
    },
    stall() {
      mode = 'stall';
      for (const s of sockets) s.destroy();
    },
    restore() {
      mode = 'open';
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The API server's host and port in a kubeconfig file. */
export function apiServerOf(kubeconfigFile: string): { host: string; port: number } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigFile);
  const url = new URL(kc.getCurrentCluster()?.server ?? '');
  return { host: url.hostname, port: Number(url.port || 443) };
}

/** A copy of `kubeconfigFile` (beside it) whose server is reached through `proxy`. */
export function throughProxy(kubeconfigFile: string, proxy: TcpProxy): string {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigFile);
  const current = kc.getCurrentCluster();
  if (!current) throw new Error(`${kubeconfigFile}: no current cluster`);
  const server = new URL(current.server);
  server.port = String(proxy.port);
  const clusters = kc.clusters.map((c) =>
    c.name === current.name ? { ...c, server: server.toString().replace(/\/$/, '') } : c,
  );
  const proxied = new KubeConfig();
  proxied.loadFromOptions({ clusters, users: kc.users, contexts: kc.contexts, currentContext: kc.currentContext });
  const file = join(kubeconfigFile, '..', `proxied-${proxy.port}.kubeconfig`);
  writeFileSync(file, proxied.exportConfig(), { mode: 0o600 });
  return file;
}
