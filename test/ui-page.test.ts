// The ui's page in a real headless Chromium (test/support/browser.ts) against
// the real API server, with the function running the scenario: the runs list
// updates live, the timeline's bars are the run's recorded times, cancel works
// and a Forbidden answer is shown, the Host and token checks refuse, and
// axe-core finds no serious violation on any page. Screenshots go to
// test-results/ui/.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { pageAssets } from '../cli/ui/assets.ts';
import { kubeOf } from '../cli/kube/connect.ts';
import { startUiServer, type UiServer } from '../cli/ui/server.ts';
import { connectionOf } from '../local/kube.ts';
import { cascadeHarness, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { launchBrowser, screenshot, seriousViolations } from './support/browser.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { grantViewer } from './support/ui.ts';

vi.setConfig({ testTimeout: 240_000 });

/** What a page's script sees, typed here without the DOM library (the tests run in Node.js). */
interface PageGlobals {
  document: { documentElement: { scrollWidth: number } };
}

let h: Harness;
let ui: UiServer;
let browser: Browser;
const cspErrors: string[] = [];

async function open(path: string, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  await page.goto(new URL(path, ui.url).href);
  return page;
}

async function submit(harness: Harness, iuid: string): Promise<string> {
  const r = await post(harness.url(), { iuid, turlinfo: 's3://in/x.tgz' });
  expect(r, JSON.stringify(r.body)).toMatchObject({ status: 200, body: { run: expect.any(String) } });
  return String(r.body.run);
}

beforeAll(async () => {
  [h, browser] = await Promise.all([
    cascadeHarness({ modules: successScenario(2000) }),
    launchBrowser(['rebind.test']),
  ]);
  ui = await startUiServer({
    kube: kubeOf(connectionOf(adminKubeConfig())),
    namespace: h.ns,
    address: '127.0.0.1',
    port: 0,
    assets: await pageAssets(),
    context: 'test',
  });
});
afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await h?.stop();
});

describe('the runs list', () => {
  it('shows a run as soon as it exists and follows its phase live, without a reload', async () => {
    const page = await open('/');
    await page.waitForSelector('text=0 of 0 runs');
    const name = await submit(h, 'plive1');
    const row = `tr[data-run="${h.ns}/${name}"]`;
    await page.waitForSelector(`${row}[data-phase="Running"]`, { timeout: 30_000 });
    expect(await page.textContent(`${row} td:nth-child(2)`)).toMatch(/Running/);
    await screenshot(page, 'runs-running');
    await page.waitForSelector(`${row}[data-phase="Succeeded"]`, { timeout: 60_000 });
    expect((await page.textContent(`${row} td:nth-child(2)`))?.trim()).toBe('✓ Succeeded');
    expect(await page.textContent(`${row} .step`)).toContain('3/3');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'runs');
    await page.close();
  });

  it('filters by phase and iuid; a link opens the run and the back button returns to the list', async () => {
    const page = await open('/runs');
    await page.waitForSelector('tr[data-run]');
    await page.selectOption('select[aria-label="phase"]', 'Failed');
    await page.waitForSelector('text=0 of 1 runs');
    await page.selectOption('select[aria-label="phase"]', '');
    await page.fill('input[type="search"]', 'no-such-iuid');
    expect(await page.locator('tr[data-run]').count()).toBe(0);
    await page.fill('input[type="search"]', 'plive');
    await page.click('tr[data-run] td:first-child a');
    await page.waitForSelector('svg.timeline');
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/runs/${h.ns}/`));
    await page.goBack();
    await page.waitForSelector('h1:text("Runs")');
    expect(new URL(page.url()).pathname).toBe('/runs');
    await page.close();
  });

  it('reads at a phone width: the page itself does not scroll sideways', async () => {
    const page = await open('/runs', 390);
    await page.waitForSelector('tr[data-run]');
    expect(
      await page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth),
    ).toBeLessThanOrEqual(390);
    await screenshot(page, 'runs-phone');
    await page.close();
  });
});

describe('the run page', () => {
  it("draws one bar per step at the run's recorded times, with conditions, Events and the run-end event", async () => {
    const [run] = await h.listRuns();
    const name = run!.metadata.name!;
    const ended = await h.waitEnded(name);
    const page = await open(`/runs/${h.ns}/${name}`);
    await page.waitForSelector('svg.timeline g.bar-Succeeded');
    const bars = await page.$$eval('svg.timeline g.bar', (gs) =>
      gs.map((g) => ({
        step: g.getAttribute('data-step'),
        kind: g.getAttribute('data-kind'),
        start: g.getAttribute('data-start'),
        end: g.getAttribute('data-end'),
      })),
    );
    const recorded = ended.status!.modules!.map((m) => ({
      step: String(m.step),
      kind: 'Succeeded',
      start: new Date(m.startTime!).toISOString(),
      end: new Date(m.completionTime!).toISOString(),
    }));
    // A step whose pod the API server still has is split: waiting for its pod, then its phase.
    const steps = [...new Set(bars.filter((b) => b.kind !== 'queued').map((b) => b.step))].map((step) => {
      const own = bars.filter((b) => b.step === step);
      return { step, kind: own.at(-1)!.kind, start: own[0]!.start, end: own.at(-1)!.end };
    });
    expect(steps).toEqual(recorded);
    const text = await page.textContent('main');
    expect(text).toContain('Run-end eventsent');
    expect(text).toMatch(/SucceededTrue/);
    expect(text).toContain(`CascadeRun/${name}`);
    await page.click('button[aria-label^="Logs of step 1"]');
    await page.waitForSelector('.logs >> text=no pod of Job');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'run');
    await page.close();
  });
});

describe('the scenario page', () => {
  it('shows the modules, the counters and the two charts', async () => {
    const page = await open(`/scenarios/${h.ns}/${SCENARIO}`);
    await page.waitForSelector('svg.chart');
    const text = await page.textContent('main');
    expect(text).toMatch(/Succeeded[1-9]/);
    expect(await page.$$eval('ol.modules li', (li) => li.map((l) => l.textContent))).toEqual([
      'grayscale',
      'binarization',
      'diff',
    ]);
    expect(await page.locator('svg.chart').count()).toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'scenario');
    await page.close();
  });
});

describe('security in the browser', () => {
  it('a page served under another host name gets no page and no token (DNS rebinding)', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`http://rebind.test:${new URL(ui.url).port}/`);
    expect(res?.status()).toBe(403);
    expect(await page.content()).not.toContain(ui.token);
    await page.close();
  });

  it('an action without the token is refused, from the page itself too', async () => {
    const [run] = await h.listRuns();
    const page = await open('/runs');
    const status = await page.evaluate(
      async (path) => (await fetch(path, { method: 'POST' })).status,
      `/api/runs/${h.ns}/${run!.metadata.name}/cancel`,
    );
    expect(status).toBe(403);
    await page.close();
  });

  it('the page runs under its Content-Security-Policy without a violation', () => {
    expect(cspErrors).toEqual([]);
  });
});

