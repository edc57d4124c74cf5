// The faults the soak injects, each a small function over the running stack:
// kill -9 of a function replica and a new one in its place, an API server or
// etcd restart, a forged Job event, and a K_SINK that fails or stalls some
// deliveries. Each one counts itself in `FaultCounts`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RunningCluster } from '../../local/cluster/cluster.ts';
import { startComponent, stopComponent, waitComponentHealthy } from '../../local/cluster/components.ts';
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { statePaths } from '../../local/cluster/paths.ts';
import { isAlive, readPids } from '../../local/cluster/processes.ts';
import { join } from 'node:path';
import { startFunction, type FunctionProcess } from '../../local/stand-ins/function-process.ts';
import { LABEL_RUN } from '../../shared/names.ts';
import { binaryEvent, post, type Harness } from '../support/cascade-harness.ts';
import { sleep } from '../support/kube.ts';

export interface FaultCounts {
  kills: number;
  apiserverRestarts: number;
  etcdRestarts: number;
  forged: number;
  duplicates: number;
  late: number;
  cancels: number;
  resumes: number;
  sweeps: number;
  sinkFailed: number;
  sinkSlow: number;
}

export const noFaults = (): FaultCounts => ({
  kills: 0,
  apiserverRestarts: 0,
  etcdRestarts: 0,
  forged: 0,
  duplicates: 0,
  late: 0,
  cancels: 0,
  resumes: 0,
  sweeps: 0,
  sinkFailed: 0,
  sinkSlow: 0,
});

/** SIGKILL of replica `i`, then a new process in its place; the Broker routes to it as Knative would to a new pod. */
export async function killReplica(h: Harness, i: number, counts: FaultCounts, logDir: string): Promise<void> {
  await h.fns[i]!.stop('SIGKILL');
  await keepLog(h.fns[i]!, logDir);
  counts.kills++;
  h.fns[i] = await startFunction(h.env);
  h.broker.setAddresses(
    'Service/cascade',
    h.fns.map((f) => f.url),
  );
}

/** The process's output, kept under `logDir` for a look after the soak. */
export async function keepLog(fn: FunctionProcess, logDir: string): Promise<void> {
  await mkdir(logDir, { recursive: true });
  await writeFile(join(logDir, `function-${fn.child.pid}.log`), fn.output());
}

/**
 * The control plane's own logs and which of its processes still live, kept
 * under `logDir` with the function's: a run that did not end may wait on a
 * component, not on Cascade.
 */
export async function keepClusterLogs(cluster: RunningCluster, logDir: string): Promise<string[]> {
  const paths = statePaths(cluster.stateDir);
  const dir = join(logDir, 'control-plane');
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(paths.logs))
    if (name !== 'audit.log') await copyFile(join(paths.logs, name), join(dir, name));
  return readPids(paths.pids).map((p) => `${p.name} ${isAlive(p.pid) ? 'alive' : 'gone'}`);
}

/**
 * Stops a control-plane component for `downMs`, starts it again, and restarts
 * kwok, which does not come back by itself to pods it could not move while
 * the control plane was away (see test/engine-faults.test.ts).
 */
export async function restartComponent(
  cluster: RunningCluster,
  component: 'kube-apiserver' | 'etcd',
  downMs: number,
  counts: FaultCounts,
): Promise<void> {
  await stopComponent(cluster.stateDir, component);
  await sleep(downMs);
  await startComponent(cluster.stateDir, component);
  await waitComponentHealthy(cluster.stateDir, 'kube-apiserver');
  await stopComponent(cluster.stateDir, 'kwok');
  await startComponent(cluster.stateDir, 'kwok');
  if (component === 'etcd') counts.etcdRestarts++;
  else counts.apiserverRestarts++;
}

/** A Job event no API server sent: the run's label, a made-up name and uid, a finished status. It must move nothing. */
export async function forgeJobEvent(h: Harness, run: string, counts: FaultCounts): Promise<void> {
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `forged-${randomUUID().slice(0, 8)}`,
      namespace: h.ns,
      uid: randomUUID(),
      labels: { [LABEL_RUN]: run },
    },
    status: {
      conditions: [{ type: 'Complete', status: 'True', reason: 'CompletionsReached' }],
      succeeded: 1,
      active: 0,
      completionTime: new Date().toISOString(),
    },
  };
  const ev = binaryEvent('dev.knative.apiserver.resource.update', job);
  const url = h.fns[Math.floor(Math.random() * h.fns.length)]!.url;
  await post(url, ev.body, ev.headers).catch(() => undefined);
  counts.forged++;
}

/**
 * A K_SINK that takes most run-end events, answers 500 to one in `failEvery`
 * and holds one in `slowEvery` for `slowMs` first. `accepted` holds the ids it answered 2xx.
 */
export async function flakySink(counts: FaultCounts, failEvery = 10, slowEvery = 10, slowMs = 3000) {
  const accepted = new Set<string>();
  let n = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      n++;
      const id = String(req.headers['ce-id']);
      if (n % failEvery === 0) {
        counts.sinkFailed++;
        res.writeHead(500).end();
        return;
      }
      const answer = () => {
        accepted.add(id);
        res.writeHead(202).end();
      };
      if (n % slowEvery === 1) {
        counts.sinkSlow++;
        setTimeout(answer, slowMs);
      } else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
