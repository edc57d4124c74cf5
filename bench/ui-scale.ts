// The ui at scale (issue 27): 10,000 runs in a namespace, made straight
// through the API server with a finished status; then `kubectl cascade ui`'s
// server and a real headless Chromium (local/browser.ts).
// - first screen: from navigation to the first 100 rows drawn and the count
//   of all runs shown; the median of 3 fresh pages.
// - burst: 1,000 runs patched to Running at once while the page filters on
//   Running; the time until it shows all 1,000, and the longest gap between
//   two animation frames meanwhile (a frozen page has a long one).
// Run: CASCADE_KUBECONFIG=... node bench/ui-scale.ts (BENCH_UI_RUNS, BENCH_UI_BURST to change the sizes).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import { pageAssets } from '../cli/ui/assets.ts';
import { startUiServer } from '../cli/ui/server.ts';
import { API_VERSION, CASCADE_RUN_KIND, CASCADE_RUN_PLURAL, GROUP, VERSION } from '../shared/api/group.ts';
import { launchBrowser } from '../local/browser.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { createNamespace, deleteNamespace } from '../local/kube.ts';
import { controlPlane } from './control-plane.ts';

const RUNS = Number(process.env.BENCH_UI_RUNS ?? 10_000);
const BURST = Number(process.env.BENCH_UI_BURST ?? 1000);
const MODULES = ['grayscale', 'binarization', 'diff'];
const log = (m: string) => process.stderr.write(`ui-scale: ${m}\n`);
const at = (ms: number) => new Date(ms).toISOString();

/** A run as the function leaves it when it succeeded, its times spread over the last day. */
function finishedStatus(name: string, i: number) {
  const start = Date.now() - 86_400_000 + i * (86_400_000 / RUNS);
  const modules = MODULES.map((m, step) => ({
    step,
    name: m,
    jobName: `${name}-${m}`,
    phase: 'Succeeded',
    startTime: at(start + step * 3000),
    completionTime: at(start + step * 3000 + 2500 + (i % 7) * 50),
  }));
  const end = at(start + 9000);
  const condition = { type: 'Succeeded', status: 'True', reason: 'Succeeded', message: 'all 3 modules succeeded' };
  return {
    phase: 'Succeeded',
    currentStep: 2,
    currentModule: 'diff',
    startTime: at(start),
    completionTime: end,
    modules,
    conditions: [{ ...condition, lastTransitionTime: end }],
  };
}

async function pool(n: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await work(next++);
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

async function fill(kc: KubeConfig, ns: string): Promise<string[]> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const crd = { group: GROUP, version: VERSION, namespace: ns, plural: CASCADE_RUN_PLURAL };
  const names: string[] = [];
  await pool(RUNS, async (i) => {
    const name = `scale-run-${String(i).padStart(5, '0')}`;
    const spec = { pid: `iuid-${i}`, scenarioname: 'scale', modules: MODULES };
    const body = { apiVersion: API_VERSION, kind: CASCADE_RUN_KIND, metadata: { name }, spec };
    const created = (await api.createNamespacedCustomObject({ ...crd, body })) as object;
    await api.replaceNamespacedCustomObjectStatus({
      ...crd,
      name,
      body: { ...created, status: finishedStatus(name, i) },
    });
    names.push(name);
    if (names.length % 1000 === 0) log(`${names.length} runs`);
  });
  return names;
}

async function firstScreen(page: Page, url: string): Promise<number> {
  const t0 = performance.now();
  await page.goto(url);
  await page.waitForSelector(`text=${RUNS} of ${RUNS} runs`, { timeout: 60_000 });
  await page.waitForFunction("document.querySelectorAll('tbody tr').length === 100");
  return performance.now() - t0;
}

/** Patches BURST runs to Running and waits for the page to show them all; the frame gaps meanwhile. */
async function burst(page: Page, kc: KubeConfig, ns: string, names: string[]) {
  await page.selectOption('select[aria-label="phase"]', 'Running');
  await page.waitForSelector(`text=0 of ${RUNS} runs`);
  // In the page (a string: the bench is type-checked without the DOM): every gap between two animation frames.
  await page.evaluate(`
    window.gaps = [];
    let last = performance.now();
    const frame = (t) => { window.gaps.push(t - last); last = t; requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
  `);
  const api = kc.makeApiClient(CustomObjectsApi);
  const crd = { group: GROUP, version: VERSION, namespace: ns, plural: CASCADE_RUN_PLURAL };
  const patch = [{ op: 'replace', path: '/status/phase', value: 'Running' }];
  const t0 = performance.now();
  await pool(BURST, (i) =>
    api.patchNamespacedCustomObjectStatus({ ...crd, name: names[i]!, body: patch }).then(() => {}),
  );
  const sent = performance.now() - t0;
  await page.waitForSelector(`text=${BURST} of ${RUNS} runs`, { timeout: 120_000 });
  const shown = performance.now() - t0;
  const gaps = (await page.evaluate('window.gaps')) as number[];
  return {
    patchesSentMs: Math.round(sent),
    allShownMs: Math.round(shown),
    frames: gaps.length,
    longestFrameGapMs: Math.round(Math.max(...gaps)),
  };
}

const cp = await controlPlane(log);
const kc = (await import('../local/kube.ts')).kubeConfigFromFile(cp.kubeconfig);
const ns = await createNamespace(kc, 'cascade-bench-ui');
const browser = await launchBrowser();
try {
  const t = performance.now();
  const names = (await fill(kc, ns)).sort();
  log(`${RUNS} runs made in ${Math.round((performance.now() - t) / 1000)} s`);
  const ui = await startUiServer({
    kc,
    namespace: ns,
    address: '127.0.0.1',
    port: 0,
    assets: await pageAssets(),
    context: 'bench',
  });
  const firsts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    firsts.push(Math.round(await firstScreen(page, `${ui.url}runs`)));
    if (i < 2) await page.close();
    else {
      const b = await burst(page, kc, ns, names);
      const figures = {
        runs: RUNS,
        burst: BURST,
        firstScreenMs: firsts,
        firstScreenMedianMs: firsts.sort((x, y) => x - y)[1],
        ...b,
      };
      log(JSON.stringify(figures));
      const dir = join(repoRoot, 'bench', 'results');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, `ui-scale-${new Date().toISOString().replaceAll(':', '-')}.json`),
        JSON.stringify(figures, null, 2),
      );
    }
  }
  await ui.close();
} finally {
  await browser.close();
  await deleteNamespace(kc, ns);
  await cp.stop();
}
