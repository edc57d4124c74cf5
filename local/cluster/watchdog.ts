// A detached bash that outlives a crash of the Node process which started
// the cluster: once that process is gone it kills every recorded process
// group and (optionally) removes the state dir.
import { spawn } from 'node:child_process';

const script = `
parent="$1"; pids="$2"; state="$3"
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
groups=$(grep -o '"pid": *[0-9]*' "$pids" 2>/dev/null | grep -o '[0-9]*$')
for p in $groups; do kill -TERM -- "-$p" 2>/dev/null; done
sleep 3
for p in $groups; do kill -KILL -- "-$p" 2>/dev/null; done
if [ -n "$state" ]; then rm -rf -- "$state"; fi
`;

/** Returns the watchdog pid; it ends by itself after cleaning up. */
export function startWatchdog(options: { parentPid: number; pidsFile: string; removeDir?: string }): number {
  const child = spawn(
    'bash',
    ['-c', script, 'cascade-cluster-watchdog', String(options.parentPid), options.pidsFile, options.removeDir ?? ''],
    { detached: true, stdio: 'ignore' },
  );
  child.unref();
  return child.pid ?? 0;
}
