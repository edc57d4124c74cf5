// Knative Serving's queue-proxy as a real process in front of the function,
// configured as Knative configures it in a pod (env.ts, from
// knative/service.yaml). Its admin port 8022 and autoscaler-stats port 9090
// are fixed in its code and bind every interface: one queue-proxy per network
// namespace, so one per machine here. A machine-wide lock (flock(1) on
// LOCK_FILE, held by the queue-proxy process itself) makes a second user wait
// for the first to end instead of failing on a port in use.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load as parseYaml } from 'js-yaml';
import { runBuildScript } from '../../build-script.ts';
import { repoRoot } from '../../cluster/paths.ts';
import { freePort } from '../../stand-ins/function-process.ts';
import { queueProxyEnv, type KnativeService } from './env.ts';

/** Ports queue-proxy binds on every interface whatever it is told (knative.dev/serving/pkg/networking). */
export const FIXED_PORTS = { admin: 8022, autoscalerStats: 9090 } as const;
export const LOCK_FILE = process.env.CASCADE_QUEUE_PROXY_LOCK ?? '/tmp/cascade-queue-proxy.lock';
const LOCK_TIMEOUT_EXIT = 75;
/** What the kubelet sends when it probes queue-proxy's readiness (K-Network-Probe: queue runs the user container's probe). */
export const KUBE_PROBE_HEADERS = { 'user-agent': 'kube-probe/1.34', 'k-network-probe': 'queue' };

/** Builds Serving's binaries when missing (../serving/build.sh) and resolves to queue-proxy's path. */
export async function ensureQueueProxy(): Promise<string> {
  const servingBuildScript = join(dirname(fileURLToPath(import.meta.url)), '../serving/build.sh');
  return join(await runBuildScript(servingBuildScript, 'Knative Serving'), 'queue');
}

export interface QueueProxyOptions {
  /** The function's port on 127.0.0.1 (USER_PORT). */
  userPort: number;
  namespace: string;
  /** The Knative Service whose settings apply (default knative/service.yaml). */
  serviceFile?: string;
  /** Replaces the Service's containerConcurrency. */
  containerConcurrency?: number;
  /** QUEUE_SERVING_PORT (default: a free port). */
  servingPort?: number;
  /** How long to wait for another queue-proxy of this machine to end (default 600 s). */
  lockWaitSeconds?: number;
  log?: (message: string) => void;
}

export interface QueueProxy {
  /** Where requests go: http://127.0.0.1:<QUEUE_SERVING_PORT>. */
  url: string;
  /** Its Prometheus text (request-metrics-endpoint; :9091 in a pod). */
  metricsUrl: string;
  /** The admin port: /wait-for-drain. */
  adminUrl: string;
  child: ChildProcess;
  output(): string;
  /** Resolves once its readiness probe (the kubelet's request) answers 200: the pod would get traffic. */
  waitReady(timeoutMs?: number): Promise<void>;
  /** GET /wait-for-drain, as Knative's preStop hook of the user container does; resolves to its status. */
  waitForDrain(): Promise<number>;
  /** Sends `signal` (SIGTERM: it drains, then exits about 30 s after its last request) and resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function readService(file = join(repoRoot, 'knative/service.yaml')): KnativeService {
  return parseYaml(readFileSync(file, 'utf8')) as KnativeService;
}

function lockHolder(): string {
  try {
    return readFileSync(`${LOCK_FILE}.owner`, 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/** Ends the queue-proxy once the Node process that started it is gone (kill -9 included): it holds the lock and the ports. */
function watchdog(parent: number, child: number): void {
  const script =
    'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -KILL "$2" 2>/dev/null';
  spawn('bash', ['-c', script, 'cascade-queue-proxy-watchdog', String(parent), String(child)], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}

async function waitListening(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const why =
        child.exitCode === LOCK_TIMEOUT_EXIT
          ? `another queue-proxy held ${LOCK_FILE} (${lockHolder()})`
          : `exit ${child.exitCode}`;
      throw new Error(`queue-proxy did not start: ${why}\n${output()}`);
    }
    try {
      await fetch(url, { headers: KUBE_PROBE_HEADERS });
      return;
    } catch {
      // not listening yet (or waiting for the lock)
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`queue-proxy did not listen on ${url} in ${timeoutMs / 1000} s:\n${output()}`);
}

async function waitProbeOk(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline && child.exitCode === null) {
    const res = await fetch(url, { headers: KUBE_PROBE_HEADERS }).catch((e: unknown) => String(e));
    if (typeof res !== 'string' && res.ok) return;
    last = typeof res === 'string' ? res : String(res.status);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `queue-proxy's readiness probe did not pass in ${timeoutMs / 1000} s (last: ${last}, exit code ${child.exitCode})`,
  );
}

function spawnLocked(
  binary: string,
  env: Record<string, string>,
  waitSeconds: number,
  log: (m: string) => void,
): ChildProcess {
  if (spawnSync('flock', ['-n', LOCK_FILE, 'true']).status !== 0) {
    log(
      `queue-proxy: ports ${FIXED_PORTS.admin} and ${FIXED_PORTS.autoscalerStats} are held by another queue-proxy (${lockHolder()}): waiting up to ${waitSeconds} s for it to end`,
    );
  }
  // -F: flock execs queue-proxy, which keeps the lock until it exits
  return spawn('flock', ['-F', '-w', String(waitSeconds), '-E', String(LOCK_TIMEOUT_EXIT), LOCK_FILE, binary], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function startQueueProxy(opts: QueueProxyOptions): Promise<QueueProxy> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const binary = await ensureQueueProxy();
  const [servingPort, tlsPort, metricsPort] = [
    opts.servingPort ?? (await freePort()),
    await freePort(),
    await freePort(),
  ];
  const env = queueProxyEnv(readService(opts.serviceFile), {
    namespace: opts.namespace,
    userPort: opts.userPort,
    servingPort,
    tlsPort,
    metricsHost: '127.0.0.1',
    metricsPort,
    containerConcurrency: opts.containerConcurrency,
  });
  const waitSeconds = opts.lockWaitSeconds ?? 600;
  const child = spawnLocked(binary, env, waitSeconds, log);
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const output = () => out;
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  watchdog(process.pid, child.pid!);
  const url = `http://127.0.0.1:${servingPort}`;
  try {
    await waitListening(url, child, output, (waitSeconds + 30) * 1000);
  } catch (error) {
    kill();
    throw error;
  }
  writeFileSync(
    `${LOCK_FILE}.owner`,
    `pid ${child.pid}, started by pid ${process.pid} in ${process.cwd()}: ${process.argv.slice(1).join(' ')}`,
  );
  const adminUrl = `http://127.0.0.1:${FIXED_PORTS.admin}`;
  return {
    url,
    adminUrl,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    child,
    output,
    waitReady: (timeoutMs = 60_000) => waitProbeOk(url, child, timeoutMs),
    waitForDrain: async () => (await fetch(`${adminUrl}/wait-for-drain`)).status,
    stop: (signal: NodeJS.Signals = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