describe('cancel from the page', () => {
  it('cancels a run in flight after a confirmation, then resumes it; a user without the right sees Forbidden', async () => {
    const c = await cascadeHarness({ modules: successScenario(600_000) });
    const server = await startUiServer({
      kube: kubeOf(connectionOf(adminKubeConfig())),
      namespace: c.ns,
      address: '127.0.0.1',
      port: 0,
      assets: await pageAssets(),
      context: 't',
    });
    try {
      const name = await submit(c, 'pcancel1');
      await waitFor(async () => (await c.getRun(name)).status?.phase === 'Running', {
        timeoutMs: 60_000,
        message: 'Running',
      });
      // The first step's pod runs: its bar is split at the pod's start, waiting for its pod, then running.
      const job = (await c.getRun(name)).status!.modules![0]!.jobName;
      const podStart = await waitFor(
        async () => {
          const pods = await adminKubeConfig()
            .makeApiClient(CoreV1Api)
            .listNamespacedPod({ namespace: c.ns, labelSelector: `batch.kubernetes.io/job-name=${job}` });
          return pods.items[0]?.status?.containerStatuses?.[0]?.state?.running?.startedAt;
        },
        { timeoutMs: 60_000, message: `the pod of ${job} running` },
      );
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${server.url}runs/${c.ns}/${name}`);
      await page.waitForSelector('svg.timeline g.bar-Running');
      const split = await page.$$eval('svg.timeline g.bar[data-step="0"]', (gs) =>
        gs.map((g) => [g.getAttribute('data-kind'), g.getAttribute('data-start'), g.getAttribute('data-end')]),
      );
      const ran = new Date(podStart).toISOString();
      const stepStart = (await c.getRun(name)).status!.modules![0]!.startTime!;
      // The pod's start has whole seconds: one in the step's first second comes before the step's start, and splits nothing.
      if (Date.parse(ran) > Date.parse(stepStart)) {
        expect(split.map(([kind]) => kind)).toEqual(['Pending', 'Running']);
        expect([split[0]![1], split[0]![2], split[1]![1]]).toEqual([new Date(stepStart).toISOString(), ran, ran]);
      } else expect(split.map(([kind]) => kind)).toEqual(['Running']);
      page.once('dialog', (d) => void d.accept());
      await page.click('button[data-action="cancel"]');
      await page.waitForSelector('.answer-done', { timeout: 60_000 });
      expect(await page.textContent('.answer-done')).toBe(`cascaderun/${name} cancelled`);
      await page.waitForSelector('svg.timeline g.bar-Cancelled');
      expect((await c.getRun(name)).status?.phase).toBe('Cancelled');
      await screenshot(page, 'run-cancelled');
      page.once('dialog', (d) => void d.accept());
      await page.click('button[data-action="resume"]');
      await page.waitForSelector('.answer-done:has-text("resumed")', { timeout: 60_000 });
      expect(await page.textContent('.answer-done')).toMatch(
        new RegExp(`^cascaderun/${name} resumed \\(phase \\w+\\)$`),
      );
      await page.waitForSelector('svg.timeline g.bar-Running');
      expect((await c.getRun(name)).status?.resumes).toBe(1);
      await page.close();

      const viewer = await grantViewer(c.ns);
      const other = await startUiServer({
        kube: kubeOf(connectionOf(viewer)),
        namespace: c.ns,
        address: '127.0.0.1',
        port: 0,
        assets: await pageAssets(),
        context: 'viewer',
      });
      try {
        const p = await browser.newPage();
        await p.goto(`${other.url}runs/${c.ns}/${name}`);
        await p.waitForSelector('button[data-action="cancel"]:not([disabled])', { timeout: 30_000 });
        p.once('dialog', (d) => void d.accept());
        await p.click('button[data-action="cancel"]');
        await p.waitForSelector('.answer-error');
        expect(await p.textContent('.answer-error')).toMatch(/^Error from server \(Forbidden\): .*cannot patch/);
        await screenshot(p, 'run-forbidden');
        await p.close();
      } finally {
        await other.close();
      }
    } finally {
      await server.close();
      await c.stop();
    }
  });
});
