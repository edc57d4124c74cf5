// The first of the two steps scripts/code-cache.ts runs, with the node flags
// of the image's command: V8 takes a code cache only from a process with the
// same flags. It works in four steps:
// 1. it loads the function bundle as build/functions/cascade/server.cjs does,
//    in a directory with no func.yaml, as the image's /app;
// 2. it serves it on a free port against a stand-in API server that answers as
//    the API server does when calls succeed (scripts/warm-api.ts);
// 3. it sends what a cold process meets first: the probes, run requests as a
//    plain body and as CloudEvents, the module results and a Job event of a run
//    to its end;
// 4. it writes V8's code cache of the bundle.
// The cache holds the bytecode of every function compiled so far, the
// runtime's start and the success path of the first requests included. Node's
// module compile cache would hold only what compiles when a module loads. A
// run request not answered 200 fails the build: the cache would miss the path
// a cold process takes first.
// Which functions ran must not depend on the machine's speed. So none of the
// function's timers fires (holdTimers): a slow warm-up, like a fast one, does
// not open the watches, take the Lease or sample the event loop. And the
// stand-in never closes an idle connection, so a slow warm-up meets no reset
// and no retry. scripts/rewrite-code-cache.ts then writes the cache anew.
// WARM_API_PAUSE_MS=N pauses each of the stand-in's answers N ms, as a loaded
// machine would (test/production-build.test.ts).
//   node --max-semi-space-size=4 --predictable scripts/warm-code-cache.ts build/functions/cascade
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APISERVER_EVENTS, MODULE_FINISHED, RUN_REQUESTED } from '../shared/api/events.ts';
import { CACHE_SCRIPT_NAME, type Launcher } from './launcher.ts';
import { warmApi } from './warm-api.ts';

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

async function send(url: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`warm-code-cache: ${JSON.stringify(body)} answered ${res.status} ${text}`);
  return text;
}

const ce = (type: string) => ({
  'ce-specversion': '1.0',
  'ce-id': `warm-${type}`,
  'ce-type': type,
  'ce-source': '/build',
});

/**
 * From now on no timer longer than 1 ms fires (one of 0 or 1 ms is a deferral,
 * which runs at the loop's next turn). The warm-up's own waits use
 * node:timers/promises, which this leaves alone.
 */
function holdTimers(): void {
  const { setTimeout: timeout, setInterval: interval } = globalThis;
  const never = () => timeout(() => {}, 2 ** 31 - 1);
  globalThis.setTimeout = ((...a: Parameters<typeof timeout>) =>
    (a[1] ?? 0) > 1 ? never() : timeout(...a)) as typeof setTimeout;
  globalThis.setInterval = ((...a: Parameters<typeof interval>) =>
    (a[1] ?? 0) > 1 ? never() : interval(...a)) as typeof setInterval;
}

async function warm(url: string): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  await (await fetch(`${url}/ready`)).arrayBuffer();
  const run = { turlinfo: 's3://build/in.tgz', iuid: 'warm1-build', oname: 'build', sname: 'build' };
  const name = (JSON.parse(await send(url, run)) as { run: string }).run;
  await send(url, { ...run, iuid: 'warm2-build' }, ce(RUN_REQUESTED));
  const jobs = (await (await fetch(`${apiUrl}/apis/batch/v1/namespaces/warm/jobs`)).json()) as { items: unknown[] };
  await send(url, jobs.items[0], ce(APISERVER_EVENTS[1]!));
  await send(url, { runname: name, modulename: 'm0', moduleresult: 'ok' }, ce(MODULE_FINISHED));
  await send(url, { runname: name, modulename: 'm1', moduleresult: 'ok' });
}

// A warm-up that hangs fails the build rather than holding it. The function
// waiting on a timer would hang it: a retry, a call not answered. 300 s: on 2
// cores beside 6 busy processes, at nice 19, both steps took 175 s.
setTimeout(() => {
  console.error('warm-code-cache: the warm-up did not finish in 300 s (did the function wait on a timer?)');
  process.exit(1);
}, 300_000).unref();

const api = createServer(warmApi({ pauseMs: Number(process.env.WARM_API_PAUSE_MS ?? 0) }));
api.keepAliveTimeout = 0;
const dir = mkdtempSync(join(tmpdir(), 'cascade-warm-'));
process.chdir(dir);
const kubeconfig = join(dir, 'kubeconfig');
const apiUrl = `http://127.0.0.1:${await listening(api)}`;
writeFileSync(
  kubeconfig,
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'warm',
    clusters: [{ name: 'warm', cluster: { server: apiUrl } }],
    users: [{ name: 'warm', user: { token: 'warm' } }],
    contexts: [{ name: 'warm', context: { cluster: 'warm', user: 'warm', namespace: 'warm' } }],
  }),
);
const port = await freePort();
Object.assign(process.env, {
  KUBECONFIG: kubeconfig,
  POD_NAMESPACE: 'warm',
  LOG_LEVEL: 'silent',
  CASCADE_METRICS_PORT: '0',
  FUNC_PORT: String(port),
});
holdTimers();
const launcher = createRequire(import.meta.url)(join(out, 'server.cjs')) as Launcher;
const loaded = launcher.load(CACHE_SCRIPT_NAME);
loaded.exports.serve();
// The function's process traps uncaught errors (it drains, then exits 1, logging at the silenced level): say why here.
await warm(`http://127.0.0.1:${port}`).catch((error: unknown) => {
  console.error(`warm-code-cache: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
writeFileSync(join(out, launcher.CACHE_FILE), loaded.script.createCachedData());
rmSync(dir, { recursive: true });
process.exit(0);
