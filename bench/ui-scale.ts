// The ui at scale (issue 27), the bench's `ui` phase: `runs` runs in a
// namespace, made straight through the API server with a finished status;
// then `kubectl cascade ui`'s server and a real headless Chromium
// (test/support/chromium.ts).
// - first screen: from navigation to the first 100 rows drawn and the count of
//   all runs shown, timed in the page. One page is opened as the server
//   starts, as `--open` does, so it waits for the server's first list; then 3
//   fresh pages.
// - burst: `burst` runs set to Running at once while the page filters on
//   Running; the time until it shows them all, and the longest gap between two
//   animation frames meanwhile (a frozen page has a long one).
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { pageAssets, type PageAssets } from '../cli/ui/assets.ts';
import { connect } from '../cli/kube/connect.ts';
import { startUiServer, type UiServer } from '../cli/ui/server.ts';
import { API_VERSION, CASCADE_RUN_KIND, CASCADE_RUN_PLURAL, GROUP, VERSION } from '../shared/api/group.ts';
import { fromKubeconfig } from '../shared/kube/connection.ts';
import { restClient, type Rest } from '../shared/kube/rest.ts';
import { launchBrowser } from '../test/support/chromium.ts';
import { createNamespace, deleteNamespace, kubeConfigFromFile } from '../local/kube.ts';

const MODULES = ['grayscale', 'binarization', 'diff'];
/** Requests in flight while the runs are made and changed. */
const AT_ONCE = 32;
const FRESH_PAGES = 3;
const at = (ms: number) => new Date(ms).toISOString();

type RunObject = { metadata: { name: string; resourceVersion: string }; status?: Record<string, unknown> };

