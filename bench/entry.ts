// The function the bench runs (cold start, and the process every other phase
// measures): BENCH_ENTRY, a path from the repository root. A function module
// runs under faas-js-runtime's CLI, as `npm start` and the tests run
// functions/cascade/index.ts (the default); a server entry (`.cjs`) runs
// under node as it is, as the image runs build/functions/cascade/server.cjs
// (after `npm run build`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../local/cluster/paths.ts';
import type { FunctionCommand } from '../local/function-process.ts';

export const ENTRY = process.env.BENCH_ENTRY ?? 'functions/cascade/index.ts';

/** The node flags the image runs its entry with: those of `npm run start:function` (the same as the Containerfile's CMD and the Procfile). */
function imageFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((a) => a.startsWith('--'));
  return [...(pkg.scripts['start:function'] ?? '').split(' ').filter((a) => a.startsWith('--')), ...extra];
}

export function benchFunction(entry = ENTRY): FunctionCommand {
  const file = join(repoRoot, entry);
  return { cwd: repoRoot, args: entry.endsWith('.cjs') ? [...imageFlags(), file] : [join(repoRoot, 'node_modules/faas-js-runtime/bin/cli.js'), file] };
}
