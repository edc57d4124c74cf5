// `delete RUN...` and `delete --all [--phase P]`: finished runs only, the way
// the janitor removes a run past its retention: the run deleted in the
// background (only the run of that uid), then its Jobs by their run label.
// A run still active holds a slot of its scenario, so it is refused: cancel it first.
// So is a run whose end is not yet recorded and notified (status.notified), as the janitor waits for it.
import type { Command } from 'commander';
import { act, kubeFlags, type Ctx } from '../command-context.ts';
import { GROUP } from '../../shared/api/group.ts';
import { LABEL_RUN } from '../../shared/names.ts';
import { CliError } from '../io.ts';
import { connect, describeError, type Kube } from '../kube/connect.ts';
import { getRun, listRuns, runsPath } from '../kube/runs.ts';
import { isFinal, phaseOf, type RunObject } from '../runs/run-object.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';
import { PHASES, selectRuns } from '../runs/view.ts';
import { COMMAND_LINES } from './summaries.ts';

interface DeleteOptions {
  all?: boolean;
  phase?: string;
}

const BACKGROUND = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' };

/** Deletes one finished run and its Jobs; the line to print, or an error for a run still active. */
async function deleteRun(kube: Kube, run: RunObject): Promise<string> {
  const name = run.metadata.name ?? '';
  if (!isFinal(run))
    throw new CliError(`cascaderun/${name} is ${phaseOf(run)}: only a finished run is deleted; cancel it first`);
  // The janitor's rule too: the end recorded, its slot released, and the run-end event sent first.
  if (!run.status?.notified)
    throw new CliError(`cascaderun/${name} ended ${phaseOf(run)}, but its end is not recorded yet: try again shortly`);
  const ns = run.metadata.namespace ?? kube.namespace;
  await kube.rest('DELETE', `${runsPath(ns)}/${encodeURIComponent(name)}`, {
    body: { ...BACKGROUND, preconditions: { uid: run.metadata.uid } },
  });
  await kube.rest('DELETE', `/apis/batch/v1/namespaces/${ns}/jobs`, {
    query: { labelSelector: `${LABEL_RUN}=${name}` },
    body: BACKGROUND,
  });
  return `cascaderun.${GROUP} "${name}" deleted`;
}

/** The runs named, read afresh; or with --all those of the namespace in a finished phase (--phase narrows them). */
async function runsToDelete(kube: Kube, names: string[], opts: DeleteOptions): Promise<RunObject[]> {
  if (opts.all) {
    if (names.length > 0) throw new CliError('give run names or --all, not both');
    const phase = opts.phase;
    if (
      phase !== undefined &&
      !['Succeeded', 'Failed', 'Cancelled'].some((p) => p.toLowerCase() === phase.toLowerCase())
    )
      throw new CliError(`--phase ${phase}: delete --all takes a finished phase (Succeeded, Failed, Cancelled)`);
    const { items } = await listRuns(kube, kube.namespace);
    return selectRuns(items, { phase }).filter(isFinal);
  }
  if (opts.phase !== undefined) throw new CliError('--phase goes with --all');
  if (names.length === 0) throw new CliError("give a run's name, or --all");
  return Promise.all(names.map((n) => getRun(kube, kube.namespace, n)));
}

async function remove(ctx: Ctx, names: string[], opts: DeleteOptions, cmd: Command): Promise<number> {
  const kube = connect(kubeFlags(cmd));
  const runs = await runsToDelete(kube, names, opts);
  if (runs.length === 0 && opts.all) ctx.io.err.write(`No finished runs found in ${kube.namespace} namespace.\n`);
  let failed = 0;
  for (const run of runs) {
    try {
      ctx.io.out.write(`${await deleteRun(kube, run)}\n`);
    } catch (error) {
      failed++;
      ctx.io.err.write(`error: ${describeError(error)}\n`);
    }
  }
  return failed > 0 ? EXIT_ERROR : 0;
}

export function registerDelete(program: Command, ctx: Ctx): void {
  program
    .command('delete')
    .argument('[runs...]', "the CascadeRuns' names")
    .description(COMMAND_LINES.delete.description)
    .option('--all', 'every finished run of the namespace')
    .option('--phase <phase>', `with --all: only runs in this phase (${PHASES.slice(3).join(', ')})`)
    .action(act(ctx, (names: string[], opts: DeleteOptions, cmd: Command) => remove(ctx, names, opts, cmd)));
}
