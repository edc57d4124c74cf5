// A K_SINK for the tests: records every request (headers and JSON body) and
// answers 500 to as many of them as the test asks, 200 to the rest.
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface SinkRequest {
  headers: IncomingHttpHeaders;
  data: Record<string, unknown>;
  /** What the sink answered. */
  status: number;
}

export async function recordingSink() {
  let failing = 0;
  const received: SinkRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = failing > 0 ? 500 : 200;
      if (failing > 0) failing--;
      received.push({ headers: req.headers, data: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') as Record<string, unknown>, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    received,
    /** The next `n` requests are answered 500. */
    failNext(n: number) { failing = n; },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
