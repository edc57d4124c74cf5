// An HTTP proxy in front of a function process that can be told to answer
// the next requests itself (503 by default, as a draining or briefly
// unavailable pod does) before it forwards again. For the delivery tests.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FlakyProxy {
  url: string;
  /** The next `count` requests are answered `status` with `body`, not forwarded. */
  failNext(count: number, status?: number, body?: string): void;
  /** Requests answered by the proxy itself. */
  refused(): number;
  stop(): Promise<void>;
}

export async function flakyProxy(target: string): Promise<FlakyProxy> {
  let failing = { count: 0, status: 503, body: '' };
  let refused = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failing.count > 0) {
        failing.count--;
        refused++;
        res.writeHead(failing.status, { 'content-type': 'application/json' }).end(failing.body);
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
      ) as Record<string, string>;
      fetch(new URL(req.url ?? '/', target), {
        method: req.method,
        headers,
        body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      })
        .then(async (r) =>
          res.writeHead(r.status, Object.fromEntries(r.headers)).end(Buffer.from(await r.arrayBuffer())),
        )
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    failNext: (count, status = 503, body = '{"error":"shutting down: send the run request again"}') => {
      failing = { count, status, body };
    },
    refused: () => refused,
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
