// `get RUN`: the run, then one row per module (Job, phase, started, duration,
// result, reason, attempts).
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { formatElapsed, span } from '../format/duration.ts';
import { table } from '../format/table.ts';
import { GROUP } from '../../shared/api/group.ts';
import { outPalette, printsObject, printLines, printNames, printObject, type OutputFormat } from '../io.ts';
import { getRun } from '../kube/runs.ts';
import { phaseOf, type RunObject } from '../runs/run-object.ts';
import { MODULE_HEADERS, moduleRows, moduleSlots, stepOf } from '../runs/view.ts';
import type { Palette } from '../format/colour.ts';
import { outputOption } from './output-option.ts';
import { ATTEMPT_HEADERS, attemptRows } from '../runs/attempts.ts';
import { COMMAND_LINES } from './summaries.ts';

/** The run's own lines: `Name:  ...` pairs as kubectl describe prints them, empty values left out. */
export function runSummary(run: RunObject, now: number, p: Palette): string[] {
  const { spec = {}, status = {} } = run;
  const cond = status.conditions?.find((c) => c.type === 'Succeeded');
  const elapsed = span(status.startTime, status.completionTime, now);
  const pairs: [string, string | undefined][] = [
    ['Name', run.metadata.name],
    ['Namespace', run.metadata.namespace],
    ['Scenario', spec.scenarioname],
    ['IUID', spec.pid],
    ['Input', spec.turlinfo],
    ['Phase', p.phase(phaseOf(run))],
    ['Step', stepOf(run)],
    ['Reason', cond?.reason],
    ['Message', cond?.message],
    ['Started', status.startTime],
    ['Duration', elapsed === undefined ? undefined : formatElapsed(elapsed)],
    ['Info', status.info],
  ];
  return pairs.filter(([, value]) => value).map(([key, value]) => `${`${key}:`.padEnd(11)}${value}`);
}

export function registerGet(program: Command, ctx: Ctx): void {
  program
    .command('get')
    .argument('<run>', "the CascadeRun's name")
    .description(COMMAND_LINES.get.description)
    .addOption(outputOption())
    .action(
      act(ctx, async (name: string, opts: { output?: OutputFormat }, cmd: Command) => {
        const kube = connection(cmd);
        const run = await getRun(kube, kube.namespace, name);
        const { io } = ctx;
        if (printsObject(opts.output)) {
          printObject(io, opts.output, run);
          return 0;
        }
        if (opts.output === 'name') {
          printNames(io, GROUP, [run.metadata.name]);
          return 0;
        }
        const p = outPalette(io);
        const rows = moduleRows(run, io.now(), p);
        const wide = opts.output === 'wide';
        const messages = moduleSlots(run).map((s) => s.record?.message ?? '');
        const attempts = attemptRows(run, io.now(), p);
        printLines(io, [
          ...runSummary(run, io.now(), p),
          '',
          ...table(
            wide ? [...MODULE_HEADERS, 'message'] : [...MODULE_HEADERS],
            wide ? rows.map((r, i) => [...r, messages[i]!]) : rows,
          ),
          ...(attempts.length > 0 ? ['', 'Attempts:', ...table([...ATTEMPT_HEADERS], attempts)] : []),
        ]);
        return 0;
      }),
    );
}
