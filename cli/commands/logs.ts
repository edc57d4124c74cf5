// `logs RUN [--module M] [-f]`: the pod logs of each module's Job in order
// (earlier attempts first), each line prefixed with its module. With -f it
// waits for each module in turn and streams its log until the run ends.
import type { V1Pod } from '@kubernetes/client-node';
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { describeError, type Connection } from '../kube/connect.ts';
import { CliError, outPalette, type Io } from '../io.ts';
import { awaitPod, followPodLog, podLog, podsOfJob } from '../kube/pods.ts';
import { followRun, getRun } from '../kube/runs.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';
import { prefixLines, splitChunk } from '../runs/log-lines.ts';
import { isFinal, type ModuleRecordView, type RunObject } from '../runs/run-object.ts';
import { moduleSlots } from '../runs/view.ts';

interface LogsOptions { module?: string; follow?: boolean }

/** The Jobs of a module, earlier attempts first. */
export function jobsOf(record: ModuleRecordView): string[] {
  const earlier = (record.attempts ?? []).map((a) => (a as { jobName?: string }).jobName).filter((j): j is string => Boolean(j));
  return [...earlier.filter((j) => j !== record.jobName), record.jobName];
}

class LogPrinter {
  failures = 0;
  private readonly io: Io;
  constructor(io: Io) {
    this.io = io;
  }
  lines(module: string, text: string) {
    for (const line of prefixLines(module, text, outPalette(this.io))) this.io.out.write(`${line}\n`);
  }
  note(module: string, text: string) {
    this.io.err.write(`[${module}] ${text}\n`);
  }
  missing(module: string, pod: V1Pod, error: unknown) {
    this.failures++;
    this.note(module, `no logs from pod ${pod.metadata?.name ?? ''}: ${describeError(error)}`);
  }
}

async function printLogs({ kc, namespace }: Connection, run: RunObject, modules: string[], out: LogPrinter): Promise<void> {
  for (const { name, record } of moduleSlots(run)) {
    if (!record || !modules.includes(name)) continue;
    for (const job of jobsOf(record)) {
      const pods = await podsOfJob(kc, namespace, job);
      if (pods.length === 0 && record.startTime) out.note(name, `no pod of Job ${job} (Cascade deletes a succeeded step's Job, and its pods, when the step ends)`);
      for (const pod of pods) await podLog(kc, namespace, pod).then((text) => out.lines(name, text), (e: unknown) => out.missing(name, pod, e));
    }
  }
}

async function followLogs(conn: Connection, runName: string, modules: string[], out: LogPrinter): Promise<void> {
  const { kc, namespace } = conn;
  let run = await getRun(kc, namespace, runName);
  for (const { step, name } of moduleSlots(run)) {
    if (!modules.includes(name)) continue;
    const reached = (r: RunObject) => Boolean(r.status?.modules?.some((m) => m.step === step)) || isFinal(r);
    run = await followRun(conn, runName, () => {}, { until: reached });
    const record = run.status?.modules?.find((m) => m.step === step);
    if (!record) return;
    const pod = await awaitPod(kc, namespace, record.jobName);
    let carry = '';
    await followPodLog(kc, namespace, pod, (chunk) => {
      const split = splitChunk(carry, chunk);
      carry = split.carry;
      if (split.lines.length > 0) out.lines(name, `${split.lines.join('\n')}\n`);
    }).catch((e: unknown) => out.missing(name, pod, e));
    if (carry) out.lines(name, carry);
  }
}

export function registerLogs(program: Command, ctx: Ctx): void {
  program.command('logs').argument('<run>', 'the CascadeRun\'s name')
    .description('print the pod logs of each module\'s Job in order, each line prefixed with its module')
    .option('--module <name>', 'only this module')
    .option('-f, --follow', 'stream the logs as the modules run, until the run ends')
    .action(act(ctx, async (name: string, opts: LogsOptions, cmd: Command) => {
      const conn = connection(cmd);
      const run = await getRun(conn.kc, conn.namespace, name);
      const all = moduleSlots(run).map((s) => s.name);
      if (opts.module !== undefined && !all.includes(opts.module)) throw new CliError(`run ${name} has no module ${opts.module} (its modules: ${all.join(', ')})`);
      const modules = opts.module === undefined ? all : [opts.module];
      const out = new LogPrinter(ctx.io);
      await (opts.follow ? followLogs(conn, name, modules, out) : printLogs(conn, run, modules, out));
      return out.failures > 0 ? EXIT_ERROR : 0;
    }));
}
