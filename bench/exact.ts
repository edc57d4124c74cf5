// 10,000 runs in flight at once through one function process, each to its
// end, and counters that come out exact. The CascadeAutoOperator's
// succeeded/failed/active and the function's own success_scenario_total /
// failed_scenario_total equal the runs sent, and every run Succeeded. Run
// requests go through the Broker as CloudEvents (its retries included); the
// runs' Jobs run under kwok (pods of 0 ms) through the Job controller.
// Every run is held in flight until all are: their pods wait for a node
// labelled for them. The bench adds that node, with room for them all, once
// the operator counts every run active at once. Then they all run to their end.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { nodeManifest } from '../local/cluster/nodes.ts';
import type { CascadeAutoOperator } from '../shared/api/cascade-auto-operator.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { GROUP, VERSION } from '../shared/api/group.ts';
import { install, runRequest, scenario, SCENARIO, type Install } from './install.ts';
import { sampleProcesses } from './procfs.ts';
import { parseMetrics } from './prom.ts';

export interface ExactCounters {
  runsSent: number;
  modulesPerRun: number;
  /** Run requests the Broker had to deliver again (429/503/no answer). */
  retried: number;
  sendSeconds: number;
  /** Send start → the last run counted. */
  seconds: number;
  /** Most runs active at once, as the operator's `active` said. */
  maxActive: number;
  /** The pods' node added (every run in flight) → the last run counted. */
  releasedSeconds: number;
  operator: { active: number; succeeded: number; failed: number };
  functionMetrics: { succeeded: number; failed: number };
  runsByPhase: Record<string, number>;
  functionMaxRssMiB: number;
  exact: boolean;
  check: string;
}

async function operatorStatus(custom: CustomObjectsApi, ns: string) {
  const op = (await custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns,
    plural: 'cascadeautooperators',
    name: SCENARIO,
  })) as CascadeAutoOperator;
  return { active: op.status?.active ?? 0, succeeded: op.status?.succeeded ?? 0, failed: op.status?.failed ?? 0 };
}

async function metricSum(url: string, name: string): Promise<number> {
  return parseMetrics(await (await fetch(url)).text(), name)
    .filter((s) => s.name === name)
    .reduce((a, s) => a + s.value, 0);
}

async function phases(custom: CustomObjectsApi, ns: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let token: string | undefined;
  do {
    const page = (await custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: 'cascaderuns',
      limit: 500,
      _continue: token,
    })) as { items: CascadeRun[]; metadata?: { _continue?: string; continue?: string } };
    for (const r of page.items) out[r.status?.phase ?? 'none'] = (out[r.status?.phase ?? 'none'] ?? 0) + 1;
    token = page.metadata?.continue || page.metadata?._continue || undefined;
  } while (token);
  return out;
}

