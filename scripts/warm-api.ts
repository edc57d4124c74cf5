// The stand-in Kubernetes API server of scripts/warm-code-cache.ts. It answers
// the function's calls as the API server would when they succeed: it holds one
// CascadeAutoOperator of two modules with Cascade's finalizer, and creates,
// reads, replaces and deletes objects in memory. So the warm-up runs the
// success path of a run request, a module result and a Job event, and V8's
// code cache holds what a cold process compiles for its first run. It checks
// nothing (no auth, no resourceVersion): it only has to answer alike. It
// answers `pauseMs` after each call, as a loaded machine would.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_VERSION, CASCADE_AUTO_OPERATOR_KIND, FINALIZER } from '../shared/api/group.ts';

interface Meta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
  creationTimestamp?: string;
  finalizers?: string[];
}
type Obj = { metadata?: Meta; status?: unknown } & Record<string, unknown>;

const module = (name: string) => ({
  modulename: name,
  template: { spec: { containers: [{ name, image: 'registry.invalid/warm:1' }] } },
});

function operator(namespace: string, name: string): Obj {
  return {
    apiVersion: API_VERSION,
    kind: CASCADE_AUTO_OPERATOR_KIND,
    metadata: {
      name,
      namespace,
      uid: randomUUID(),
      resourceVersion: '1',
      finalizers: [FINALIZER],
      creationTimestamp: new Date().toISOString(),
    },
    spec: { scenarioconfig: { cascademodules: [module('m0'), module('m1')] } },
    status: {},
  };
}

function body(req: IncomingMessage): Promise<Obj | undefined> {
  return new Promise((ok) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        ok(text ? (JSON.parse(text) as Obj) : undefined);
      } catch {
        ok(undefined);
      }
    });
  });
}

function reply(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const notFound = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 };

interface Call {
  method: string;
  plural: string;
  name: string | undefined;
  input: Obj | undefined;
}

type Answer = [status: number, body: unknown];

/** A read: the object, or the list of its kind. */
function read(objects: Map<string, Obj>, plural: string, name: string | undefined): Answer {
  if (!name)
    return [
      200,
      { kind: 'List', metadata: {}, items: [...objects].filter(([k]) => k.startsWith(`${plural}/`)).map(([, o]) => o) },
    ];
  const found = objects.get(`${plural}/${name}`);
  return found ? [200, found] : [404, notFound];
}

/** A delete of the collection: every object of the kind (labels aside). */
function deleteAll(objects: Map<string, Obj>, plural: string): Answer {
  for (const key of [...objects.keys()]) if (key.startsWith(`${plural}/`)) objects.delete(key);
  return [200, { kind: 'List', metadata: {}, items: [] }];
}

/** A create (POST to the kind), a replace (PUT to the object), a delete, or a delete of the collection. */
function write(objects: Map<string, Obj>, call: Call, stamp: (o: Obj) => Obj): Answer {
  const { method, plural, name, input } = call;
  if (method === 'DELETE' && !name) return deleteAll(objects, plural);
  if (method === 'DELETE')
    return name && objects.delete(`${plural}/${name}`) ? [200, { kind: 'Status', status: 'Success' }] : [404, notFound];
  if (!input) return [400, { kind: 'Status', code: 400 }];
  const key = `${plural}/${method === 'POST' ? (input.metadata?.name ?? '') : name}`;
  const stamped = stamp(input);
  objects.set(key, stamped);
  return [method === 'POST' ? 201 : 200, stamped];
}

/** What the API server would answer to a call on `objects` (changed as it would be). */
function answer(objects: Map<string, Obj>, call: Call, stamp: (o: Obj) => Obj): Answer {
  return call.method === 'GET' ? read(objects, call.plural, call.name) : write(objects, call, stamp);
}

/** A request handler for node:http's createServer, with its own objects. */
export function warmApi({ pauseMs = 0 } = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const objects = new Map<string, Obj>();
  let version = 1;
  const stamp = (o: Obj): Obj => ({
    ...o,
    metadata: {
      uid: randomUUID(),
      creationTimestamp: new Date().toISOString(),
      ...o.metadata,
      resourceVersion: String(++version),
    },
  });
  return (req, res) => {
    void body(req).then(async (input) => {
      if (pauseMs > 0) await sleep(pauseMs);
      const path = new URL(req.url ?? '/', 'http://api').pathname;
      if (path === '/readyz' || path === '/livez') return res.end('ok');
      if (path === '/version') return reply(res, 200, { major: '1', minor: '33', gitVersion: 'v1.33.0' });
      // .../namespaces/<ns>/<plural>[/<name>[/status]]
      const m = /\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(\/status)?$/.exec(path);
      if (!m) return reply(res, 404, notFound);
      const [, namespace, plural, name] = m as unknown as [string, string, string, string | undefined];
      if (plural === 'cascadeautooperators' && name && !objects.has(`${plural}/${name}`))
        objects.set(`${plural}/${name}`, operator(namespace, name));
      reply(res, ...answer(objects, { method: req.method ?? 'GET', plural, name, input }, stamp));
    });
  };
}
