// The Cascade function, as faas-js-runtime (and `func`) loads it: `handle` for
// every request on `/`, plus life-cycle hooks.
import type { EngineDeps } from '../../shared/engine/deps.ts';
import { handleRequest } from './handle.ts';
import { fromCloudEvent, fromHttpBody } from './inputs.ts';
import { engineDeps, loadConfig, rootLogger } from './wiring.ts';

interface FunctionContext {
  cloudevent?: { id: string; type: string; data?: unknown };
}

let deps: EngineDeps | undefined;

export function init(): void {
  const config = loadConfig(process.env);
  deps = engineDeps(config, rootLogger(config));
}

export async function handle(context: FunctionContext, body?: unknown) {
  deps ??= (init(), deps);
  const ce = context.cloudevent;
  const req = ce ? fromCloudEvent({ id: ce.id, type: ce.type, data: ce.data }) : fromHttpBody(body);
  const outcome = await handleRequest(deps!, req, ce?.id);
  return { statusCode: outcome.statusCode, headers: { 'content-type': 'application/json' }, body: outcome.body };
}
