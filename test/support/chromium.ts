// A real headless Chromium for the ui's tests and bench, brought by npm
// itself: the package @sparticuz/chromium ships the binary (brotli-compressed,
// unpacked to the temp directory on first use), and playwright-core drives it.
// Nothing is downloaded at run time, so a fresh machine has it after `npm ci`.
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

const ARGS = [
  '--no-sandbox',
  '--no-zygote',
  '--font-render-hinting=none',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/** A headless Chromium; `resolve` maps host names to 127.0.0.1 (to try DNS rebinding without DNS). */
export async function launchBrowser(resolve: string[] = []): Promise<Browser> {
  const rules = resolve.map((name) => `MAP ${name} 127.0.0.1`).join(',');
  return chromium.launch({
    executablePath: await sparticuz.executablePath(),
    // Not the package's own args: they turn web security off (same-origin policy, mixed content), which the tests check.
    // No background networking: this machine's closed network refuses it, and the page needs none.
    args: [...ARGS, ...(rules ? [`--host-resolver-rules=${rules}`] : [])],
    headless: true,
  });
}