async function sendAll(inst: Install, n: number, log: (m: string) => void): Promise<number> {
  let next = 0;
  let retried = 0;
  const worker = async () => {
    while (next < n) {
      const i = ++next;
      const r = await inst.send(runRequest('exact'));
      retried += r.attempts - 1;
      if (r.status !== 200) throw new Error(`run request answered ${r.status} after ${r.attempts} attempt(s)`);
      if (i % 1000 === 0) log(`exact: run request ${i} answered`);
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  return retried;
}

/** Waits until the operator has counted `n` ends with nothing active, or nothing moved for `stallMs`. */
async function waitCounted(
  custom: CustomObjectsApi,
  ns: string,
  n: number,
  stallMs: number,
  log: (m: string) => void,
  seen: { maxActive: number },
) {
  let last = -1;
  let movedAt = performance.now();
  for (;;) {
    const s = await operatorStatus(custom, ns);
    seen.maxActive = Math.max(seen.maxActive, s.active);
    const ended = s.succeeded + s.failed;
    if (ended !== last) {
      log(`exact: ${ended} of ${n} runs counted, ${s.active} active`);
      last = ended;
      movedAt = performance.now();
    }
    if ((ended >= n && s.active === 0) || performance.now() - movedAt > stallMs) return s;
    await new Promise((r) => setTimeout(r, 5000));
  }
}

/** The label of the node the held pods (of 0 ms) wait for. */
const HOLD = { 'cascade.cascade.net/bench': 'exact-held' };
const RELEASE_NODE = 'kwok-exact-release';

/** Waits until the operator counts `n` runs active at once (every run sent is in flight). */
async function waitAllActive(
  custom: CustomObjectsApi,
  ns: string,
  n: number,
  log: (m: string) => void,
  seen: { maxActive: number },
): Promise<void> {
  const deadline = performance.now() + 600_000;
  for (;;) {
    const s = await operatorStatus(custom, ns);
    seen.maxActive = Math.max(seen.maxActive, s.active);
    if (s.active >= n) return log(`exact: all ${s.active} runs in flight at once`);
    if (performance.now() > deadline) throw new Error(`only ${s.active} of ${n} runs active at once after 10 minutes`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

export async function exactCounters(
  kc: KubeConfig,
  n: number,
  modules: number,
  log: (m: string) => void,
): Promise<ExactCounters> {
  const inst = await install(kc, scenario(modules, 0, HOLD), 'cascade-bench-exact');
  const core = kc.makeApiClient(CoreV1Api);
  try {
    const custom = kc.makeApiClient(CustomObjectsApi);
    const sampler = sampleProcesses({ function: inst.fn.child.pid! }, 1000);
    const t0 = performance.now();
    const seen = { maxActive: 0 };
    const sampling = setInterval(() => {
      operatorStatus(custom, inst.ns).then(
        (s) => {
          seen.maxActive = Math.max(seen.maxActive, s.active);
        },
        () => {},
      );
    }, 5000);
    const retried = await sendAll(inst, n, log).finally(() => clearInterval(sampling));
    const sendSeconds = (performance.now() - t0) / 1000;
    await waitAllActive(custom, inst.ns, n, log, seen);
    const releasedAt = performance.now();
    await core.createNode({ body: nodeManifest(RELEASE_NODE, { labels: HOLD, pods: n + 100 }) });
    const operator = await waitCounted(custom, inst.ns, n, 300_000, log, seen);
    const releasedSeconds = (performance.now() - releasedAt) / 1000;
    const seconds = (performance.now() - t0) / 1000;
    const usage = sampler.stop();
    const functionMetrics = {
      succeeded: await metricSum(inst.fn.metricsUrl, 'success_scenario_total'),
      failed: await metricSum(inst.fn.metricsUrl, 'failed_scenario_total'),
    };
    const runsByPhase = await phases(custom, inst.ns);
    const exact =
      operator.succeeded === n &&
      operator.failed === 0 &&
      operator.active === 0 &&
      functionMetrics.succeeded === n &&
      functionMetrics.failed === 0 &&
      runsByPhase.Succeeded === n &&
      Object.keys(runsByPhase).length === 1;
    const check =
      `${exact ? 'EXACT' : 'NOT EXACT'}: sent ${n}; operator succeeded ${operator.succeeded}, failed ${operator.failed}, active ${operator.active}; ` +
      `function success_scenario_total ${functionMetrics.succeeded}, failed_scenario_total ${functionMetrics.failed}; runs by phase ${JSON.stringify(runsByPhase)}`;
    log(`exact: ${check}`);
    return {
      runsSent: n,
      modulesPerRun: modules,
      retried,
      sendSeconds,
      seconds,
      maxActive: seen.maxActive,
      releasedSeconds,
      operator,
      functionMetrics,
      runsByPhase,
      functionMaxRssMiB: usage.function?.maxRssMiB ?? 0,
      exact,
      check,
    };
  } finally {
    await inst.stop();
    await core.deleteNode({ name: RELEASE_NODE }).catch(() => undefined);
  }
}
