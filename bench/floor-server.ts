// A server that does nothing with what it is sent, for the events phase's
// floors (bench/event-path.ts): what any request costs a process on this
// machine before Cascade does anything with it. Run as
//   node bench/floor-server.ts <kind> <port>
// and prints "listening" once it serves. Every kind reads the whole body of
// a POST and answers 2xx with no body:
// - node-http: node:http, the body read and JSON.parse'd;
// - fastify: fastify 4 (the runtime's), one route, its JSON body parser;
// - faas-js-runtime: the runtime Cascade runs under, with a function that
//   returns nothing (204), the runtime's CloudEvents handling as it ships.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

export const FLOOR_KINDS = ['node-http', 'fastify', 'faas-js-runtime'] as const;
export type FloorKind = (typeof FLOOR_KINDS)[number];

async function serve(kind: FloorKind, port: number): Promise<void> {
  if (kind === 'node-http') {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-length': '0' });
        res.end();
      });
    });
    await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  } else if (kind === 'fastify') {
    // The runtime's own fastify, wherever npm put it.
    const runtime = createRequire(import.meta.url).resolve('faas-js-runtime');
    const fastify = createRequire(runtime)('fastify') as typeof import('fastify').default;
    const app = fastify({ logger: false });
    app.post('/', async (_request, reply) => reply.code(200).send());
    await app.listen({ port, host: '127.0.0.1' });
  } else {
    const { default: runtime } = await import('faas-js-runtime');
    await runtime.start(() => undefined, { port });
  }
}

if (import.meta.main) {
  const [kind, port] = process.argv.slice(2);
  if (!FLOOR_KINDS.includes(kind as FloorKind) || !port)
    throw new Error(`usage: node bench/floor-server.ts <${FLOOR_KINDS.join('|')}> <port>`);
  await serve(kind as FloorKind, Number(port));
  process.stdout.write('listening\n');
}
