// `logs RUN [--module M] [-f] [--since D] [--tail N]`: the pod logs of each
// module's Job in order (earlier attempts first), each line prefixed with its
// module. With -f it waits for each module in turn and streams its log until
// the run ends. --since and --tail apply to each pod's log, as in kubectl.
import type { V1Pod } from '@kubernetes/client-node';
import { InvalidArgumentError, type Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { describeError, type Kube } from '../kube/connect.ts';
import { CliError, outPalette, type Io } from '../io.ts';
import { awaitPod, followPodLog, podLog, podsOfJob, type LogWindow } from '../kube/pods.ts';
import { followRun, getRun } from '../kube/runs.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';
import { goneReason, jobsOfStep, prefixLines, splitChunk } from '../runs/log-lines.ts';
import { isFinal, wasReached, type RunObject } from '../runs/run-object.ts';
import { moduleSlots } from '../runs/view.ts';
import { parseSince } from './since-option.ts';
import { COMMAND_LINES } from './summaries.ts';

interface LogsOptions {
  module?: string;
  follow?: boolean;
  /** Milliseconds. */
  since?: number;
  tail?: number;
}

/** kubectl's --tail: a number of lines, or -1 for all of them. */
function parseTail(text: string): number {
  if (!/^(-1|\d+)$/.test(text.trim())) throw new InvalidArgumentError('give a number of lines, or -1 for all');
  return Number(text);
}

/** The lines of each pod's log to read. */
function windowOf(opts: LogsOptions): LogWindow {
  return {
    sinceSeconds: opts.since === undefined ? undefined : Math.max(1, Math.ceil(opts.since / 1000)),
    tailLines: opts.tail === undefined || opts.tail < 0 ? undefined : opts.tail,
  };
}

class LogPrinter {
  failures = 0;
  private readonly io: Io;
  /** Which lines of each pod's log are read. */
  readonly window: LogWindow;
  constructor(io: Io, window: LogWindow) {
    this.io = io;
    this.window = window;
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

async function printLogs(kube: Kube, run: RunObject, modules: string[], out: LogPrinter): Promise<void> {
  for (const { name, record } of moduleSlots(run)) {
    if (!record || !wasReached(record) || !modules.includes(name)) continue;
    for (const job of jobsOfStep(record)) {
      const pods = await podsOfJob(kube, kube.namespace, job.jobName);
      const started = job.earlier || Boolean(record.startTime);
      if (pods.length === 0 && started)
        out.note(name, `no pod of Job ${job.jobName} (${goneReason(job, run.status?.phase)})`);
      for (const pod of pods)
        await podLog(kube, kube.namespace, pod, out.window).then(
          (text) => out.lines(name, text),
          (e: unknown) => out.missing(name, pod, e),
        );
    }
  }
}

const recordOf = (run: RunObject, step: number) => run.status?.modules?.find((m) => m.step === step);

/** The step's latest attempt that has started (0 when none has). */
function startedAttempt(run: RunObject, step: number): number {
  const rec = recordOf(run, step);
  if (!rec) return 0;
  const attempt = rec.attempt ?? 1;
  return rec.startTime ? attempt : attempt - 1;
}

/**
 * Streams each attempt of one step as it starts, until the step succeeds or
 * the run ends. Every wait is a watch started again when the API server ends
 * it, so a step that starts late (a Queued run, a retry's backoff) is waited for.
 */
async function followStep(
  kube: Kube,
  runName: string,
  { step, name }: { step: number; name: string },
  out: LogPrinter,
): Promise<void> {
  let followed = 0;
  for (;;) {
    const done = (r: RunObject) => isFinal(r) || recordOf(r, step)?.phase === 'Succeeded';
    const run = await followRun(kube, runName, () => {}, {
      until: (r) => done(r) || startedAttempt(r, step) > followed,
    });
    const attempt = startedAttempt(run, step);
    if (attempt <= followed) return;
    followed = attempt;
    const record = recordOf(run, step)!;
    // A run that ended has its pods now or never: its Jobs go when it ends.
    const pod = done(run)
      ? (await podsOfJob(kube, kube.namespace, record.jobName))[0]
      : await podWhileDue(
          kube,
          runName,
          record.jobName,
          (r) => !done(r) && (recordOf(r, step)?.attempt ?? 1) === attempt,
        );
    if (pod) await streamPod(kube, pod, name, out);
    else if (done(run) || done(await getRun(kube, kube.namespace, runName))) return;
  }
}

/** The Job's first started pod, waited for while the run, followed meanwhile, says `due`. */
async function podWhileDue(
  kube: Kube,
  runName: string,
  jobName: string,
  due: (run: RunObject) => boolean,
): Promise<V1Pod | undefined> {
  const over = new AbortController();
  const moved = followRun(kube, runName, () => {}, { signal: over.signal, until: (r) => !due(r) });
  moved.then(
    () => over.abort(),
    () => over.abort(),
  );
  try {
    return await awaitPod(kube, jobName, over.signal);
  } finally {
    over.abort();
  }
}

async function streamPod(kube: Kube, pod: V1Pod, name: string, out: LogPrinter): Promise<void> {
  let carry = '';
  const onChunk = (chunk: string) => {
    const split = splitChunk(carry, chunk);
    carry = split.carry;
    if (split.lines.length > 0) out.lines(name, `${split.lines.join('\n')}\n`);
  };
  await followPodLog(kube, pod, { onChunk, window: out.window }).catch((e: unknown) => out.missing(name, pod, e));
  if (carry) out.lines(name, carry);
}

async function followLogs(kube: Kube, runName: string, modules: string[], out: LogPrinter): Promise<void> {
  const run = await getRun(kube, kube.namespace, runName);
  for (const slot of moduleSlots(run)) {
    if (modules.includes(slot.name)) await followStep(kube, runName, slot, out);
  }
}

export function registerLogs(program: Command, ctx: Ctx): void {
  program
    .command('logs')
    .argument('<run>', "the CascadeRun's name")
    .description(COMMAND_LINES.logs.description)
    .option('--module <name>', 'only this module')
    .option('-f, --follow', 'stream the logs as the modules run, until the run ends')
    .option('--since <duration>', "only each pod's lines newer than this (90s, 30m, 1h)", parseSince)
    .option('--tail <lines>', "only the last lines of each pod's log; -1 for all", parseTail)
    .action(
      act(ctx, async (name: string, opts: LogsOptions, cmd: Command) => {
        const conn = connection(cmd);
        const run = await getRun(conn, conn.namespace, name);
        const all = moduleSlots(run).map((s) => s.name);
        if (opts.module !== undefined && !all.includes(opts.module))
          throw new CliError(`run ${name} has no module ${opts.module} (its modules: ${all.join(', ')})`);
        const modules = opts.module === undefined ? all : [opts.module];
        const out = new LogPrinter(ctx.io, windowOf(opts));
        await (opts.follow ? followLogs(conn, name, modules, out) : printLogs(conn, run, modules, out));
        return out.failures > 0 ? EXIT_ERROR : 0;
      }),
    );
}
