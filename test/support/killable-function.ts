// The function behind the API write proxy (api-write-proxy.ts), on a port
// that outlives each process: a test kills it with SIGKILL (at once, or after
// the proxy's n-th write) and a new process takes its place on the same port,
// where the Broker and the sender reach it. The caller closes the proxy.
import { freePort, startFunction, type FunctionProcess } from '../../local/function-process.ts';
import { apiWriteProxy, type ApiWriteProxy } from './api-write-proxy.ts';

export interface KillableFunction {
  /** The harness's `start`: the first process, behind the proxy; `extra` joins its env. */
  start(harnessEnv: Record<string, string>, extra?: Record<string, string>): Promise<FunctionProcess>;
  /** SIGKILL now; a new process is started once the old one is gone. */
  killAndRestart(): void;
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
  return {
    async start(harnessEnv, extra = {}) {
      proxy ??= await apiWriteProxy(harnessEnv.KUBECONFIG!);
      env = { ...harnessEnv, KUBECONFIG: proxy.kubeconfig, FUNC_PORT: String(await freePort()), ...extra };
      current = await startFunction(env);
      return current;
    },
    killAndRestart() {
      const dying = current!;
      const started = Date.now();
      dying.child.kill('SIGKILL');
      restarting = (async () => {
        await new Promise<void>((r) =>
          dying.child.exitCode !== null || dying.child.signalCode ? r() : dying.child.once('exit', () => r()),
        );
        proxy!.revive();
        current = await startFunction(env);
        restarts.push(Date.now() - started);
      })();
    },
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
