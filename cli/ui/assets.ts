// The page's assets: its script (the TypeScript under page/, bundled by
// rolldown, the repo's bundler) and its style sheet. An installed package
// serves the copies `npm run build:ui` wrote to build/ui/; a checkout bundles
// the sources when the ui starts (rolldown is a devDependency), so the page
// is never stale. Nothing comes from a CDN.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface PageAssets {
  js: string;
  css: string;
}

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const fromSources = import.meta.url.endsWith('.ts');

export const PAGE_ENTRY = here('./page/main.ts');
export const PAGE_STYLE = here('./page/style.css');

/** The page's script as one minified ES module. */
export async function bundlePage(): Promise<string> {
  const { build } = await import('rolldown');
  const out = await build({
    input: PAGE_ENTRY,
    write: false,
    platform: 'browser',
    output: { format: 'esm', minify: true, comments: false },
  });
  const chunk = out.output.find((o) => o.type === 'chunk');
  if (!chunk || out.output.filter((o) => o.type === 'chunk').length !== 1)
    throw new Error('ui: the page did not bundle into one script');
  return chunk.code;
}

export async function pageAssets(): Promise<PageAssets> {
  if (fromSources) return { js: await bundlePage(), css: await readFile(PAGE_STYLE, 'utf8') };
  // build/cli/ui/assets.js: the build's copies are in build/ui/.
  const [js, css] = await Promise.all([
    readFile(here('../../ui/app.js'), 'utf8'),
    readFile(here('../../ui/style.css'), 'utf8'),
  ]);
  return { js, css };
}
