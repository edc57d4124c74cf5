// `kubectl cascade ui`'s server against the real API server: the runs list,
// the event stream's update when a run changes, the run's detail, the Host and
// token checks, cancel through the API server, and the API server's Forbidden
// passed on as it is. Plain HTTP requests; the page itself is tested in a
// browser (ui-page.test.ts).
import { spawn } from 'node:child_process';
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { kubeOf } from '../cli/kube/connect.ts';
import { startUiServer, type UiServer } from '../cli/ui/server.ts';
import { connectionOf } from '../local/kube.ts';
import {
  FIRST_SCREEN,
  newestFirst,
  TOKEN_HEADER,
  type ActionAnswer,
  type Changes,
  type RunDetail,
  type RunSummary,
  type Snapshot,
  type SnapshotRest,
} from '../cli/ui/protocol.ts';
import { cascadeHarness, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cli, CLI_BIN } from './support/cli.ts';
import {
  adminKubeConfig,
  adminKubeconfigPath,
  createTestNamespace,
  serviceAccountKubeConfig,
  waitFor,
} from './support/kube.ts';
import { openStream, raw } from './support/ui.ts';

vi.setConfig({ testTimeout: 180_000 });

const ASSETS = { js: 'export {};', css: 'body{}' };
let h: Harness;
let ui: UiServer;

const start = (kc = adminKubeConfig()) =>
  startUiServer({
    kube: kubeOf(connectionOf(kc)),
    namespace: h.ns,
    address: '127.0.0.1',
    port: 0,
    assets: ASSETS,
    context: 'test',
    actionWaitMs: 60_000,
  });

const submit = async (iuid: string) => {
  const r = await post(h.url(), { iuid, turlinfo: 's3://in/x.tgz' });
  expect(r.status).toBe(200);
  return String(r.body.run);
};

beforeAll(async () => {
  h = await cascadeHarness({ modules: successScenario(1500) });
  ui = await start();
});
afterAll(async () => {
  await ui?.close();
  await h?.stop();
});

