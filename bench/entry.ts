// The function the bench runs (cold start, and the process every other phase
// measures): BENCH_ENTRY, a path from the repository root (or absolute). A
// function module runs under faas-js-runtime's CLI, as `npm start` and the
// tests run functions/cascade/index.ts (the default); a server entry (`.cjs`)
// runs under node as it is, as the image runs
// build/functions/cascade/server.cjs (after `npm run build`).
import { join, resolve } from 'node:path';
import { repoRoot } from '../local/cluster/paths.ts';
import type { FunctionCommand } from '../local/stand-ins/function-process.ts';
import { imageNodeFlags } from '../scripts/image-flags.ts';

export const ENTRY = process.env.BENCH_ENTRY ?? 'functions/cascade/index.ts';

/** The image's node flags (scripts/image-flags.ts), and $BENCH_NODE_FLAGS after them. */
function benchFlags(): string[] {
  return [
    ...imageNodeFlags(repoRoot),
    ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((a) => a.startsWith('--')),
  ];
}

/**
 * A server entry runs as the image runs it (docs/deploy/image.md): NODE_ENV=production,
 * from a directory with no func.yaml (faas-js-runtime reads ./func.yaml when
 * it starts, and the image's WORKDIR has none), here build/.
 */
export function benchFunction(entry = ENTRY): FunctionCommand {
  const file = resolve(repoRoot, entry);
  if (!entry.endsWith('.cjs'))
    return { cwd: repoRoot, args: [join(repoRoot, 'node_modules/faas-js-runtime/bin/cli.js'), file] };
  return { cwd: join(repoRoot, 'build'), args: [...benchFlags(), file], baseEnv: imageEnv(process.env) };
}

/** This process' environment as the image's: NODE_ENV=production (its ENV). */
function imageEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return { ...out, NODE_ENV: 'production' };
}
