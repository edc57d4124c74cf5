// The janitor: one sweep over a namespace holding N live runs, run as the
// CronJob runs it: the janitor process (functions/janitor/main.ts) as its own
// ServiceAccount. It reports the summary's sweep time, the process's wall time
// and peak RSS, and the API requests it made. The peak RSS is the process's
// VmHWM, written by bench/max-rss.ts as the process exits. Targets: 10,000 live
// runs swept in < 10 s, memory bounded (paginated lists: CASCADE_LIST_PAGE_SIZE,
// 500 by default).
// The runs are made as the function makes them, straight through the API:
// 10,000 through the function take the better part of an hour on 2 shared
// cores. Each is the run, its first Job and the status the core decides for
// it. The Job is the core's own manifest, suspended so that no pod is made.
// To the janitor each is a run in progress waiting for its Job.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { API_VERSION, CASCADE_RUN_KIND, CASCADE_RUN_PLURAL, GROUP, VERSION } from '../shared/api/group.ts';
import type { CascadeModule } from '../shared/api/scenario.ts';
import { decide } from '../shared/core/decide.ts';
import { LABEL_APP, LABEL_APP_VALUE, runName } from '../shared/names.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { serviceAccountKubeconfigFile } from '../local/function-rbac.ts';
import type { ControlPlane } from './control-plane.ts';
import { runRequest, scenario, SCENARIO, type Install } from './install.ts';
import { diffSamples, requestCounts, summarizeCost, type CostSummary } from './prom.ts';

export const JANITOR_TARGET_MS = 10_000;

export interface JanitorSweep {
  liveRuns: number;
  /** The sweep as its summary line says (list, decide, act). */
  sweepMs: number;
  /** Spawn → exit of the janitor process. */
  processMs: number;
  peakRssMiB: number;
  runsSeen: number;
  runsHandled: number;
  errors: number;
  requests: CostSummary;
  /** The same sweep by the janitor of $BENCH_JANITOR_COMPARE (another checkout's functions/janitor/main.ts: before/after). */
  compare?:
    { sweepMs: number; processMs: number; peakRssMiB: number; runsHandled: number; requests: CostSummary } | undefined;
  /** The same sweep again with V8's heap capped (CAPPED_HEAP_FLAGS): done within it, or the error. */
  capped?: { sweepMs: number; peakRssMiB: number; runsSeen: number } | { error: string };
}

/** One live run as the function leaves it once started: run, first Job (suspended), status. */
interface Apis {
  custom: CustomObjectsApi;
  batch: BatchV1Api;
}

async function makeRun(
  { custom, batch }: Apis,
  ns: string,
  modules: CascadeModule[],
  outMinioAddress: string,
): Promise<void> {
  const req = runRequest('janitor');
  const name = runName(SCENARIO, req.iuid);
  if (!name.ok) throw new Error(name.reason);
  const crd = { group: GROUP, version: VERSION, namespace: ns, plural: CASCADE_RUN_PLURAL };
  const created = (await custom.createNamespacedCustomObject({
    ...crd,
    body: {
      apiVersion: API_VERSION,
      kind: CASCADE_RUN_KIND,
      metadata: { name: name.name, namespace: ns, labels: { [LABEL_APP]: LABEL_APP_VALUE } },
      spec: {
        ob: req.oname,
        src: req.sname,
        pid: req.iuid,
        scenarioname: SCENARIO,
        modules: modules.map((m) => m.modulename),
        turlinfo: req.turlinfo,
        cascademodules: modules,
      },
    },
  })) as CascadeRun;
  const settings = {
    namespace: ns,
    scenarioName: SCENARIO,
    outMinioAddress,
    stallAfterSeconds: 0,
    runTimeoutSeconds: 0,
    sink: false,
  };
  const d = decide({ run: created, jobs: [], fact: { kind: 'Observe' }, now: new Date().toISOString(), settings });
  // Status before the Job (the engine does the reverse): the Job's event then finds the run settled, and no writer races this one.
  await custom.replaceNamespacedCustomObjectStatus({ ...crd, name: name.name, body: { ...created, status: d.status } });
  for (const a of d.actions) {
    if (a.type === 'CreateJob')
      await batch.createNamespacedJob({ namespace: ns, body: { ...a.job, spec: { ...a.job.spec!, suspend: true } } });
  }
}

