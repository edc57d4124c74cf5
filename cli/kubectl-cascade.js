#!/usr/bin/env node
// The `kubectl-cascade` bin (package.json): plain JavaScript, because Node.js
// strips no TypeScript types under node_modules. In a checkout (also one
// linked by `npm i -g <checkout>` or `npx <checkout>`: the real path is the
// checkout's) it runs the sources, cli/main.ts, on a Node.js that strips
// types; installed from a package (a copy under node_modules), or on a Node.js
// without type stripping, it runs the compiled build/cli/main.js that
// `npm run build` writes (`npm pack` runs it: prepack).
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(realpathSync(fileURLToPath(import.meta.url)));
const source = join(here, 'main.ts');
const compiled = join(here, '..', 'build', 'cli', 'main.js');
const underNodeModules = here.split(sep).includes('node_modules');
const entry = process.features.typescript && !underNodeModules && existsSync(source) ? source : compiled;
if (!existsSync(entry)) {
  process.stderr.write(`kubectl-cascade: ${compiled} is missing: run \`npm run build\` in ${join(here, '..')} (or use Node.js 24, which runs the sources)\n`);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
