// The function behind the API write proxy (api-write-proxy.ts), on a port
// that outlives each process: a test kills it with SIGKILL (at once, or after
// the proxy's n-th write) and a new process takes its place on the same port,
// where the Broker and the sender reach it. The caller closes the proxy.
import { freePort, startFunction, type FunctionProcess } from '../../local/stand-ins/function-process.ts';
import { apiWriteProxy, type ApiWriteProxy } from './api-write-proxy.ts';

export interface KillableFunction {
  /** The harness's `start`: the first process, behind the proxy; `extra` joins its env. */
  start(harnessEnv: Record<string, string>, extra?: Record<string, string>): Promise<FunctionProcess>;
  /** SIGKILL now; a new process is started once the old one is gone. */
  killAndRestart(): void;
  /** SIGKILL now; resolves once the process is gone. No process serves until restart(). */
  kill(): Promise<void>;
  /** A new process on the same port, as the one killed. */
  restart(): Promise<FunctionProcess>;
  readonly proxy: ApiWriteProxy | undefined;
  readonly current: FunctionProcess | undefined;
  /** Resolves once the last restart is done. */
  readonly restarting: Promise<void>;
  /** Each restart's time, kill to new process, in ms. */
  readonly restarts: number[];
  /** Waits for a restart under way, then stops the process now serving unless it is the harness's own. */
  stopRestarted(harnessFirst: FunctionProcess | undefined): Promise<void>;
}

export function killableFunction(): KillableFunction {
  let proxy: ApiWriteProxy | undefined;
  let env: Record<string, string> = {};
  let current: FunctionProcess | undefined;
  let restarting: Promise<void> = Promise.resolve();
  const restarts: number[] = [];
  const kill = () => {
    const dying = current!;
    dying.child.kill('SIGKILL');
    return new Promise<void>((r) =>
      dying.child.exitCode !== null || dying.child.signalCode ? r() : dying.child.once('exit', () => r()),
    );
  };
  const restart = async () => {
    proxy!.revive();
    current = await startFunction(env);
    return current;
  };
  return {
    async start(harnessEnv, extra = {}) {
      proxy ??= await apiWriteProxy(harnessEnv.KUBECONFIG!);
      env = { ...harnessEnv, KUBECONFIG: proxy.kubeconfig, FUNC_PORT: String(await freePort()), ...extra };
      current = await startFunction(env);
      return current;
    },
    killAndRestart() {
      const started = Date.now();
      const dead = kill();
      restarting = (async () => {
        await dead;
        await restart();
        restarts.push(Date.now() - started);
      })();
    },
    kill,
    restart,
    get proxy() {
      return proxy;
    },
    get current() {
      return current;
    },
    get restarting() {
      return restarting;
    },
    restarts,
    async stopRestarted(harnessFirst) {
      await restarting.catch(() => undefined);
      if (current && current !== harnessFirst) await current.stop();
    },
  };
}
