// The function the bench runs (cold start, and the process every other phase
// measures): BENCH_ENTRY, a path from the repository root. A function module
// runs under faas-js-runtime's CLI, as `npm start` and the tests run
// functions/cascade/index.ts (the default); a server entry (`.cjs`) runs
// under node as it is, as the image runs build/functions/cascade/server.cjs
// (after `npm run build`).
import { join } from 'node:path';
import { repoRoot } from '../local/cluster/paths.ts';
import type { FunctionCommand } from '../local/function-process.ts';
import { imageNodeFlags } from '../scripts/image-flags.ts';

export const ENTRY = process.env.BENCH_ENTRY ?? 'functions/cascade/index.ts';

/** The image's node flags (scripts/image-flags.ts), and $BENCH_NODE_FLAGS after them. */
function benchFlags(): string[] {
  return [...imageNodeFlags(repoRoot), ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((a) => a.startsWith('--'))];
}

export function benchFunction(entry = ENTRY): FunctionCommand {
  const file = join(repoRoot, entry);
  return { cwd: repoRoot, args: entry.endsWith('.cjs') ? [...benchFlags(), file] : [join(repoRoot, 'node_modules/faas-js-runtime/bin/cli.js'), file] };
}
