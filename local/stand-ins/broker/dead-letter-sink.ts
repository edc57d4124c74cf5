// A dead-letter sink for the stand-in, in the manner of the release's own
// (knative/dead-letter-sink.yaml, functions/dead-letters/): it takes every
// CloudEvent POSTed to it (202), keeps it in memory, and tells `onEvent`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMessage, type CloudEvent } from './cloudevent.ts';
import { readBody } from './http.ts';

export interface DeadLetterSink {
  url: string;
  received: CloudEvent[];
  stop(): Promise<void>;
}

export async function startDeadLetterSink(onEvent?: (event: CloudEvent) => void): Promise<DeadLetterSink> {
  const received: CloudEvent[] = [];
  const server = createServer((req, res) => {
    readBody(req).then(
      (body) => {
        const parsed = parseMessage(req.headers, body);
        if (req.method !== 'POST' || parsed.kind !== 'event') {
          res.writeHead(req.method === 'POST' ? 400 : 405).end();
          return;
        }
        received.push(parsed.event);
        onEvent?.(parsed.event);
        res.writeHead(202).end();
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
