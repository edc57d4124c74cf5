// Runs the Cascade function as a real process, as faas-js-runtime serves it,
// on a free port; for the tests and the benchmarks.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from '../cluster/paths.ts';

export interface FunctionProcess {
  url: string;
  /** Cascade's own metrics (CASCADE_METRICS_PORT). */
  metricsUrl: string;
  child: ChildProcess;
  output(): string;
  /** Every line it logged at error level or above (pino: 50 error, 60 fatal), however long it ran. */
  errorLines(): string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Sends `signal` to a child and resolves with its exit code once it has exited (at once if it had). */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    // Exited already (exitCode), or killed by a signal (signalCode: exitCode stays null).
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/** The characters of the process's output kept for output(): the last ones, enough for a busy test's whole drain. */
const OUTPUT_KEPT = 400_000;

async function waitReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the function exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(`${url}/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the function did not become ready in 30 s:\n${output()}`);
}

/** What to run: node with `args` in `cwd` (as `uid`/`gid` when given), on `baseEnv` instead of this process' environment. */
export interface FunctionCommand {
  cwd: string;
  args: string[];
  baseEnv?: Record<string, string>;
  uid?: number;
  gid?: number;
}

/** The function from source: faas-js-runtime on functions/cascade/index.ts (type stripping). */
export const sourceFunction = (): FunctionCommand => ({
  cwd: repoRoot,
  args: [join(repoRoot, 'node_modules/faas-js-runtime/bin/cli.js'), join(repoRoot, 'functions/cascade/index.ts')],
});

export async function startFunction(
  env: Record<string, string>,
  command: FunctionCommand = sourceFunction(),
): Promise<FunctionProcess> {
  // A FUNC_PORT given is kept: a process started again is reached where the last one was.
  const port = env.FUNC_PORT ? Number(env.FUNC_PORT) : await freePort();
  const metricsPort = await freePort();
  // FUNC_PORT: faas-js-runtime's port, so that the command stays as deployed.
  const child = spawn(process.execPath, command.args, {
    cwd: command.cwd,
    uid: command.uid,
    gid: command.gid,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...(command.baseEnv ?? process.env),
      LOG_LEVEL: 'warn',
      FUNC_PORT: String(port),
      CASCADE_METRICS_PORT: String(metricsPort),
      ...env,
    },
  });
  let log = '';
  const errors: string[] = [];
  const keep = () => {
    let partial = '';
    return (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-OUTPUT_KEPT);
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      errors.push(...lines.filter((line) => /"level":(50|60)[,}]/.test(line)));
    };
  };
  child.stdout?.on('data', keep());
  child.stderr?.on('data', keep());
  const url = `http://127.0.0.1:${port}`;
  const output = () => log;
  try {
    await waitReady(url, child, output);
  } catch (error) {
    // Not left running when it never became ready.
    child.kill('SIGKILL');
    throw error;
  }
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => stopProcess(child, signal);
  return {
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    child,
    output,
    errorLines: () => [...errors],
    stop,
  };
}
