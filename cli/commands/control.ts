// `cancel RUN` and `resume RUN`. By default the request goes through the API
// server, as `kubectl annotate` sends it: the run's request annotation gets a
// new value, and the command follows the run until its status records that
// value handled. With --url it is the run-control CloudEvent, sent to the
// function (or the Broker). Either way the run tells what happened, and the
// exit status is 0 only when the run shows the request took effect.
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { controlOutcome, controlRequest, type Action } from '../endpoint/run-control.ts';
import { postTo } from '../endpoint/resolve.ts';
import { CliError } from '../io.ts';
import type { Kube } from '../kube/connect.ts';
import { followRun, getRun, patchRun } from '../kube/runs.ts';
import {
  annotationPatch,
  controlResult,
  handledValue,
  REQUEST_ANNOTATION,
  requestValue,
} from '../runs/control-result.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';
import { timeoutOption } from './timeout-option.ts';
import { phaseOf, type RunObject } from '../runs/run-object.ts';
import { COMMAND_LINES } from './summaries.ts';

interface ControlOptions {
  url?: string;
  timeout: number;
}

/** Through the API server: the annotation set, then the run followed until it records the value handled. */
async function byAnnotation(conn: Kube, action: Action, before: RunObject, timeoutSeconds: number): Promise<RunObject> {
  const name = before.metadata.name!;
  const key = REQUEST_ANNOTATION[action];
  const value = requestValue(Date.now(), before.metadata.annotations?.[key]);
  await patchRun(conn, conn.namespace, name, annotationPatch(before, key, value));
  const signal = AbortSignal.timeout(timeoutSeconds * 1000);
  const after = await followRun(conn, name, () => {}, { signal, until: (r) => handledValue(action, r) === value });
  if (handledValue(action, after) !== value) {
    throw new CliError(
      `cascaderun/${name} has not handled the ${action} request within ${timeoutSeconds}s (phase ${phaseOf(after)}): ` +
        `it stays pending in its annotation ${key}=${value}, for the function (through the ApiServerSource) or the janitor's sweep`,
    );
  }
  return after;
}

/**
 * Through a URL: the CloudEvent, then the run read after the function's 200
 * (it answers once the request is applied), or followed after a Broker's 202
 * (it only took the event).
 */
async function byEvent(
  conn: Kube,
  action: Action,
  before: RunObject,
  opts: ControlOptions & { env: Ctx['io']['env'] },
): Promise<RunObject> {
  const name = before.metadata.name!;
  const req = controlRequest(action, name);
  const res = await postTo(opts.url!, req, opts.env);
  const outcome = controlOutcome(action, res.status, res.text);
  if (!outcome.ok) throw new CliError(outcome.message);
  if (res.status !== 202) return getRun(conn, conn.namespace, name);
  const signal = AbortSignal.timeout(opts.timeout * 1000);
  return followRun(conn, name, () => {}, {
    signal,
    until: (r) => controlResult(action, name, before, r).state !== 'pending',
  });
}

export function registerControl(program: Command, ctx: Ctx, action: Action): void {
  program
    .command(action)
    .argument('<run>', "the CascadeRun's name")
    .description(COMMAND_LINES[action].description)
    .option(
      '--url <url>',
      "send the run-control CloudEvent to this URL (the function's, or the Broker's) instead of annotating the run",
    )
    .addOption(timeoutOption('how long to wait for the run to show the request handled'))
    .action(
      act(ctx, async (name: string, opts: ControlOptions, cmd: Command) => {
        const conn = connection(cmd);
        const before = await getRun(conn, conn.namespace, name); // a run that does not exist is named as kubectl names it
        const after = opts.url
          ? await byEvent(conn, action, before, { ...opts, env: ctx.io.env })
          : await byAnnotation(conn, action, before, opts.timeout);
        const result = controlResult(action, name, before, after);
        if (result.state === 'pending')
          throw new CliError(
            `the ${action} was taken, but cascaderun/${name} shows no ${action} (phase ${phaseOf(after)})`,
          );
        if (result.state === 'nothing') {
          ctx.io.err.write(`error: ${result.message}\n`);
          return EXIT_ERROR;
        }
        ctx.io.out.write(`${result.message}\n`);
        return 0;
      }),
    );
}
