// `submit`: a run request through the public contract, as any caller sends
// it: a plain JSON post to the function (--url, or the Knative Service's
// status.url), or a CloudEvent to the Broker when there is no Service. Prints
// the run's name; --watch follows it as `watch` does.
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { postTo, resolveEndpoint } from '../endpoint/resolve.ts';
import { submitReply, submitRequest, type SubmitFields } from '../endpoint/submit-request.ts';
import { CliError } from '../io.ts';
import { awaitNewRun, runsOfIuid } from '../kube/runs.ts';
import type { Kube } from '../kube/connect.ts';
import { timeoutOption } from './timeout-option.ts';
import { watchRun } from './watch.ts';
import { COMMAND_LINES } from './summaries.ts';

interface SubmitOptions extends SubmitFields {
  watch?: boolean;
  url?: string;
  timeout: number;
}

/**
 * The run a request through the Broker made: the run of the iuid that was
 * there already (the function answers a known iuid with it), else the new
 * one, waited for up to `timeout` seconds.
 */
async function brokerRun(kube: Kube, iuid: string, before: Set<string>, timeout: number): Promise<string> {
  const [known] = before;
  if (known !== undefined) return known;
  const made = await awaitNewRun(kube, iuid, before, AbortSignal.timeout(timeout * 1000));
  if (made) return made.metadata.name!;
  throw new CliError(
    `the Broker took the run request, but no run of iuid ${iuid} appeared within ${timeout}s: the function may have refused it ` +
      "(the Broker hands a refused event, with the function's reason, to its dead-letter sink); send it to the function with --url to read its reply",
  );
}

export function registerSubmit(program: Command, ctx: Ctx): void {
  program
    .command('submit')
    .description(COMMAND_LINES.submit.description)
    .requiredOption('--iuid <id>', "the input's id (names the run)")
    .requiredOption('--turlinfo <url>', "the input's URL, handed to the first module as s3path")
    .option('--scenario <name>', "the CascadeAutoOperator whose scenario runs (default: the function's SCENARIO_NAME)")
    .option('--watch', 'follow the run until it ends, as `watch` does (and exit as it does)')
    .option('--url <url>', "the function's URL (default: the Knative Service's status.url, else the Broker's address)")
    .addOption(timeoutOption('through the Broker: how long to wait for the run to appear'))
    .action(
      act(ctx, async (opts: SubmitOptions, cmd: Command) => {
        const kube = connection(cmd);
        const { namespace } = kube;
        const endpoint = await resolveEndpoint(kube, opts.url);
        const before = endpoint.kind === 'broker' ? await runsOfIuid(kube, opts.iuid) : undefined;
        const req = submitRequest(endpoint, opts);
        const res = await postTo(endpoint.url, req, ctx.io.env, namespace);
        const reply = submitReply(endpoint, opts, res.status, res.text);
        if (!reply.ok) throw new CliError(reply.message);
        const run = reply.run ?? (await brokerRun(kube, opts.iuid, before!, opts.timeout));
        // The function creates the run in its own namespace, which -n may not name.
        const where = reply.namespace ?? namespace;
        ctx.io.out.write(`${run}\n`);
        if (where !== namespace)
          ctx.io.err.write(`cascaderun/${run} is in namespace ${where}: give -n ${where} to other commands\n`);
        if (reply.warning) throw new CliError(reply.warning);
        return opts.watch ? watchRun(ctx.io, { ...kube, namespace: where }, run) : 0;
      }),
    );
}
