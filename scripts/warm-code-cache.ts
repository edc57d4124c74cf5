// Run by scripts/bundle.ts, with the node flags of the image's command (V8
// takes a code cache only from a process with the same flags): loads the
// function bundle as build/functions/cascade/server.cjs does, serves it on a
// free port against a stand-in API server that answers 404 to everything,
// sends what a cold process meets first (the probes, run requests as a plain
// body and as CloudEvents, a module result, a Job event), then writes V8's
// code cache of the bundle: the bytecode of every function compiled so far,
// the runtime's start and the first requests included, where Node's module
// compile cache would hold only what compiles when a module loads.
//   node --max-semi-space-size=4 scripts/warm-code-cache.ts build/functions/cascade
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { APISERVER_EVENTS, MODULE_FINISHED, RUN_REQUESTED } from '../shared/api/events.ts';

interface Launcher {
  CACHE_FILE: string;
  load(): { exports: { serve(): void }; script: { createCachedData(): Buffer } };
}

const out = resolve(process.argv[2] ?? 'build/functions/cascade');

function listening(server: Server): Promise<number> {
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok((server.address() as AddressInfo).port)));
}

/** A port nothing listens on now (taken and given back). */
async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listening(probe);
  await new Promise((ok) => probe.close(ok));
  return port;
}

async function send(url: string, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await res.arrayBuffer();
}

const ce = (type: string) => ({ 'ce-specversion': '1.0', 'ce-id': `warm-${type}`, 'ce-type': type, 'ce-source': '/build' });

async function warm(url: string): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await (await fetch(`${url}/ready`)).arrayBuffer();
  const run = { turlinfo: 's3://build/in.tgz', iuid: 'warm-1', oname: 'build', sname: 'build' };
  await send(url, run);
  await send(url, { ...run, iuid: 'warm-2' }, ce(RUN_REQUESTED));
  await send(url, { iuid: 'warm-1', modulename: 'm0', moduleresult: 'ok' }, ce(MODULE_FINISHED));
  await send(url, { kind: 'Job', metadata: { name: 'warm-1-m0', labels: {} } }, ce(APISERVER_EVENTS[1]!));
}

// A warm-up that hangs fails the build rather than holding it.
setTimeout(() => {
  console.error('warm-code-cache: the warm-up did not finish in 60 s');
  process.exit(1);
}, 60_000).unref();

const api = createServer((req, res) => {
  req.resume();
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
});
const dir = mkdtempSync(join(tmpdir(), 'cascade-warm-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, JSON.stringify({
  apiVersion: 'v1', kind: 'Config', 'current-context': 'warm',
  clusters: [{ name: 'warm', cluster: { server: `http://127.0.0.1:${await listening(api)}` } }],
  users: [{ name: 'warm', user: { token: 'warm' } }],
  contexts: [{ name: 'warm', context: { cluster: 'warm', user: 'warm', namespace: 'warm' } }],
}));
const port = await freePort();
Object.assign(process.env, { KUBECONFIG: kubeconfig, POD_NAMESPACE: 'warm', LOG_LEVEL: 'silent', CASCADE_METRICS_PORT: '0', FUNC_PORT: String(port) });
const launcher = createRequire(import.meta.url)(join(out, 'server.cjs')) as Launcher;
const loaded = launcher.load();
loaded.exports.serve();
await warm(`http://127.0.0.1:${port}`);
writeFileSync(join(out, launcher.CACHE_FILE), loaded.script.createCachedData());
rmSync(dir, { recursive: true });
process.exit(0);
