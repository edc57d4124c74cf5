// SIGTERM while the function process holds the counters' Lease, its API
// server reached through a TCP proxy. The API server answering: the Lease is
// given up at exit (its holderIdentity emptied), so that another replica takes
// it at once. The API server not answering (the proxy stalled): the release
// gets what is left of the grace period, then is abandoned, and the process
// exits 0 within CASCADE_SHUTDOWN_GRACE_SECONDS and some slack, not after the
// client's 30 s timeout. The Lease keeps its holder and runs out on its own.
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startFunction, type FunctionProcess } from '../local/stand-ins/function-process.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { parseMetrics, scrape, value } from './support/ops.ts';
import { apiServerOf, tcpProxy, throughProxy, type TcpProxy } from './support/tcp-proxy.ts';

/** The counters' Lease (functions/cascade/app.ts COUNTERS_LEASE). */
const LEASE = 'cascade-counters';
const GRACE_SECONDS = 3;
/** Beyond the grace period: the process's exit itself, on a busy machine. Far below the API client's 30 s. */
const SLACK_MS = 5_000;

let h: Harness | undefined;
let proxy: TcpProxy | undefined;
let fn: FunctionProcess | undefined;
afterEach(async () => {
  try {
    await fn?.stop('SIGKILL');
    await proxy?.close();
  } finally {
    await h?.stop();
    h = undefined;
    proxy = undefined;
    fn = undefined;
  }
});

/** The function through a TCP proxy, once it holds the counters' Lease; the Lease's holder as the API server has it. */
async function holdingTheLease(): Promise<{ fn: FunctionProcess; proxy: TcpProxy; holder: string }> {
  h = await cascadeHarness({ modules: successScenario(0), replicas: 0, source: false });
  proxy = await tcpProxy(apiServerOf(h.env.KUBECONFIG!));
  fn = await startFunction({
    ...h.env,
    KUBECONFIG: throughProxy(h.env.KUBECONFIG!, proxy),
    CASCADE_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
    LOG_LEVEL: 'info',
  });
  const metricsUrl = fn.metricsUrl;
  await waitFor(async () => value(parseMetrics(await scrape(metricsUrl)), 'cascade_counters_writer', {}) === 1, {
    timeoutMs: 30_000,
    message: "the function holds the counters' Lease",
  });
  const holder = (await lease()).spec?.holderIdentity ?? '';
  expect(holder, "the Lease's holder, as the API server has it").toMatch(/-[0-9a-f]{6}$/);
  return { fn, proxy, holder };
}

const lease = () =>
  adminKubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ name: LEASE, namespace: h!.ns });

function exitOf(f: FunctionProcess): Promise<{ code: number | null; signal: string | null; at: number }> {
  return new Promise((resolve) => f.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
}

describe("SIGTERM while the function holds the counters' Lease", () => {
  it('the API server answering: exit 0, the Lease given up', { timeout: 120_000 }, async () => {
    const { fn } = await holdingTheLease();
    const exited = exitOf(fn);
    fn.child.kill('SIGTERM');
    expect(await exited).toMatchObject({ code: 0, signal: null });
    expect((await lease()).spec?.holderIdentity, 'no holder: another replica takes it at once').toBe('');
    expect(fn.output()).not.toContain('Lease not given up');
  });

  it(
    'the API server not answering: exit 0 within the grace period and some slack, the Lease left to run out',
    { timeout: 120_000 },
    async () => {
      const { fn, proxy, holder } = await holdingTheLease();
      const exited = exitOf(fn);
      proxy.stall();
      const sigtermAt = Date.now();
      fn.child.kill('SIGTERM');
      const exit = await exited;
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.at - sigtermAt, 'exited within the grace period and some slack').toBeLessThan(
        GRACE_SECONDS * 1000 + SLACK_MS,
      );
      expect(fn.output(), 'the release was sent, and abandoned when the grace period was over').toContain(
        'Lease not given up in time: it runs out on its own',
      );
      expect((await lease()).spec?.holderIdentity, 'the Lease still names the process, to run out').toBe(holder);
    },
  );
});
