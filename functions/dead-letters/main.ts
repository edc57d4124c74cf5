// The dead-letter sink, knative/dead-letter-sink.yaml: the Knative Service
// cascade-dead-letters runs it from the function's own image. Every request is
// one event whose delivery to the function failed for good. Each is logged as
// one JSON line on stdout (record.ts) and answered 202, so that the
// dispatcher never sends it again. It keeps nothing but its log.
import { createServer } from 'node:http';
import pino from 'pino';
import { deadLetterRecord } from './record.ts';

/** A request's body beyond this is cut: an event the Broker accepted is smaller. */
const MAX_BODY = 4 * 1024 * 1024;

const log = pino({ base: { app: 'cascade-dead-letters' } });

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    log.warn({ ...deadLetterRecord(request.headers, body), truncated: size > MAX_BODY || undefined }, 'dead letter');
    response.writeHead(202).end();
  });
});

const port = Number(process.env.PORT ?? 8080);
server.listen(port, () => log.info({ port }, 'dead-letter sink listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
