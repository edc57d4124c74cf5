// A long GET whose answer comes in pieces: a watch, a followed log. One
// agent per connection, with one TLS context, so a watch opened again does
// not build another. Its socket does not keep the process alive: a command
// that waits on it holds the process itself.
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Connection } from './connection.ts';
import { authorization, tlsOptions } from './rest.ts';

const { Agent: HttpAgent, request: httpRequest } = process.getBuiltinModule('node:http');
const { Agent: HttpsAgent, request: httpsRequest } = process.getBuiltinModule('node:https');

type Agent = InstanceType<typeof HttpAgent>;
const agents = new WeakMap<Connection, Agent>();
const bearers = new WeakMap<Connection, () => string | undefined>();

function agentFor(conn: Connection): Agent {
  let agent = agents.get(conn);
  if (agent) return agent;
  agent = conn.server.startsWith('https:') ? new HttpsAgent(tlsOptions(conn)) : new HttpAgent();
  agents.set(conn, agent);
  return agent;
}

function bearerOf(conn: Connection): () => string | undefined {
  let bearer = bearers.get(conn);
  if (!bearer) bearers.set(conn, (bearer = authorization(conn)));
  return bearer;
}

/** Sends the GET of `target`; `answered` gets the response. A socket silent for `silentMs` is destroyed. */
export function streamGet(
  conn: Connection,
  target: URL,
  silentMs: number,
  answered: (res: IncomingMessage) => void,
): ClientRequest {
  const headers: Record<string, string> = { accept: 'application/json' };
  const bearer = bearerOf(conn)();
  if (bearer) headers.authorization = bearer;
  const send = conn.server.startsWith('https:') ? httpsRequest : httpRequest;
  const req = send(target, { method: 'GET', agent: agentFor(conn), headers, timeout: silentMs }, answered);
  req.on('socket', (socket) => socket.unref());
  req.on('timeout', () => req.destroy(new Error(`GET ${target.pathname}: silent for ${silentMs / 1000} s`)));
  return req;
}
