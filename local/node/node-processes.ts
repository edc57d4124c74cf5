// The real node's processes: each in its own process group with its log in
// the cluster's logs dir and its pid in the node's pids.json (node.ts), the
// machine-wide lock first. A watchdog tears the node down when the process
// that started it is gone, even after `kill -9`.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '../cluster/poll.ts';
import { ComponentError, logTail, startProcess, type Component } from '../cluster/processes.ts';

/** One real node per machine: its lock, held by the first process the node starts. */
export const LOCK_FILE = process.env.CASCADE_REAL_NODE_LOCK ?? '/tmp/cascade-real-node.lock';
/** How long a second node waits for the first to go. */
const LOCK_WAIT_S = 900;

export interface NodeFiles {
  pidsFile: string;
  logsDir: string;
}

export function startNodeProcess(
  name: string,
  command: { bin: string; args: string[]; env?: NodeJS.ProcessEnv },
  files: NodeFiles,
): Component {
  return startProcess(name, command, { logFile: join(files.logsDir, `${name}.log`), pidsFile: files.pidsFile });
}

/** Throws with the tail of its log when one of `components` has exited. */
export async function assertRunning(components: Component[]): Promise<void> {
  for (const c of components) {
    if (!c.exit) continue;
    const how = c.exit.signal ? `was killed by ${c.exit.signal}` : `exited with code ${c.exit.code}`;
    throw new ComponentError(c.name, `it ${how}`, { file: c.logFile, tail: await logTail(c.logFile) });
  }
}

/** Starts the process that holds LOCK_FILE, and waits until it holds it. */
export async function startLock(pidsFile: string, logsDir: string): Promise<Component> {
  const lock = startNodeProcess(
    'real-node-lock',
    {
      bin: 'flock',
      args: ['-w', String(LOCK_WAIT_S), LOCK_FILE, 'sh', '-c', 'echo "held by $PPID"; exec sleep 2147483647'],
    },
    { pidsFile, logsDir },
  );
  await pollUntil(
    () => existsSync(lock.logFile) && readFileSync(lock.logFile, 'utf8').includes(`held by ${lock.pid}`),
    {
      timeoutMs: (LOCK_WAIT_S + 10) * 1000,
      intervalMs: 250,
      what: `the real node's lock ${LOCK_FILE} (another real node runs on this machine)`,
      abort: () => assertRunning([lock]),
    },
  );
  return lock;
}

/** True when the lock process `lockPid`, whose log is in `logsDir`, came to hold LOCK_FILE. */
export function heldLock(lockPid: number, logsDir: string): boolean {
  const log = join(logsDir, 'real-node-lock.log');
  return existsSync(log) && readFileSync(log, 'utf8').includes(`held by ${lockPid}`);
}

export async function waitSocket(socket: string, components: Component[]): Promise<void> {
  await pollUntil(() => existsSync(socket), {
    timeoutMs: 30_000,
    intervalMs: 100,
    what: socket,
    abort: () => assertRunning(components),
  });
}

const watchdog = `
parent="$1"; pids="$2"; host="$3"; kubectl="$4"; kubeconfig="$5"; node="$6"; mine="$7"
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
[ -f "$pids" ] || exit 0
set -- $(grep -o '"pid": *[0-9]*' "$pids" | grep -o '[0-9]*$')
# a node stopped as it should, and another started since under the same
# state dir, is not this watchdog's: its lock holder has another pid
[ "$1" = "$mine" ] || exit 0
lock="$1"; shift
for p in "$@"; do kill -TERM -- "-$p" 2>/dev/null; done
sleep 3
for p in "$@"; do kill -KILL -- "-$p" 2>/dev/null; done
"$kubectl" --kubeconfig "$kubeconfig" delete node "$node" --ignore-not-found --wait=false >/dev/null 2>&1
bash "$host" down
rm -rf -- "$(dirname "$pids")"
kill -KILL -- "-$lock" 2>/dev/null
`;

/**
 * A detached bash that, once `parentPid` is gone, stops the node's
 * processes, deletes its Node object, runs `host.sh down` and removes the
 * directory of the pids file. It does so only while the node recorded there
 * is still the one whose lock holder is `lockPid`.
 */
export function startNodeWatchdog(
  parentPid: number,
  node: { pidsFile: string; hostScript: string; lockPid: number },
  cluster: { kubectl: string; kubeconfig: string; node: string },
): void {
  const args = [String(parentPid), node.pidsFile, node.hostScript, cluster.kubectl, cluster.kubeconfig, cluster.node];
  args.push(String(node.lockPid));
  const child = spawn('bash', ['-c', watchdog, 'cascade-real-node-watchdog', ...args], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
}
