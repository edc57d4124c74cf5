// The node flags the image runs the function with: those of
// `npm run start:function` (the same as the image's command and the
// Procfile). The build makes V8's code cache under them (V8 takes a cache only
// from a process with the same flags), and the bench runs the built entry with them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function imageNodeFlags(root = '.'): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return (pkg.scripts['start:function'] ?? '').split(' ').filter((a) => a.startsWith('--'));
}
