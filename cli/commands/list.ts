// `list`: the runs of a namespace (or of all, -A) as a table, newest first.
import type { Command } from 'commander';
import { act, kubeFlags, type Ctx } from '../command-context.ts';
import { table } from '../format/table.ts';
import { GROUP } from '../../shared/api/group.ts';
import {
  CliError,
  outPalette,
  printsObject,
  printLines,
  printNames,
  printObject,
  type Io,
  type OutputFormat,
} from '../io.ts';
import { outputOption } from './output-option.ts';
import { reader } from '../kube/reader.ts';
import { LIST_HEADERS, LIST_WIDE_HEADERS, PHASES, runRow, selectRuns } from '../runs/view.ts';
import type { RunObject } from '../runs/run-object.ts';

interface ListOptions {
  phase?: string;
  allNamespaces?: boolean;
  output?: OutputFormat;
  selector?: string;
}

/** Refuses a --phase that is no phase; the case of its letters does not matter. */
function checkPhase(phase: string | undefined): void {
  if (phase !== undefined && !PHASES.some((p) => p.toLowerCase() === phase.toLowerCase())) {
    throw new CliError(`--phase ${phase}: not a phase (one of ${PHASES.join(', ')})`);
  }
}

/** The runs as a table; -A adds the namespace column, -o wide the wide columns. */
function printTable(io: Io, runs: RunObject[], opts: ListOptions): void {
  const wide = opts.output === 'wide';
  const p = outPalette(io);
  const headers: string[] = [...(wide ? LIST_WIDE_HEADERS : LIST_HEADERS)];
  const rows = runs.map((r) => runRow(r, io.now(), p, wide));
  printLines(
    io,
    opts.allNamespaces
      ? table(
          ['namespace', ...headers],
          rows.map((row, i) => [runs[i]!.metadata.namespace ?? '', ...row]),
        )
      : table(headers, rows),
  );
}

export function registerList(program: Command, ctx: Ctx): void {
  program
    .command('list')
    .alias('ls')
    .description('list runs as a table (name, scenario, phase, step i/N, age, duration), newest first')
    .option('--phase <phase>', 'only runs in this phase (Queued, Pending, Running, Succeeded, Failed, Cancelled)')
    .option('-A, --all-namespaces', 'runs of every namespace')
    .option(
      '-l, --selector <selector>',
      'only runs whose labels match, as kubectl takes it (key=value,key!=value,key in (a,b))',
    )
    .addOption(outputOption())
    .action(
      act(ctx, async (opts: ListOptions, cmd: Command) => {
        checkPhase(opts.phase);
        const api = await reader(kubeFlags(cmd));
        const { namespace } = api;
        const runs = selectRuns(
          await api.listRuns(opts.allNamespaces ? undefined : namespace, opts.selector),
          opts.phase,
        );
        const { io } = ctx;
        if (printsObject(opts.output)) {
          printObject(io, opts.output, {
            apiVersion: 'v1',
            kind: 'List',
            items: runs,
            metadata: { resourceVersion: '' },
          });
          return 0;
        }
        if (opts.output === 'name') {
          printNames(
            io,
            GROUP,
            runs.map((r) => r.metadata.name),
          );
          return 0;
        }
        if (runs.length === 0) {
          io.err.write(opts.allNamespaces ? 'No runs found.\n' : `No runs found in ${namespace} namespace.\n`);
          return 0;
        }
        printTable(io, runs, opts);
        return 0;
      }),
    );
}
