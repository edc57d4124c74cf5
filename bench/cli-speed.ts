// The cli phase: `kubectl cascade` beside kubectl on the bench's control
// plane, issue 25's speed goals. Each command runs as a user runs it, a whole
// process: the plugin through its bin, cli/kubectl-cascade. The two take
// turns, after a warm-up of each; `list` and `get` read a namespace of 300
// finished runs (bench/cli-runs.ts). A command's CPU is its process's user
// and system time, which the shell's `times` reports for its children.
// `version` has a floor beside it: a bare Node.js making the same HTTPS GET.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeconfig } from '../shared/kube/kubeconfig.ts';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { deleteNamespace } from '../local/kube.ts';
import { seedRuns } from './cli-runs.ts';
import { spread, type Spread } from './stats.ts';
import type { Cell, Section } from './table.ts';

const BIN = `${repoRoot}/cli/kubectl-cascade`;

interface Pair {
  name: string;
  /** Issue 25's goal for the plugin's wall time, in ms. */
  goalMs: number;
  cascade: string[];
  kubectl: string[];
}

export interface Timing {
  wallMs: Spread;
  cpuMs: Spread;
}

export interface CliSpeed {
  command: string;
  goalMs: number;
  cascade: Timing;
  kubectl: Timing;
  /** version only: a bare Node.js process making the same HTTPS GET (bench/tls-get-floor.mjs). */
  floor?: Timing;
}

/** The floor's command line: the kubeconfig's CA, certificate and key written to files it reads. */
function floorCommand(kubeconfig: string, dir: string): string[] {
  const access = loadKubeconfig({ kubeconfig }).conn;
  const files = { ca: access.ca, cert: access.cert, key: access.key };
  for (const [name, pem] of Object.entries(files)) {
    if (!pem) throw new Error(`cli phase: the kubeconfig has no ${name}: the floor needs a client certificate`);
    writeFileSync(join(dir, name), pem);
  }
  const floor = join(repoRoot, 'bench/tls-get-floor.mjs');
  return [process.execPath, floor, `${access.server}/version`, ...['ca', 'cert', 'key'].map((n) => join(dir, n))];
}

function pairs(ns: string, run: string): Pair[] {
  return [
    { name: '--help', goalMs: 150, cascade: ['--help'], kubectl: ['--help'] },
    { name: 'version', goalMs: 150, cascade: ['version'], kubectl: ['version'] },
    { name: 'list, 300 runs', goalMs: 300, cascade: ['-n', ns, 'list'], kubectl: ['-n', ns, 'get', 'cascaderuns'] },
    { name: 'get RUN', goalMs: 300, cascade: ['-n', ns, 'get', run], kubectl: ['-n', ns, 'get', 'cascaderun', run] },
  ];
}

/** Seconds of `times`' second line, the children's "0m0.090s 0m0.010s", as ms of user plus system. */
export function childCpuMs(timesOutput: string): number {
  const line = timesOutput.trim().split('\n').at(-1) ?? '';
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)];
  if (parts.length !== 2) throw new Error(`cli phase: no CPU times in ${JSON.stringify(timesOutput)}`);
  return parts.reduce((sum, m) => sum + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0);
}

/** One whole process of `argv`, its output dropped: its wall and CPU time. */
function timeOnce(argv: string[], env: NodeJS.ProcessEnv): Promise<{ wallMs: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const sh = spawn('sh', ['-c', '"$@" >/dev/null 2>&1; status=$?; times; exit $status', 'sh', ...argv], { env });
    let out = '';
    sh.stdout.on('data', (d: Buffer) => (out += d.toString()));
    sh.on('error', reject);
    sh.on('exit', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`cli phase: ${argv.join(' ')} exited ${code}`));
      else resolve({ wallMs, cpuMs: childCpuMs(out) });
    });
  });
}

function timing(samples: { wallMs: number; cpuMs: number }[]): Timing {
  return { wallMs: spread(samples.map((s) => s.wallMs))!, cpuMs: spread(samples.map((s) => s.cpuMs))! };
}

/** Each command line `tries` times, in turns, after one warm-up of each; the samples of each line. */
async function takeTurns(lines: string[][], env: NodeJS.ProcessEnv, tries: number) {
  const samples = lines.map(() => [] as { wallMs: number; cpuMs: number }[]);
  for (const line of lines) await timeOnce(line, env);
  for (let i = 0; i < tries; i++) for (const [j, line] of lines.entries()) samples[j]!.push(await timeOnce(line, env));
  return samples;
}

/** Times each pair `tries` times, in turns, after one warm-up of each, which fills Node.js's compile cache. */
export async function cliSpeed(kc: KubeConfig, kubeconfig: string, tries: number): Promise<CliSpeed[]> {
  const ns = await seedRuns(kc, 300);
  const env = { ...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1' };
  const dir = mkdtempSync(join(tmpdir(), 'cascade-cli-floor-'));
  const commands = { kubectl: [kubectlPath()], floor: floorCommand(kubeconfig, dir) };
  try {
    const out: CliSpeed[] = [];
    for (const p of pairs(ns, 'bench-run-0150')) {
      const lines = [
        [BIN, ...p.cascade],
        [...commands.kubectl, ...p.kubectl],
      ];
      if (p.name === 'version') lines.push(commands.floor);
      const samples = await takeTurns(lines, env, tries);
      const [cascade, kubectl, floor] = samples.map(timing);
      out.push({
        command: p.name,
        goalMs: p.goalMs,
        cascade: cascade!,
        kubectl: kubectl!,
        ...(floor ? { floor } : {}),
      });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await deleteNamespace(kc, ns);
  }
}

const ms = (v: number) => Math.round(v);

/** The phase's table: medians, the fastest, and the goal met or not by the median wall time. */
export function cliSpeedSection(figures: Record<string, unknown>): Section | undefined {
  const rows = figures.cli as CliSpeed[] | undefined;
  if (!rows) return undefined;
  return {
    title: 'kubectl cascade beside kubectl, whole processes (ms): median wall (fastest), median CPU',
    head: [
      'command',
      'cascade wall',
      'cascade CPU',
      'kubectl wall',
      'kubectl CPU',
      'floor wall',
      'floor CPU',
      'goal',
      'met',
    ],
    rows: rows.map((r): Cell[] => [
      r.command,
      `${ms(r.cascade.wallMs.median)} (${ms(r.cascade.wallMs.min)})`,
      ms(r.cascade.cpuMs.median),
      `${ms(r.kubectl.wallMs.median)} (${ms(r.kubectl.wallMs.min)})`,
      ms(r.kubectl.cpuMs.median),
      r.floor ? `${ms(r.floor.wallMs.median)} (${ms(r.floor.wallMs.min)})` : '',
      r.floor ? ms(r.floor.cpuMs.median) : '',
      `< ${r.goalMs}`,
      r.cascade.wallMs.median < r.goalMs ? 'yes' : 'no',
    ]),
  };
}
