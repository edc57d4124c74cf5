// `cancel RUN` and `resume RUN`: the run-control requests of the contract, a
// CloudEvent in binary mode to the function (or the Broker).
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { controlOutcome, controlRequest, type Action } from '../endpoint/run-control.ts';
import { postTo, resolveEndpoint } from '../endpoint/resolve.ts';
import { CliError } from '../io.ts';
import { getRun } from '../kube/runs.ts';
import { phaseOf } from '../runs/run-object.ts';

const WHAT: Record<Action, string> = {
  cancel: 'cancel a run: its current Job is stopped and it ends Cancelled',
  resume: 'resume a Failed or Cancelled run from the module where it stopped',
};

export function registerControl(program: Command, ctx: Ctx, action: Action): void {
  program.command(action).argument('<run>', 'the CascadeRun\'s name')
    .description(WHAT[action])
    .option('--url <url>', 'the function\'s URL (default: the Knative Service\'s status.url, else the Broker\'s address)')
    .action(act(ctx, async (name: string, opts: { url?: string }, cmd: Command) => {
      const { kc, namespace } = connection(cmd);
      await getRun(kc, namespace, name); // a run that does not exist is named as kubectl names it
      const endpoint = await resolveEndpoint(kc, namespace, opts.url);
      const req = controlRequest(action, name);
      const res = await postTo(endpoint.url, req.headers, req.body, ctx.io.env);
      const outcome = controlOutcome(action, res.status, res.text);
      if (!outcome.ok) throw new CliError(outcome.message);
      const run = await getRun(kc, namespace, name);
      ctx.io.out.write(`cascaderun/${name} ${action} requested (phase ${phaseOf(run)})\n`);
      return 0;
    }));
}