/** A run as the function leaves it when it succeeded; the runs' start times spread over the last day. */
function finishedStatus(name: string, i: number, runs: number) {
  const start = Date.now() - 86_400_000 + i * (86_400_000 / runs);
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

/** `work(0)` … `work(n - 1)`, AT_ONCE at a time. */
async function pool(n: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await work(next++);
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
}

const runsPath = (ns: string) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${CASCADE_RUN_PLURAL}`;

/**
 * Makes the runs over one keep-alive client (shared/kube/rest.ts): a create,
 * then its status. Returns each run as the API server last answered, by name.
 */
async function fill(rest: Rest, ns: string, runs: number, log: (m: string) => void): Promise<Map<string, RunObject>> {
  const made = new Map<string, RunObject>();
  await pool(runs, async (i) => {
    const name = `scale-run-${String(i).padStart(5, '0')}`;
    const spec = { pid: `iuid-${i}`, scenarioname: 'scale', modules: MODULES };
    const body = { apiVersion: API_VERSION, kind: CASCADE_RUN_KIND, metadata: { name }, spec };
    const created = await rest<RunObject>('POST', runsPath(ns), { body });
    const status = finishedStatus(name, i, runs);
    made.set(name, await rest<RunObject>('PUT', `${runsPath(ns)}/${name}/status`, { body: { ...created, status } }));
    if (made.size % 1000 === 0) log(`ui: ${made.size} runs made`);
  });
  return made;
}

/**
 * In the page, before its script (a string: the bench is type-checked without
 * the DOM). Times from navigation: the stream's first message; the 100 rows
 * and the count of all in the document; a task after that frame, when it is
 * drawn; and the long tasks, so that the page's busy time after it shows.
 */
const marks = (runs: number) => `
  window.marks = {};
  window.longTasks = [];
  const mark = (k) => { if (!(k in window.marks)) window.marks[k] = performance.now(); };
  const add = EventSource.prototype.addEventListener;
  EventSource.prototype.addEventListener = function (type, fn, o) {
    return add.call(this, type, type === 'snapshot' ? (e) => (mark('stream'), fn(e)) : fn, o);
  };
  new MutationObserver(() => {
    if ('rows' in window.marks || document.querySelectorAll('tbody tr').length !== 100) return;
    if (!document.querySelector('p.status')?.textContent.includes('${runs} of ${runs} runs')) return;
    mark('rows');
    setTimeout(() => mark('shown'), 0);
  }).observe(document, { subtree: true, childList: true, characterData: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.longTasks.push(e.startTime + e.duration);
  }).observe({ type: 'longtask', buffered: true });
`;

export interface FirstScreen {
  /** In the page, from navigation: the 100 rows and the count of all drawn (a task after their frame). */
  ms: number;
  /** The same as the bench saw it: its clock from page.goto, the page polled each frame. */
  seenMs: number;
  /** The page's script received. */
  scriptMs: number;
  /** The stream's first message. */
  streamMs: number;
  /** The end of the last task over 50 ms within 1 s after: the page answers input from then on. */
  busyUntilMs: number;
}

async function firstScreen(page: Page, url: string, runs: number): Promise<FirstScreen> {
  await page.addInitScript(marks(runs));
  const t0 = performance.now();
  await page.goto(url);
  // A function, not a string: the page's CSP forbids eval, which a string polled each frame needs.
  const shown = () => (globalThis as unknown as { marks: { shown?: number } }).marks.shown !== undefined;
  await page.waitForFunction(shown, undefined, { polling: 'raf', timeout: 120_000 });
  const seen = performance.now() - t0;
  await page.waitForTimeout(1000);
  const m = (await page.evaluate(`({
    ...window.marks,
    busy: Math.max(0, ...window.longTasks),
    script: performance.getEntriesByType('resource').find((r) => r.name.endsWith('/app.js'))?.responseEnd,
  })`)) as { stream: number; shown: number; busy: number; script: number };
  const r = Math.round;
  return {
    ms: r(m.shown),
    seenMs: r(seen),
    scriptMs: r(m.script),
    streamMs: r(m.stream),
    busyUntilMs: r(Math.max(m.busy, m.shown)),
  };
}

/** In the page: every gap between two animation frames, and when the status first says `text` (ms since the epoch). */
const watchBurst = (text: string) => `
  window.gaps = [];
  let last = performance.now();
  const frame = (t) => { window.gaps.push(t - last); last = t; requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  new MutationObserver(() => {
    if (window.shownAt === undefined && document.querySelector('p.status')?.textContent.includes('${text}'))
      window.shownAt = performance.timeOrigin + performance.now();
  }).observe(document.querySelector('p.status'), { subtree: true, childList: true, characterData: true });
`;

/** Sets `burst` runs to Running and waits for the page to show them all; the frame gaps meanwhile. */
async function burst(page: Page, rest: Rest, ns: string, made: Map<string, RunObject>, burst: number) {
  const runs = made.size;
  await page.selectOption('select[aria-label="phase"]', 'Running');
  await page.waitForSelector(`text=0 of ${runs} runs`);
  await page.evaluate(watchBurst(`${burst} of ${runs} runs`));
  const chosen = [...made.values()].slice(0, burst);
  const t0 = performance.now();
  await pool(chosen.length, async (i) => {
    const run = chosen[i]!;
    const body = { ...run, status: { ...run.status, phase: 'Running' } };
    await rest('PUT', `${runsPath(ns)}/${run.metadata.name}/status`, { body, discard: true });
  });
  const sent = performance.now() - t0;
  const lastAnswered = Date.now();
  await page.waitForSelector(`text=${burst} of ${runs} runs`, { timeout: 120_000 });
  const { gaps, shownAt } = (await page.evaluate('({ gaps: window.gaps, shownAt: window.shownAt })')) as {
    gaps: number[];
    shownAt: number;
  };
  return {
    changes: burst,
    sentMs: Math.round(sent),
    // Both clocks are the machine's: the page's time origin is one.
    shownAfterLastMs: Math.round(shownAt - lastAnswered),
    frames: gaps.length,
    longestFrameGapMs: Math.round(Math.max(...gaps)),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The server started and a page opened at once; when the server's first list was in, and the page's first screen. */
async function coldStart(browser: Browser, assets: PageAssets, kubeconfig: string, ns: string, runs: number) {
  const t0 = performance.now();
  const ui = await startUiServer({
    kube: connect({ kubeconfig }),
    namespace: ns,
    address: '127.0.0.1',
    port: 0,
    assets,
    context: 'bench',
  });
  // /api/scenarios answers once the first lists are in.
  const listed = fetch(`${ui.url}api/scenarios`).then(() => Math.round(performance.now() - t0));
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const first = await firstScreen(page, `${ui.url}runs`, runs);
  await page.close();
  return { ui, serverListMs: await listed, coldFirstScreenMs: Math.round(performance.now() - t0), first };
}

async function pages(browser: Browser, ui: UiServer, runs: number) {
  const fresh: FirstScreen[] = [];
  let page: Page | undefined;
  for (let i = 0; i < FRESH_PAGES; i++) {
    await page?.close();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    fresh.push(await firstScreen(page, `${ui.url}runs`, runs));
  }
  return { fresh, page: page! };
}

export async function uiScale(kubeconfig: string, sizes: { runs: number; burst: number }, log: (m: string) => void) {
  const assets = await pageAssets();
  const kc = kubeConfigFromFile(kubeconfig);
  const rest = restClient(fromKubeconfig(readFileSync(kubeconfig, 'utf8'), dirname(kubeconfig)));
  const ns = await createNamespace(kc, 'cascade-bench-ui');
  const browser = await launchBrowser();
  try {
    const t = performance.now();
    const made = await fill(rest, ns, sizes.runs, log);
    const makeSeconds = (performance.now() - t) / 1000;
    log(`ui: ${sizes.runs} runs made in ${makeSeconds.toFixed(0)} s`);
    const cold = await coldStart(browser, assets, kubeconfig, ns, sizes.runs);
    try {
      const { fresh, page } = await pages(browser, cold.ui, sizes.runs);
      const b = await burst(page, rest, ns, made, sizes.burst);
      const figures = {
        runs: sizes.runs,
        makeSeconds,
        makeRunsPerSecond: sizes.runs / makeSeconds,
        serverListMs: cold.serverListMs,
        coldFirstScreenMs: cold.coldFirstScreenMs,
        coldPage: cold.first,
        firstScreenMs: median(fresh.map((f) => f.ms)),
        freshPages: fresh,
        burst: b,
      };
      log(`ui: ${JSON.stringify(figures)}`);
      return figures;
    } finally {
      await cold.ui.close();
    }
  } finally {
    await browser.close();
    await deleteNamespace(kc, ns);
  }
}
