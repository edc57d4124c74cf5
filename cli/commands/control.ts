// `cancel RUN` and `resume RUN`: the run-control requests of the contract, a
// CloudEvent in binary mode to the function (or the Broker). The reply has no
// body, so the run tells what happened: read at once after the function's
// 200, followed for a while after the Broker's 202. The exit status is 0 only
// when the run shows the request handled.
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { controlOutcome, controlRequest, type Action } from '../endpoint/run-control.ts';
import { postTo, resolveEndpoint } from '../endpoint/resolve.ts';
import { CliError } from '../io.ts';
import type { Connection } from '../kube/connect.ts';
import { followRun, getRun } from '../kube/runs.ts';
import { controlResult } from '../runs/control-result.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';
import { phaseOf, type RunObject } from '../runs/run-object.ts';

const WHAT: Record<Action, string> = {
  cancel: 'cancel a run: its current Job is stopped and it ends Cancelled',
  resume: 'resume a Failed or Cancelled run from the module where it stopped',
};

/** How long the run is followed after the Broker took the request, for it to show the outcome. */
const BROKER_WAIT_MS = 60_000;

async function afterBroker(conn: Connection, action: Action, name: string, before: RunObject): Promise<RunObject> {
  const signal = AbortSignal.timeout(BROKER_WAIT_MS);
  return followRun(conn, name, () => {}, { signal, until: (r) => controlResult(action, name, before, r).state !== 'pending' });
}

export function registerControl(program: Command, ctx: Ctx, action: Action): void {
  program.command(action).argument('<run>', 'the CascadeRun\'s name')
    .description(`${WHAT[action]}; exits 0 once the run shows it, 1 when it changed nothing`)
    .option('--url <url>', 'the function\'s URL (default: the Knative Service\'s status.url, else the Broker\'s address)')
    .action(act(ctx, async (name: string, opts: { url?: string }, cmd: Command) => {
      const conn = connection(cmd);
      const { kc, namespace } = conn;
      const before = await getRun(kc, namespace, name); // a run that does not exist is named as kubectl names it
      const endpoint = await resolveEndpoint(kc, namespace, opts.url);
      const req = controlRequest(action, name);
      const res = await postTo(endpoint.url, req.headers, req.body, ctx.io.env);
      const outcome = controlOutcome(action, res.status, res.text);
      if (!outcome.ok) throw new CliError(outcome.message);
      const after = endpoint.kind === 'broker' ? await afterBroker(conn, action, name, before) : await getRun(kc, namespace, name);
      const result = controlResult(action, name, before, after);
      if (result.state === 'pending') {
        const waited = endpoint.kind === 'broker' ? ` within ${BROKER_WAIT_MS / 1000}s` : '';
        throw new CliError(`the ${action} was taken, but cascaderun/${name} shows no ${action}${waited} (phase ${phaseOf(after)})`);
      }
      if (result.state === 'nothing') {
        ctx.io.err.write(`error: ${result.message}\n`);
        return EXIT_ERROR;
      }
      ctx.io.out.write(`${result.message}\n`);
      return 0;
    }));
}
