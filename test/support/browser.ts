// The page tests' browser (test/support/chromium.ts), their screenshots and axe-core.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { repoRoot } from '../../local/cluster/paths.ts';

export { launchBrowser } from './chromium.ts';

/** Where the page tests write their screenshots. */
export const OUTPUT = join(repoRoot, 'test-results', 'ui');

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
