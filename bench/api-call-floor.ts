// The floor of the function's outgoing side: the CPU one API call costs a
// Node.js process here with nothing of Cascade around it. A process of its own
// (the function's ServiceAccount, its kubeconfig) GETs a CascadeRun over
// node:https with a keep-alive Agent, one call after another, and parses
// each body; its CPU over the calls is the figure. The ceiling phase sets it
// beside the function's API calls per transition.
//   KUBECONFIG=... POD_NAMESPACE=... node bench/api-call-floor.ts <run> <calls>
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { repoRoot } from '../local/cluster/paths.ts';
import { imageNodeFlags } from '../scripts/image-flags.ts';
import { CASCADE_RUN_PLURAL, GROUP, VERSION } from '../shared/api/group.ts';
import { defaultConnection } from '../shared/kube/connection.ts';
import type { Install } from './install.ts';

export interface ApiCallFloor {
  calls: number;
  /** The process's CPU per call, µs of one core (TLS, HTTP and JSON all run on its main thread). */
  cpuUsPerCall: number;
  wallMsPerCall: number;
}

async function measure(run: string, calls: number): Promise<ApiCallFloor> {
  const conn = defaultConnection();
  const server = new URL(conn.server);
  const agent = new Agent({
    keepAlive: true,
    ca: conn.ca,
    cert: conn.cert,
    key: conn.key,
    rejectUnauthorized: !conn.insecure,
  });
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${process.env.POD_NAMESPACE}/${CASCADE_RUN_PLURAL}/${run}`;
  const get = () =>
    new Promise<void>((ok, fail) => {
      const token = conn.token();
      const req = request(
        {
          host: server.hostname,
          port: server.port,
          path,
          agent,
          headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', fail);
          res.on('end', () => {
            if (res.statusCode !== 200) return fail(new Error(`GET ${path}: HTTP ${res.statusCode}`));
            JSON.parse(Buffer.concat(chunks).toString('utf8'));
            ok();
          });
        },
      );
      req.on('error', fail);
      req.end();
    });
  for (let i = 0; i < Math.min(200, calls); i++) await get();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await get();
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return { calls, cpuUsPerCall: (cpu.user + cpu.system) / calls, wallMsPerCall: (performance.now() - t0) / calls };
}

/** The floor, measured in a process of its own (the image's node flags) as the function's identity, on run `run` of `inst`. */
export function apiCallFloor(inst: Install, run: string, calls = 1000): Promise<ApiCallFloor> {
  return new Promise((ok, fail) => {
    const child = spawn(
      process.execPath,
      [...imageNodeFlags(repoRoot), join(repoRoot, 'bench/api-call-floor.ts'), run, String(calls)],
      {
        env: { ...process.env, ...inst.env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('exit', (code) =>
      code === 0 ? ok(JSON.parse(out) as ApiCallFloor) : fail(new Error(`bench/api-call-floor.ts exited ${code}`)),
    );
  });
}

if (import.meta.main) {
  const [run, calls] = process.argv.slice(2);
  if (!run) throw new Error('usage: node bench/api-call-floor.ts <run> [calls]');
  process.stdout.write(JSON.stringify(await measure(run, Number(calls ?? 1000))));
}
