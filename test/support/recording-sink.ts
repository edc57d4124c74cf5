// A K_SINK for the tests: records every request (headers and body) and
// answers 500 to as many of them as the test asks, 200 to the rest; or, while
// holding, answers nothing until released (a sink that never answers).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

export interface SinkRequest {
  headers: IncomingHttpHeaders;
  /** The body as received. */
  body: string;
  data: Record<string, unknown>;
  /** What the sink answered; 0 while it holds the request, -1 when the sender went away unanswered. */
  status: number;
}

export async function recordingSink() {
  let failing = 0;
  let holding = false;
  const held: Array<{ request: SinkRequest; res: ServerResponse }> = [];
  const received: SinkRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: SinkRequest = {
        headers: req.headers,
        body,
        data: JSON.parse(body || 'null') as Record<string, unknown>,
        status: 0,
      };
      received.push(request);
      if (holding) {
        held.push({ request, res });
        res.on('close', () => {
          if (request.status === 0) request.status = -1;
        });
        return;
      }
      request.status = failing > 0 ? 500 : 200;
      if (failing > 0) failing--;
      res.writeHead(request.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    received,
    /** The next `n` requests are answered 500. */
    failNext(n: number) {
      failing = n;
    },
    /** From now on requests are held, unanswered, until release(). */
    hold() {
      holding = true;
    },
    /** Requests held now (received, not answered, sender still waiting). */
    holding: () => received.filter((r) => r.status === 0).length,
    /** Answers every request held (200, or 500 while failNext lasts) and stops holding. */
    release() {
      holding = false;
      for (const { request, res } of held.splice(0)) {
        if (request.status !== 0) continue;
        request.status = failing > 0 ? 500 : 200;
        if (failing > 0) failing--;
        res.writeHead(request.status).end();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