describe('the ui server', () => {
  it('serves the page with its token and a strict CSP; deep links answer the same page', async () => {
    const page = await raw(ui.url, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<meta name="cascade-token" content="${ui.token}">`);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect((await raw(ui.url, 'GET', `/runs/${h.ns}/some-run`)).text).toBe(page.text);
    expect((await raw(ui.url, 'GET', '/app.js')).text).toBe(ASSETS.js);
    expect((await raw(ui.url, 'GET', '/nope')).status).toBe(404);
    expect((await raw(ui.url, 'DELETE', '/api/runs')).status).toBe(405);
  });

  it('streams a snapshot, then each change of a run, within a second; the list and detail agree', async () => {
    const stream = openStream(ui.url);
    try {
      const snapshot = await stream.next((m) => (m.event === 'snapshot' ? (m.data as Snapshot) : undefined));
      expect(snapshot.scope).toEqual({ namespace: h.ns, allNamespaces: false });
      expect(snapshot.scenarios.map((s) => [s.name, s.modules])).toEqual([
        [SCENARIO, ['grayscale', 'binarization', 'diff']],
      ]);
      const name = await submit('ui-live-1');
      const seen = (phase: string) =>
        stream.next((m) =>
          m.event === 'changes'
            ? (m.data as Changes).runs.find((r) => r.name === name && r.phase === phase)
            : undefined,
        );
      const running = await seen('Running');
      expect(running).toMatchObject({ namespace: h.ns, scenario: SCENARIO, iuid: 'ui-live-1', steps: 3 });
      const ended = await seen('Succeeded');
      expect(ended.step).toBe(3);
      const settled = await h.waitEnded(name);
      const patch = [{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }];
      const sent = Date.now();
      await h.custom.patchNamespacedCustomObject({
        group: 'cascade.cascade.net',
        version: 'v1alpha1',
        plural: 'cascaderuns',
        namespace: h.ns,
        name,
        body: patch,
      });
      await stream.next((m) =>
        m.event === 'changes'
          ? (m.data as Changes).runs.find(
              (r) => r.name === name && Number(r.resourceVersion) > Number(settled.metadata.resourceVersion),
            )
          : undefined,
      );
      expect(Date.now() - sent).toBeLessThan(1000);
      const listed = JSON.parse((await raw(ui.url, 'GET', '/api/runs')).text) as RunSummary[];
      expect(listed.find((r) => r.name === name)).toMatchObject({ phase: 'Succeeded', start: ended.start });
      const detail = JSON.parse((await raw(ui.url, 'GET', `/api/runs/${h.ns}/${name}`)).text) as RunDetail;
      const run = await h.getRun(name);
      expect((detail.run as typeof run).status?.modules).toEqual(run.status?.modules);
      expect(detail.errors).toEqual([]);
      expect(detail.events.map((e) => e.object)).toContain(`CascadeRun/${name}`);
      const logs = JSON.parse((await raw(ui.url, 'GET', `/api/runs/${h.ns}/${name}/logs?step=0`)).text) as {
        gone?: string;
      };
      expect(logs.gone).toMatch(/^no pod of Job /);
    } finally {
      await stream.close();
    }
  });

  it('sends the first screen first: the newest 100 runs and the count of all, then the other runs', async () => {
    const ns = await createTestNamespace('cascade-test-ui-many');
    const custom = adminKubeConfig().makeApiClient(CustomObjectsApi);
    const crd = { group: 'cascade.cascade.net', version: 'v1alpha1', plural: 'cascaderuns', namespace: ns };
    const made = FIRST_SCREEN + 30;
    for (let i = 0; i < made; i++) {
      const metadata = { name: `many-${String(i).padStart(3, '0')}` };
      const spec = { pid: `iuid-${i}`, scenarioname: SCENARIO, modules: ['grayscale'] };
      await custom.createNamespacedCustomObject({
        ...crd,
        body: { apiVersion: 'cascade.cascade.net/v1alpha1', kind: 'CascadeRun', metadata, spec },
      });
    }
    const many = await startUiServer({
      kube: kubeOf(connectionOf(adminKubeConfig())),
      namespace: ns,
      address: '127.0.0.1',
      port: 0,
      assets: ASSETS,
      context: 'test',
    });
    // `ready`, which --open waits for, comes once every run is read.
    await many.ready;
    expect(many.state.runs.size).toBe(made);
    const stream = openStream(many.url);
    try {
      const snapshot = await stream.next((m) => (m.event === 'snapshot' ? (m.data as Snapshot) : undefined));
      const rest = await stream.next((m) => (m.event === 'rest' ? (m.data as SnapshotRest) : undefined));
      const listed = (JSON.parse((await raw(many.url, 'GET', '/api/runs')).text) as RunSummary[]).sort(newestFirst);
      expect(listed).toHaveLength(made);
      expect(snapshot.total).toBe(made);
      expect(snapshot.runs).toEqual(listed.slice(0, FIRST_SCREEN));
      expect(rest.runs.sort(newestFirst)).toEqual(listed.slice(FIRST_SCREEN));
      expect(stream.messages.map((m) => m.event).slice(0, 2)).toEqual(['snapshot', 'rest']);
    } finally {
      await stream.close();
      await many.close();
    }
  });

  it('refuses a Host other than the address it serves (DNS rebinding), for the page and the API', async () => {
    const port = new URL(ui.url).port;
    for (const host of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
      for (const path of ['/', '/api/runs', '/api/stream']) {
        const r = await raw(ui.url, 'GET', path, { host });
        expect(r.status, `${host} ${path}`).toBe(403);
        expect(r.text).not.toContain(ui.token);
      }
    }
    expect((await raw(ui.url, 'GET', '/api/runs', { host: `localhost:${port}` })).status).toBe(200);
  });

  it('refuses an action without the token, with a wrong one, or from another origin; the run is not touched', async () => {
    const [run] = await h.listRuns();
    const path = `/api/runs/${h.ns}/${run!.metadata.name}/cancel`;
    const cases: Record<string, string>[] = [
      {},
      { [TOKEN_HEADER]: 'x'.repeat(ui.token.length) },
      { [TOKEN_HEADER]: ui.token, origin: 'http://evil.example' },
    ];
    for (const headers of cases) {
      const r = await raw(ui.url, 'POST', path, headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
    }
    const after = await h.getRun(run!.metadata.name!);
    expect(after.metadata.annotations?.['cascade.cascade.net/cancel-requested-at']).toBeUndefined();
  });
});

describe('cancel from the ui', () => {
  it('cancels a run in flight through the API server; the answer and the run say Cancelled', async () => {
    const c = await cascadeHarness({ modules: successScenario(600_000) });
    const server = await startUiServer({
      kube: kubeOf(connectionOf(adminKubeConfig())),
      namespace: c.ns,
      address: '127.0.0.1',
      port: 0,
      assets: ASSETS,
      context: 't',
    });
    try {
      const r = await post(c.url(), { iuid: 'ui-cancel-1', turlinfo: 's3://in/x.tgz' });
      const name = String(r.body.run);
      await waitFor(async () => (await c.getRun(name)).status?.phase === 'Running', {
        timeoutMs: 60_000,
        message: 'Running',
      });
      const answer = await raw(server.url, 'POST', `/api/runs/${c.ns}/${name}/cancel`, {
        [TOKEN_HEADER]: server.token,
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text) as ActionAnswer).toEqual({
        state: 'done',
        message: `cascaderun/${name} cancelled`,
      });
      expect((await c.getRun(name)).status?.phase).toBe('Cancelled');
      const again = await raw(server.url, 'POST', `/api/runs/${c.ns}/${name}/cancel`, { [TOKEN_HEADER]: server.token });
      expect(JSON.parse(again.text)).toMatchObject({
        state: 'nothing',
        message: `cascaderun/${name} had already ended Cancelled: nothing to cancel`,
      });
    } finally {
      await server.close();
      await c.stop();
    }
  });

  it("passes the API server's Forbidden on as it is, for a user who may read runs but not annotate them", async () => {
    const admin = adminKubeConfig();
    await admin
      .makeApiClient(CoreV1Api)
      .createNamespacedServiceAccount({ namespace: h.ns, body: { metadata: { name: 'viewer' } } });
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: h.ns,
      body: {
        metadata: { name: 'run-viewer' },
        rules: [
          {
            apiGroups: ['cascade.cascade.net'],
            resources: ['cascaderuns', 'cascadeautooperators'],
            verbs: ['get', 'list', 'watch'],
          },
        ],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: h.ns,
      body: {
        metadata: { name: 'viewer-run-viewer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'run-viewer' },
        subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace: h.ns }],
      },
    });
    const server = await start(await serviceAccountKubeConfig(h.ns, 'viewer'));
    try {
      const name = await submit('ui-viewer-1');
      // RBAC takes a moment to reach the API server's authorizer: the ui lists again after a refusal.
      await waitFor(
        async () =>
          (JSON.parse((await raw(server.url, 'GET', '/api/runs')).text) as RunSummary[]).some((r) => r.name === name),
        { timeoutMs: 30_000, message: 'the viewer lists the run' },
      );
      const answer = await raw(server.url, 'POST', `/api/runs/${h.ns}/${name}/cancel`, {
        [TOKEN_HEADER]: server.token,
      });
      expect(answer.status).toBe(403);
      const body = JSON.parse(answer.text) as ActionAnswer;
      expect(body).toMatchObject({ state: 'error', status: 403 });
      expect(body.message).toMatch(/^Error from server \(Forbidden\): .*cannot patch resource "cascaderuns"/);
      const detail = JSON.parse((await raw(server.url, 'GET', `/api/runs/${h.ns}/${name}`)).text) as RunDetail;
      expect(detail.errors.join('\n')).toMatch(/Forbidden/);
    } finally {
      await server.close();
    }
  });
});

describe('kubectl cascade ui', () => {
  it('prints its URL, serves the bundled page, and ends with 130 on Ctrl-C', async () => {
    const name = await submit('ui-cli-1');
    const child = spawn(CLI_BIN, ['--kubeconfig', adminKubeconfigPath(), '-n', h.ns, 'ui', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let out = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: string) => {
        out += c;
        const m = /^Cascade ui on (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl-C stops it\)$/m.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`ui ended before its URL: ${out}`)));
    });
    const page = await raw(url, 'GET', '/');
    expect(page.text).toMatch(/<meta name="cascade-token" content="[\w-]{43}">/);
    const script = await raw(url, 'GET', '/app.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text.length).toBeGreaterThan(5000);
    expect(script.text).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    const runs = JSON.parse((await raw(url, 'GET', '/api/runs')).text) as RunSummary[];
    expect(runs.map((r) => r.name)).toContain(name);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  });

  it('names a port in use and exits 1', async () => {
    const port = new URL(ui.url).port;
    const r = await cli(['ui', '--port', port], { namespace: h.ns });
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: port ${port} is in use on 127.0.0.1: give another with --port, or --port 0 for any free one\n`,
    });
  });
});
