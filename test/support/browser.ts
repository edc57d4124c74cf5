// A real headless Chromium for the page's tests, brought by npm itself: the
// package @sparticuz/chromium ships the binary (brotli-compressed, unpacked to
// the temp directory on first use), and playwright-core drives it. Nothing is
// downloaded at test time, so a fresh machine runs these tests after `npm ci`.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sparticuz from '@sparticuz/chromium';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from '../../local/cluster/paths.ts';

/** Where the page tests write their screenshots. */
export const OUTPUT = join(repoRoot, 'test-results', 'ui');

/** A headless Chromium; `resolve` maps host names to 127.0.0.1 (to try DNS rebinding without DNS). */
export async function launchBrowser(resolve: string[] = []): Promise<Browser> {
  const rules = resolve.map((name) => `MAP ${name} 127.0.0.1`).join(',');
  return chromium.launch({
    executablePath: await sparticuz.executablePath(),
    // Not the package's own args: they turn web security off (same-origin policy, mixed content), which these tests check.
    args: [
      '--no-sandbox',
      '--no-zygote',
      '--font-render-hinting=none',
      ...(rules ? [`--host-resolver-rules=${rules}`] : []),
    ],
    headless: true,
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(OUTPUT, { recursive: true });
  const path = join(OUTPUT, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: number;
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axe.source);
  const found = await page.evaluate(async () => {
    const w = globalThis as unknown as {
      axe: { run(): Promise<{ violations: { id: string; impact?: string; help: string; nodes: unknown[] }[] }> };
    };
    const r = await w.axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, nodes: v.nodes.length }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
