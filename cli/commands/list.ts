// `list`: the runs of a namespace (or of all, -A) as a table, newest first;
// -w goes on with a row per change, as `kubectl get -w` does.
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { parseSince } from './since-option.ts';
import { table } from '../format/table.ts';
import { GROUP } from '../../shared/api/group.ts';
import { InvalidArgumentError } from 'commander';
import { CliError, outPalette, printLines, printNames, printObject, printsObject, type Io } from '../io.ts';
import type { OutputFormat } from '../io.ts';
import { outputOption } from './output-option.ts';
import type { Kube } from '../kube/connect.ts';
import { informUntil } from '../kube/informed.ts';
import { listRuns, runsPath } from '../kube/runs.ts';
import { LIST_HEADERS, LIST_WIDE_HEADERS, PHASES, runRow, selectRuns, type Selection } from '../runs/view.ts';
import type { RunObject } from '../runs/run-object.ts';
import { COMMAND_LINES } from './summaries.ts';

interface ListOptions {
  phase?: string;
  allNamespaces?: boolean;
  output?: OutputFormat;
  selector?: string;
  since?: number;
  limit?: number;
  watch?: boolean;
}

/** Refuses a --phase that is no phase; the case of its letters does not matter. */
function checkPhase(phase: string | undefined): void {
  if (phase !== undefined && !PHASES.some((p) => p.toLowerCase() === phase.toLowerCase())) {
    throw new CliError(`--phase ${phase}: not a phase (one of ${PHASES.join(', ')})`);
  }
}

function parseLimit(text: string): number {
  if (!/^[1-9]\d*$/.test(text.trim())) throw new InvalidArgumentError('give a whole number of runs, 1 or more');
  return Number(text);
}

/** The table's rows, -A with the namespace first; the table as it was printed, to align the rows -w adds. */
function rowsOf(io: Io, runs: RunObject[], opts: ListOptions): { headers: string[]; rows: string[][] } {
  const wide = opts.output === 'wide';
  const p = outPalette(io);
  const headers: string[] = [...(wide ? LIST_WIDE_HEADERS : LIST_HEADERS)];
  const rows = runs.map((r) => runRow(r, io.now(), p, wide));
  return opts.allNamespaces
    ? { headers: ['namespace', ...headers], rows: rows.map((row, i) => [runs[i]!.metadata.namespace ?? '', ...row]) }
    : { headers, rows };
}

/** Prints the runs in the format -o asks; returns the table's rows, which -w aligns its rows with. */
function printRuns(io: Io, runs: RunObject[], opts: ListOptions, asList: boolean): string[][] {
  if (printsObject(opts.output)) {
    if (asList)
      printObject(io, opts.output, { apiVersion: 'v1', kind: 'List', items: runs, metadata: { resourceVersion: '' } });
    else for (const run of runs) printObject(io, opts.output, run);
    return [];
  }
  if (opts.output === 'name') {
    printNames(
      io,
      GROUP,
      runs.map((r) => r.metadata.name),
    );
    return [];
  }
  const { headers, rows } = rowsOf(io, runs, opts);
  printLines(io, table(headers, rows).slice(asList ? 0 : 1));
  return rows;
}

/** The runs the filters keep, in the order the table shows them; "No runs found" on stderr when none is. */
function printListed(io: Io, kube: Kube, listed: RunObject[], opts: ListOptions & { sel: Selection }): string[][] {
  const runs = selectRuns(listed, opts.sel);
  const none = runs.length === 0 && !printsObject(opts.output) && opts.output !== 'name';
  if (none) io.err.write(opts.allNamespaces ? 'No runs found.\n' : `No runs found in ${kube.namespace} namespace.\n`);
  return none ? [] : printRuns(io, runs, opts, true);
}

/**
 * -w: the informer's first list printed as `list` prints it, then a row per
 * change to a run that the filters keep, until Ctrl-C. After 410 Gone the
 * informer lists again and tells what changed meanwhile: a row for each run
 * added, changed or deleted (its last copy seen).
 */
async function watchList(io: Io, kube: Kube, opts: ListOptions & { sel: Selection }): Promise<void> {
  let printed: string[][] | undefined;
  const row = (run: RunObject) => {
    const kept = selectRuns([run], { ...opts.sel, limit: undefined, now: io.now() });
    if (kept.length === 0 || !printed) return;
    if (printsObject(opts.output) || opts.output === 'name') return void printRuns(io, kept, opts, false);
    const { headers, rows } = rowsOf(io, kept, opts);
    printed = [...printed, ...rows];
    // the header too, before the first row
    const lines = table(headers, printed);
    printLines(io, printed.length === 1 ? lines : lines.slice(-1));
  };
  await informUntil(kube, {
    path: runsPath(opts.allNamespaces ? undefined : kube.namespace),
    query: opts.selector ? { labelSelector: opts.selector } : {},
    whole: true,
    on: (_change, run) => row(run as RunObject),
    listed: (items) => (printed ??= printListed(io, kube, items as RunObject[], opts)),
  }).over;
}

async function list(ctx: Ctx, opts: ListOptions, cmd: Command): Promise<number> {
  checkPhase(opts.phase);
  const kube = connection(cmd);
  const { io } = ctx;
  const sel: Selection = { phase: opts.phase, sinceMs: opts.since, limit: opts.limit, now: io.now() };
  if (opts.watch) await watchList(io, kube, { ...opts, sel });
  else
    printListed(
      io,
      kube,
      (await listRuns(kube, opts.allNamespaces ? undefined : kube.namespace, opts.selector)).items,
      { ...opts, sel },
    );
  return 0;
}

export function registerList(program: Command, ctx: Ctx): void {
  program
    .command('list')
    .alias('ls')
    .description(COMMAND_LINES.list.description)
    .option('--phase <phase>', 'only runs in this phase (Queued, Pending, Running, Succeeded, Failed, Cancelled)')
    .option('-A, --all-namespaces', 'runs of every namespace')
    .option(
      '-l, --selector <selector>',
      'only runs whose labels match, as kubectl takes it (key=value,key!=value,key in (a,b))',
    )
    .option('--since <duration>', 'only runs started within this long (90s, 30m, 1h, 2d)', parseSince)
    .option('--limit <n>', 'at most this many runs, the newest', parseLimit)
    .option('-w, --watch', 'after the list, print a row for each change to a run, until Ctrl-C')
    .addOption(outputOption())
    .action(act(ctx, (opts: ListOptions, cmd: Command) => list(ctx, opts, cmd)));
}
