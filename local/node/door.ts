// The doors between this machine's network namespace and the real node's
// (host.sh makes it). The host keeps no address, route or bridge of the
// cluster: it reaches the node only through Unix sockets, which are files and
// so cross namespaces, and through the 127.0.0.1 ports piped to them.
// - A door proxy answers HTTP CONNECT host:port on a Unix socket and dials the
//   target from the namespace it runs in; names go to the DNS server given.
// - A forward listens on TCP or a Unix socket and pipes each connection to
//   TCP, a Unix socket, or a target behind a door proxy.
// door-main.ts runs them as processes; tests and benches dial in-process.
import { once } from 'node:events';
import { Resolver } from 'node:dns/promises';
import { rmSync } from 'node:fs';
import { isIP, connect, createServer, type Server, type Socket } from 'node:net';

/** Where a forward listens or dials: `tcp:ADDR:PORT`, `unix:PATH`, or, to dial only, `connect:SOCKET:HOST:PORT`. */
export type Endpoint =
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'unix'; path: string }
  | { kind: 'connect'; door: string; host: string; port: number };

const HEAD_LIMIT = 8192;

function hostPort(text: string, what: string): { host: string; port: number } {
  const at = text.lastIndexOf(':');
  const port = Number(text.slice(at + 1));
  const host = text.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  if (at < 1 || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${what}: not HOST:PORT: ${text}`);
  return { host, port };
}

export function parseEndpoint(text: string): Endpoint {
  const [kind, ...rest] = text.split(':');
  const value = rest.join(':');
  if (kind === 'tcp') return { kind, ...hostPort(value, text) };
  if (kind === 'unix' && value) return { kind, path: value };
  if (kind === 'connect') {
    const [door, ...target] = value.split(':');
    if (door) return { kind, door, ...hostPort(target.join(':'), text) };
  }
  throw new Error(`not an endpoint (tcp:ADDR:PORT, unix:PATH or connect:SOCKET:HOST:PORT): ${text}`);
}

/** Reads up to the end of an HTTP head; what came after it is put back. */
async function readHead(socket: Socket): Promise<string> {
  let buffered = Buffer.alloc(0);
  for (;;) {
    const chunk = socket.read() as Buffer | null;
    if (chunk === null) {
      if (socket.readableEnded || socket.destroyed) throw new Error('closed before the end of its head');
      await Promise.race([once(socket, 'readable'), once(socket, 'end')]);
      continue;
    }
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end >= 0) {
      if (end + 4 < buffered.length) socket.unshift(buffered.subarray(end + 4));
      return buffered.subarray(0, end).toString('latin1');
    }
    if (buffered.length > HEAD_LIMIT) throw new Error(`a head longer than ${HEAD_LIMIT} bytes`);
  }
}

function connected(socket: Socket): Promise<Socket> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** A TCP connection to `host:port` made by the door proxy at `door`. */
export async function dialThroughDoor(door: string, host: string, port: number): Promise<Socket> {
  const socket = await connected(connect(door));
  const target = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  try {
    const head = await readHead(socket);
    const status = head.split('\r\n')[0] ?? '';
    if (!/^HTTP\/1\.[01] 200 /.test(status)) throw new Error(status);
  } catch (error) {
    socket.destroy();
    throw new Error(`the door ${door} did not connect ${target}: ${(error as Error).message}`);
  }
  return socket;
}

export function dial(to: Endpoint): Promise<Socket> {
  if (to.kind === 'connect') return dialThroughDoor(to.door, to.host, to.port);
  return connected(to.kind === 'tcp' ? connect(to.port, to.host) : connect(to.path));
}

function pipeBoth(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
}

async function listen(server: Server, on: Endpoint): Promise<void> {
  if (on.kind === 'connect') throw new Error('a forward cannot listen behind a door');
  if (on.kind === 'unix') rmSync(on.path, { force: true });
  const ready = once(server, 'listening');
  if (on.kind === 'tcp') server.listen(on.port, on.host);
  else server.listen(on.path);
  await ready;
}

/** Resolves a name as the node's pods do, following CNAMEs (an ExternalName Service is one). */
async function resolveWith(resolver: Resolver, name: string, depth = 0): Promise<string> {
  const addresses = await resolver.resolve4(name).catch(() => [] as string[]);
  if (addresses[0]) return addresses[0];
  const [target] = depth < 5 ? await resolver.resolveCname(name).catch(() => [] as string[]) : [];
  if (!target) throw new Error(`${name} does not resolve`);
  return resolveWith(resolver, target, depth + 1);
}

/** The door proxy on Unix socket `path`: HTTP CONNECT, each target dialled from this process's namespace. */
export async function startDoorProxy(path: string, options: { dns?: string } = {}): Promise<Server> {
  const resolver = new Resolver();
  if (options.dns) resolver.setServers([options.dns]);
  const server = createServer((client) => {
    client.on('error', () => client.destroy());
    void (async () => {
      let target: { host: string; port: number };
      try {
        const line = (await readHead(client)).split('\r\n')[0] ?? '';
        const [method, authority] = line.split(' ');
        if (method !== 'CONNECT' || !authority) throw new Error(`not a CONNECT: ${line}`);
        target = hostPort(authority, 'CONNECT');
      } catch (error) {
        client.end(`HTTP/1.1 400 Bad Request\r\n\r\n${(error as Error).message}\n`);
        return;
      }
      try {
        const host = isIP(target.host) ? target.host : await resolveWith(resolver, target.host);
        const upstream = await dial({ kind: 'tcp', host, port: target.port });
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        pipeBoth(client, upstream);
      } catch (error) {
        client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\n${(error as Error).message}\n`);
      }
    })();
  });
  await listen(server, { kind: 'unix', path });
  return server;
}

export interface Forward {
  server: Server;
  /** Stops listening and ends every connection it piped. */
  close: () => Promise<void>;
}

/** A forward: each connection to `from` piped to a new connection to `to`. */
export async function startForward(from: Endpoint, to: Endpoint): Promise<Forward> {
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    client.pause();
    client.on('error', () => client.destroy());
    dial(to).then(
      (upstream) => {
        track(upstream);
        pipeBoth(client, upstream);
      },
      () => client.destroy(),
    );
  });
  await listen(server, from);
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of open) socket.destroy();
    });
  return { server, close };
}

/** A forward on a free 127.0.0.1 port to `host:port` behind the door proxy `door`: its port, and how to close it. */
export async function forwardThroughDoor(
  door: string,
  host: string,
  port: number,
): Promise<{ port: number; close: () => Promise<void> }> {
  const forward = await startForward(
    { kind: 'tcp', host: '127.0.0.1', port: 0 },
    { kind: 'connect', door, host, port },
  );
  const address = forward.server.address();
  if (!address || typeof address === 'string') throw new Error('a forward without a TCP port');
  return { port: address.port, close: forward.close };
}
