// Runs one of the local build scripts (the control plane's, Prometheus's, ...): its
// progress goes to our stderr, and it prints what it built on its last line.
// The scripts share cached-build.sh, whose cache this module names too.
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The cache the build scripts write to: cached-build.sh's CACHE. */
export function buildCacheDir(): string {
  return (
    process.env.CASCADE_CLUSTER_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'cascade-cluster')
  );
}

const niceness = new AsyncLocalStorage<number>();

/**
 * Runs `start` so that the build scripts it runs, and the compilers they
 * start, have the scheduling priority `nice` (nice(1)): a build that nothing
 * waits for yet takes only the CPU time the others leave.
 */
export function withNiceness<T>(nice: number, start: () => T): T {
  return niceness.run(nice, start);
}

/** Resolves to the last line the script printed; a failed build names `what`. */
export function runBuildScript(script: string, what: string, args: string[] = []): Promise<string> {
  const nice = niceness.getStore() ?? 0;
  const command = nice === 0 ? ['bash', script, ...args] : ['nice', '-n', String(nice), 'bash', script, ...args];
  return new Promise((resolveLine, reject) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    // 'close', not 'exit': a process may exit before its stdout has been read to
    // the end, and the last line is what we are after.
    child.on('close', (code) => {
      const lastLine = out.trim().split('\n').pop() ?? '';
      if (code === 0 && lastLine) resolveLine(lastLine);
      else reject(new Error(`${what}: ${script} exited with ${code} (see the message above)`));
    });
  });
}
