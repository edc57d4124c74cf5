// An HTTP proxy in front of the function that holds every request carrying
// the header `x-test-hold` until release(), then forwards it: a request that
// stays in flight for as long as a test needs, whatever the function does.
// Other requests (queue-proxy's readiness probes among them) pass at once.
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';

export const HOLD_HEADER = 'x-test-hold';

export interface HoldingProxy {
  port: number;
  /** Requests waiting for release(). */
  held(): number;
  release(): void;
  close(): void;
}

export async function holdingProxy(target: number): Promise<HoldingProxy> {
  let open = false;
  const waiting: (() => void)[] = [];
  const pass = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = forward(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  const server = createServer((req, res) => {
    if (req.headers[HOLD_HEADER] === undefined || open) pass(req, res);
    else waiting.push(() => pass(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    held: () => waiting.length,
    release() {
      open = true;
      for (const go of waiting.splice(0)) go();
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
