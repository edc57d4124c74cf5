// The control plane the benchmarks run against: the one named by
// $CASCADE_KUBECONFIG when it answers, else a private one started here. The
// private one has its own state dir and stops at the end. Its components' API
// rate limits are raised as on a production cluster (RAISED_LIMITS). Also the
// API server's own /metrics and /version, read with the admin client
// certificate, and the pids of the components so that their CPU can be sampled.
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { apiserverReady } from '../local/cluster/cluster-state.ts';
import { startCluster } from '../local/cluster/cluster.ts';
import { RAISED_LIMITS } from '../local/cluster/component-commands.ts';
import { applyCrds } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { readPids } from '../local/cluster/processes.ts';
import { auditLogOf } from '../test/support/audit-log.ts';
import { parseMetrics, type Sample } from './prom.ts';

export interface ControlPlane {
  kubeconfig: string;
  kubernetesVersion: string;
  /** Component name → pid, when known (kube-apiserver, etcd, kwok ...). */
  pids: Record<string, number>;
  /** The API server's audit log (local/cluster/audit-policy.yaml). */
  auditLog: string;
  /** The API limit flags each component runs with, read from its command line ("default" when it has none). */
  limits: Record<string, string>;
  /** apiserver_request_total from the API server's /metrics. */
  requests(): Promise<Sample[]>;
  stop(): Promise<void>;
}

function adminGet(kubeconfig: string): (path: string) => Promise<string> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster || !user?.certData || !user.keyData)
    throw new Error(`${kubeconfig}: needs a client certificate (the admin kubeconfig)`);
  const b64 = (s: string) => Buffer.from(s, 'base64');
  const tls = {
    ca: cluster.caData ? b64(cluster.caData) : undefined,
    cert: b64(user.certData),
    key: b64(user.keyData),
  };
  return (path) =>
    new Promise((resolve, reject) => {
      const req = request(new URL(path, cluster.server), { ...tls, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(body)
            : reject(new Error(`GET ${path}: ${res.statusCode} ${body.slice(0, 200)}`)),
        );
      });
      req.on('error', reject);
      req.end();
    });
}

function componentPids(stateDir: string): Record<string, number> {
  const file = join(stateDir, 'pids.json');
  return existsSync(file) ? Object.fromEntries(readPids(file).map((p) => [p.name, p.pid])) : {};
}

const LIMIT_FLAG =
  /^--(kube-api-qps|kube-api-burst|concurrent-job-syncs|max-requests-inflight|max-mutating-requests-inflight)=/;

/** The limit flags on each component's command line (/proc), so the figures say what the cluster ran with. */
function limitsInEffect(pids: Record<string, number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
    const pid = pids[name];
    if (pid === undefined) continue;
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => LIMIT_FLAG.test(a));
      out[name] = args.length > 0 ? args.map((a) => a.slice(2)).join(' ') : 'default';
    } catch {
      out[name] = 'unknown';
    }
  }
  return out;
}

export async function controlPlane(log: (m: string) => void): Promise<ControlPlane> {
  let kubeconfig = process.env.CASCADE_KUBECONFIG;
  let stop = async () => {};
  if (!kubeconfig || !(await apiserverReady(kubeconfig))) {
    const started = performance.now();
    const cluster = await startCluster({
      stateDir: join(repoRoot, '.cascade', `bench-${process.pid}`),
      tieToProcess: true,
      log,
      limits: RAISED_LIMITS,
    });
    log(`cluster: ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    kubeconfig = cluster.kubeconfig;
    stop = cluster.stop;
  } else {
    log(`cluster: using CASCADE_KUBECONFIG=${kubeconfig}`);
  }
  await applyCrds(kubeconfig);
  const get = adminGet(kubeconfig);
  const version = JSON.parse(await get('/version')) as { gitVersion: string };
  const pids = componentPids(dirname(kubeconfig));
  const limits = limitsInEffect(pids);
  log(`cluster: API limits ${JSON.stringify(limits)}`);
  return {
    kubeconfig,
    kubernetesVersion: version.gitVersion,
    auditLog: auditLogOf(kubeconfig),
    pids,
    limits,
    requests: async () => parseMetrics(await get('/metrics'), 'apiserver_request_total'),
    stop,
  };
}