async function fill(
  kc: KubeConfig,
  inst: Install,
  target: number,
  have: number,
  log: (m: string) => void,
): Promise<void> {
  const modules = scenario(3, 0);
  const apis = { custom: kc.makeApiClient(CustomObjectsApi), batch: kc.makeApiClient(BatchV1Api) };
  let next = have;
  const worker = async () => {
    while (next < target) {
      next++;
      await makeRun(apis, inst.ns, modules, inst.env.OUT_MINIO_ADDRESS!);
      if (next % 1000 === 0) log(`janitor: ${next} live runs`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

interface JanitorRun {
  summary: Record<string, unknown>;
  processMs: number;
  peakRssMiB: number;
}

/**
 * V8 flags of the capped sweep: the old space held to 96 MiB (half the
 * CronJob's 192Mi memory limit, knative/janitor-cronjob.yaml) and a small
 * young generation. A sweep whose memory grew with the runs it lists would
 * fail under them ("heap out of memory"); the uncapped sweep's RSS is V8
 * collecting lazily on a machine with memory to spare.
 */
export const CAPPED_HEAP_FLAGS = ['--max-old-space-size=96', '--max-semi-space-size=4'];

function runJanitor(
  env: Record<string, string>,
  entry = join(repoRoot, 'functions/janitor/main.ts'),
  flags: string[] = [],
): Promise<JanitorRun> {
  const dir = mkdtempSync(join(tmpdir(), 'cascade-bench-janitor-'));
  const rssFile = join(dir, 'max-rss');
  const t0 = performance.now();
  return new Promise<JanitorRun>((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, '--import', join(repoRoot, 'bench/max-rss.ts'), entry], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', ...env, BENCH_MAX_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        const processMs = performance.now() - t0;
        const summary = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
        if (code !== 0) throw new Error(`janitor exited ${code}: ${stdout.slice(0, 300)}`);
        resolve({ summary, processMs, peakRssMiB: Number(readFileSync(rssFile, 'utf8')) / 1024 });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** One janitor process over the namespace, and the API requests it made. */
async function measured(cp: ControlPlane, env: Record<string, string>, entry?: string, flags?: string[]) {
  const before = await cp.requests();
  const j = await runJanitor(env, entry, flags);
  const requests = summarizeCost(requestCounts(diffSamples(before, await cp.requests())));
  const n = (k: string) => Number(j.summary[k]);
  return {
    sweepMs: n('durationMs'),
    processMs: j.processMs,
    peakRssMiB: j.peakRssMiB,
    runsSeen: n('runsSeen'),
    runsHandled: n('runsHandled'),
    errors: n('errors'),
    requests,
  };
}

/** Sweeps at each size in turn, adding runs between sweeps. `inst` runs a scenario whose pods never start. */
export async function janitorSweeps(
  cp: ControlPlane,
  kc: KubeConfig,
  inst: Install,
  sizes: readonly number[],
  log: (m: string) => void,
): Promise<JanitorSweep[]> {
  const env = {
    KUBECONFIG: await serviceAccountKubeconfigFile(kc, inst.ns, 'cascade-janitor'),
    POD_NAMESPACE: inst.ns,
    SCENARIO_NAME: inst.env.SCENARIO_NAME!,
    CONFIG_PATH: inst.env.CONFIG_PATH!,
    OUT_MINIO_ADDRESS: inst.env.OUT_MINIO_ADDRESS!,
    LOG_LEVEL: 'warn',
  };
  const out: JanitorSweep[] = [];
  let have = 0;
  for (const size of sizes) {
    await fill(kc, inst, size, have, log);
    have = size;
    await new Promise((r) => setTimeout(r, 1000));
    const m = await measured(cp, env);
    const other = process.env.BENCH_JANITOR_COMPARE;
    const compare = other ? await measured(cp, env, other) : undefined;
    const capped = await measured(cp, env, undefined, CAPPED_HEAP_FLAGS).then(
      (c) => ({ sweepMs: c.sweepMs, peakRssMiB: c.peakRssMiB, runsSeen: c.runsSeen }),
      (error: unknown) => ({ error: String(error).slice(0, 200) }),
    );
    out.push({ liveRuns: size, ...m, compare, capped });
    log(
      `janitor: ${size} live runs swept in ${m.sweepMs} ms (process ${Math.round(m.processMs)} ms, target < ${JANITOR_TARGET_MS} ms), peak RSS ${m.peakRssMiB.toFixed(0)} MiB, ${m.runsHandled} handled, ${m.requests.reads} reads` +
        (compare
          ? `; ${other}: ${compare.sweepMs} ms, peak RSS ${compare.peakRssMiB.toFixed(0)} MiB, ${compare.requests.reads} reads`
          : '') +
        ('error' in capped
          ? `; capped heap: ${capped.error}`
          : `; capped heap (${CAPPED_HEAP_FLAGS.join(' ')}): ${capped.sweepMs} ms, peak RSS ${capped.peakRssMiB.toFixed(0)} MiB, ${capped.runsSeen} runs seen`),
    );
  }
  return out;
}
