// `npm run build:ui`, which `npm pack` runs: the ui's page for the package, build/ui/app.js
// (the page's TypeScript bundled by rolldown) and build/ui/style.css, which
// an installed kubectl-cascade serves (cli/ui/assets.ts).
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundlePage, PAGE_STYLE } from '../cli/ui/assets.ts';

const OUT = resolve('build/ui');
mkdirSync(OUT, { recursive: true });
const js = await bundlePage();
writeFileSync(join(OUT, 'app.js'), js);
copyFileSync(PAGE_STYLE, join(OUT, 'style.css'));
console.log(`build/ui: app.js (${Math.round(js.length / 1024)} KiB) and style.css`);
