// `node local/cluster/cli.ts up|down|status`
//   up:     builds the binaries if needed, starts the control plane, waits
//           until it is usable, prints the admin kubeconfig path and exits;
//           the components keep running (pids in <state>/pids.json).
//   down:   ends every recorded process and removes the state dir.
//   status: prints the kubeconfig path if the cluster answers, else exits 1.
// CASCADE_REAL_NODE=1: `up` also starts the real node (local/node/), and
// `down` always stops it when one runs.
// CASCADE_CLUSTER_LIMITS=raised: `up` raises the components' API rate limits
// as the bench does (RAISED_LIMITS in component-commands.ts).
import { apiserverReady, livePids, readClusterInfo } from './cluster-state.ts';
import { startCluster, stopCluster } from './cluster.ts';
import { RAISED_LIMITS } from './component-commands.ts';
import { defaultStateDir } from './paths.ts';
import { startRealNode } from '../node/node.ts';

const log = (message: string) => process.stderr.write(`${message}\n`);

async function up(): Promise<void> {
  const stateDir = defaultStateDir();
  const existing = readClusterInfo(stateDir);
  if (existing && livePids(stateDir).length > 0 && (await apiserverReady(existing.kubeconfig))) {
    log(`cluster: already running (state ${stateDir})`);
    process.stdout.write(`KUBECONFIG=${existing.kubeconfig}\n`);
    return;
  }
  if (existing) await stopCluster({ stateDir });
  const started = Date.now();
  const limits = process.env.CASCADE_CLUSTER_LIMITS === 'raised' ? RAISED_LIMITS : undefined;
  const cluster = await startCluster({ stateDir, log, limits });
  if (process.env.CASCADE_REAL_NODE === '1') await startRealNode({ clusterStateDir: stateDir, log });
  log(`cluster: ready in ${((Date.now() - started) / 1000).toFixed(1)} s (state ${stateDir})`);
  process.stdout.write(`KUBECONFIG=${cluster.kubeconfig}\n`);
}

async function down(): Promise<void> {
  const stateDir = defaultStateDir();
  await stopCluster({ stateDir });
  log(`cluster: stopped, removed ${stateDir}`);
}

async function status(): Promise<void> {
  const info = readClusterInfo(defaultStateDir());
  if (info && (await apiserverReady(info.kubeconfig))) {
    process.stdout.write(`KUBECONFIG=${info.kubeconfig}\n`);
    return;
  }
  log('cluster: not running');
  process.exitCode = 1;
}

const commands: Record<string, () => Promise<void>> = { up, down, status };
const command = commands[process.argv[2] ?? ''];
if (!command) {
  log('usage: node local/cluster/cli.ts up|down|status');
  process.exitCode = 2;
} else {
  try {
    await command();
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
