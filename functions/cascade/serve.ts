// The deployable function's process: faas-js-runtime serving index.ts, as the
// runtime's CLI (`faas-js-runtime build/functions/cascade/index.js`) serves
// it, with the options the CLI takes from the environment:
// - FUNC_PORT, 8080; FUNC_LOG_LEVEL, warn;
// - FUNC_INCLUDE_RAW; FUNC_BODY_LIMIT, 1 MiB.
// scripts/bundle.ts bundles this file with the runtime and the function into
// build/functions/cascade/function.cjs. The image's command,
// build/functions/cascade/server.cjs, loads it: one file to read and compile
// instead of some 400 modules. V8's code cache for it ships with the build.
import runtime from 'faas-js-runtime';
import * as fn from './index.ts';

/** The options the runtime's start() reads (its declared types lack bodyLimit and describe the probes with Node's response, not fastify's reply). */
export interface RuntimeOptions {
  logLevel: string;
  port: number;
  includeRaw: boolean;
  bodyLimit: number;
}
const start = runtime.start as unknown as (func: typeof fn, options: RuntimeOptions) => Promise<unknown>;

/** The runtime's options from the environment, as its CLI reads them. */
export function runtimeOptions(env: NodeJS.ProcessEnv): RuntimeOptions {
  const d = runtime.defaults;
  return {
    logLevel: env.FUNC_LOG_LEVEL || d.LOG_LEVEL,
    port: Number(env.FUNC_PORT || d.PORT),
    includeRaw: env.FUNC_INCLUDE_RAW ? true : d.INCLUDE_RAW,
    bodyLimit: Number(env.FUNC_BODY_LIMIT || d.BODY_LIMIT),
  };
}

/**
 * Starts the runtime on the function. The runtime calls init() first, so the
 * engine loads and the API server's connection opens while it creates its
 * server, ahead of the first request. As with the CLI, a failure to start is
 * printed and the process ends with exit code 1.
 */
export function serve(env: NodeJS.ProcessEnv = process.env): void {
  const func = { ...fn, init: () => (fn.init(), fn.prefetch()) };
  start(func, runtimeOptions(env)).catch((error: unknown) => {
    console.error(`⛔ ${String(error)}`);
    process.exitCode = 1;
  });
}
