// The janitor: one sweep over a namespace holding N live runs, whose pods are
// never scheduled so the runs stay active, run as the CronJob runs it: the
// janitor process (functions/janitor/main.ts) as its own ServiceAccount. Its
// summary's sweep time, the process's wall time and peak RSS (getrusage's
// maxrss, written by bench/max-rss.ts as the process exits) and the API
// requests it made. Targets: 10,000 live runs swept in < 10 s, memory bounded
// (paginated lists: CASCADE_LIST_PAGE_SIZE, 500 by default).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { repoRoot } from '../local/cluster/paths.ts';
import { serviceAccountKubeconfigFile } from '../local/function-rbac.ts';
import type { ControlPlane } from './control-plane.ts';
import { runRequest, type Install } from './install.ts';
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
  compare?: { sweepMs: number; processMs: number; peakRssMiB: number; runsHandled: number; requests: CostSummary } | undefined;
}

async function fill(inst: Install, target: number, have: number, log: (m: string) => void): Promise<void> {
  let next = have;
  let done = have;
  const worker = async () => {
    while (next < target) {
      next++;
      const r = await inst.send(runRequest('janitor'));
      if (r.status !== 200) throw new Error(`run request answered ${r.status} after ${r.attempts} attempt(s)`);
      if (++done % 1000 === 0) log(`janitor: ${done} live runs`);
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
}

interface JanitorRun { summary: Record<string, unknown>; processMs: number; peakRssMiB: number }

function runJanitor(env: Record<string, string>, entry = join(repoRoot, 'functions/janitor/main.ts')): Promise<JanitorRun> {
  const dir = mkdtempSync(join(tmpdir(), 'cascade-bench-janitor-'));
  const rssFile = join(dir, 'max-rss');
  const t0 = performance.now();
  return new Promise<JanitorRun>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', join(repoRoot, 'bench/max-rss.ts'), entry], {
      cwd: repoRoot, env: { PATH: process.env.PATH ?? '', ...env, BENCH_MAX_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
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
async function measured(cp: ControlPlane, env: Record<string, string>, entry?: string) {
  const before = await cp.requests();
  const j = await runJanitor(env, entry);
  const requests = summarizeCost(requestCounts(diffSamples(before, await cp.requests())));
  const n = (k: string) => Number(j.summary[k]);
  return { sweepMs: n('durationMs'), processMs: j.processMs, peakRssMiB: j.peakRssMiB, runsSeen: n('runsSeen'), runsHandled: n('runsHandled'), errors: n('errors'), requests };
}

/** Sweeps at each size in turn, adding runs between sweeps. `inst` runs a scenario whose pods never start. */
export async function janitorSweeps(cp: ControlPlane, kc: KubeConfig, inst: Install, sizes: readonly number[], log: (m: string) => void): Promise<JanitorSweep[]> {
  const env = {
    KUBECONFIG: await serviceAccountKubeconfigFile(kc, inst.ns, 'cascade-janitor'), POD_NAMESPACE: inst.ns,
    SCENARIO_NAME: inst.env.SCENARIO_NAME!, CONFIG_PATH: inst.env.CONFIG_PATH!, OUT_MINIO_ADDRESS: inst.env.OUT_MINIO_ADDRESS!, LOG_LEVEL: 'warn',
  };
  const out: JanitorSweep[] = [];
  let have = 0;
  for (const size of sizes) {
    await fill(inst, size, have, log);
    have = size;
    await new Promise((r) => setTimeout(r, 1000));
    const m = await measured(cp, env);
    const other = process.env.BENCH_JANITOR_COMPARE;
    const compare = other ? await measured(cp, env, other) : undefined;
    out.push({ liveRuns: size, ...m, compare });
    log(`janitor: ${size} live runs swept in ${m.sweepMs} ms (process ${Math.round(m.processMs)} ms, target < ${JANITOR_TARGET_MS} ms), peak RSS ${m.peakRssMiB.toFixed(0)} MiB, ${m.runsHandled} handled, ${m.requests.reads} reads` +
      (compare ? `; ${other}: ${compare.sweepMs} ms, peak RSS ${compare.peakRssMiB.toFixed(0)} MiB, ${compare.requests.reads} reads` : ''));
  }
  return out;
}
