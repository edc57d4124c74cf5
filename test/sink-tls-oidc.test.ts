// Run-end events to a sink under Eventing's transport encryption and OIDC
// (README, issue 23 §5): SinkBinding injects K_CA_CERTS and mounts the token
// at /oidc/token. The sender trusts the CA beside the system's, sends
// `Authorization: Bearer <token>`, and reads the token again at each attempt,
// as Eventing renews it. Shown with the sender alone, then with the function
// and the janitor as real processes, against an HTTPS sink that checks the token.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HTTP } from 'cloudevents';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_SUCCEEDED, type RunEndEvent } from '../shared/api/events.ts';
import { sinkNotifier, type SinkPolicy } from '../shared/engine/sink/sink.ts';
import { sinkTransport } from '../shared/engine/sink/sink-transport.ts';
import { tempDir } from '../local/temp-dir.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, post, type Harness } from './support/cascade-harness.ts';
import { httpsSink, type HttpsSink } from './support/https-sink.ts';
import { janitorEnv, runJanitorProcess } from './support/janitor.ts';
import { waitFor } from './support/kube.ts';

const EVENT: RunEndEvent = {
  id: 'uid-1-succeeded',
  type: RUN_SUCCEEDED,
  source: '/cascade/ns/cao',
  subject: 'cao-abc',
  time: '2026-11-29T12:00:00.000Z',
  data: { runname: 'cao-abc', phase: 'Succeeded' },
};
/** A trust bundle directory that is not there: no bundles mounted. */
const NO_BUNDLES = '/nonexistent/knative-custom-certs';
const ONCE: SinkPolicy = { retries: 0, minTimeoutMs: 10, maxTimeoutMs: 10, attemptTimeoutMs: 5000 };
/** A retry 2-4 s after the first attempt: time for the test to renew the token in between. */
const TWICE: SinkPolicy = { ...ONCE, retries: 1, minTimeoutMs: 2000, maxTimeoutMs: 2000 };

let sink: HttpsSink | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

/** A logger that keeps what it writes, to read the warnings back. */
function keptLog() {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino(
    { level: 'debug' },
    {
      write: (s: string) => {
        lines.push(JSON.parse(s) as { level: number; msg: string });
      },
    },
  );
  return { log, warnings: () => lines.filter((l) => l.level === 40).map((l) => l.msg) };
}

describe('the run-end sender under TLS and OIDC', () => {
  it('trusts K_CA_CERTS, sends the mounted token, and reads it again after a renewal', async () => {
    sink = await httpsSink();
    await sink.rotate('token-1');
    const { log, warnings } = keptLog();
    const notify = sinkNotifier(
      {
        url: sink.url,
        extensions: { cluster: 'c' },
        transport: sinkTransport({ caCerts: sink.ca, tokenFile: sink.tokenFile, trustBundleDir: NO_BUNDLES }, log),
      },
      log,
      ONCE,
    );

    expect(await notify(EVENT)).toBe(true);
    // Eventing renews the token: the next send carries the new one, no restart.
    await sink.rotate('token-2');
    expect(await notify(EVENT)).toBe(true);
    expect(sink.received.map((r) => [r.status, r.authorization])).toEqual([
      [202, 'Bearer token-1'],
      [202, 'Bearer token-2'],
    ]);
    const event = HTTP.toEvent({ headers: sink.received[0]!.headers, body: sink.received[0]!.body });
    expect(event).toMatchObject({ id: EVENT.id, type: RUN_SUCCEEDED, cluster: 'c', data: EVENT.data });
    expect(warnings()).toEqual([]);
  });

  it('a token renewed between two attempts: the retry carries the new one', async () => {
    sink = await httpsSink();
    await sink.rotate('old');
    const { log } = keptLog();
    const notify = sinkNotifier(
      {
        url: sink.url,
        extensions: {},
        transport: sinkTransport({ caCerts: sink.ca, tokenFile: sink.tokenFile, trustBundleDir: NO_BUNDLES }, log),
      },
      log,
      TWICE,
    );
    // The sink has moved on to a token the file does not hold yet: the first attempt is refused.
    await sink.rotate('new', false);
    const sent = notify(EVENT);
    await waitFor(() => sink!.received.length > 0, { message: 'the first attempt refused', intervalMs: 20 });
    await sink.rotate('new');
    expect(await sent).toBe(true);
    expect(sink.received.map((r) => [r.status, r.authorization])).toEqual([
      [401, 'Bearer old'],
      [202, 'Bearer new'],
    ]);
  });

  it('trusts the CA of a trust bundle SinkBinding mounted, without K_CA_CERTS', async () => {
    sink = await httpsSink();
    await sink.rotate('t');
    const { log, warnings } = keptLog();
    // As the kubelet projects a ConfigMap: the keys, beside its hidden ..data directory.
    const bundles = tempDir('cascade-trust-bundles-');
    mkdirSync(join(bundles, '..data'));
    writeFileSync(join(bundles, 'ca.pem'), sink.ca);
    const notify = sinkNotifier(
      {
        url: sink.url,
        extensions: {},
        transport: sinkTransport({ caCerts: undefined, tokenFile: sink.tokenFile, trustBundleDir: bundles }, log),
      },
      log,
      ONCE,
    );
    expect(await notify(EVENT)).toBe(true);
    expect(sink.received.map((r) => [r.status, r.authorization])).toEqual([[202, 'Bearer t']]);
    expect(warnings()).toEqual([]);
  });

  it('without the CA the https sink is not trusted; without a token file no header is sent; a K_CA_CERTS TLS cannot use is a warning, not a crash', async () => {
    sink = await httpsSink();
    await sink.rotate('t');
    const { log, warnings } = keptLog();
    const url = sink.url;
    const noCa = sinkNotifier(
      {
        url,
        extensions: {},
        transport: sinkTransport({ caCerts: undefined, tokenFile: sink.tokenFile, trustBundleDir: NO_BUNDLES }, log),
      },
      log,
      ONCE,
    );
    expect(await noCa(EVENT)).toBe(false);
    expect(sink.received, 'the TLS handshake failed: nothing reached the sink').toEqual([]);

    const noToken = sinkNotifier(
      {
        url,
        extensions: {},
        transport: sinkTransport(
          { caCerts: sink.ca, tokenFile: `${sink.tokenFile}.absent`, trustBundleDir: NO_BUNDLES },
          log,
        ),
      },
      log,
      ONCE,
    );
    expect(await noToken(EVENT)).toBe(false);
    expect(sink.received.map((r) => [r.status, r.authorization])).toEqual([[401, undefined]]);

    const garbled = sinkTransport(
      {
        caCerts: '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n',
        tokenFile: sink.tokenFile,
        trustBundleDir: NO_BUNDLES,
      },
      log,
    );
    expect(warnings()).toContainEqual(
      expect.stringMatching(/K_CA_CERTS or a trust bundle holds PEM certificates that do not parse/),
    );
    expect(await sinkNotifier({ url, extensions: {}, transport: garbled }, log, ONCE)(EVENT)).toBe(false);
    expect(sink.received).toHaveLength(1);
  });
});

describe('the function and the janitor under TLS and OIDC', () => {
  it('the function sends the run-end event with the CA and token; a refused event stays owed, and the janitor sends it with the renewed token', async () => {
    sink = await httpsSink();
    await sink.rotate('fn-token');
    const env = { K_SINK: sink.url, K_CA_CERTS: sink.ca, CASCADE_OIDC_TOKEN_FILE: sink.tokenFile };
    h = await cascadeHarness({
      modules: successScenario(600_000),
      source: false,
      env: { ...env, K_CE_OVERRIDES: '{"extensions":{"Cluster":"a"}}', LOG_LEVEL: 'info' },
    });
    expect(h.fns[0]!.output(), 'an upper-case name Knative admits: a warning, and the function serves').toContain(
      '\\"Cluster\\" is sent as \\"cluster\\"',
    );

    const start = async (iuid: string) => {
      const reply = await post(h!.url(), { turlinfo: `s3://in/${iuid}.tgz`, iuid, oname: 'org', sname: 'src' });
      expect(reply.status).toBe(200);
      const name = String(reply.body.run);
      for (const m of ['grayscale', 'binarization', 'diff']) {
        expect((await post(h!.url(), { runname: name, modulename: m, moduleresult: 'success' })).status).toBe(200);
      }
      return name;
    };

    const first = await start('e23s5-a');
    const ended = await h.waitEnded(first);
    await waitFor(async () => (await h!.getRun(first)).status?.notified === true, {
      message: 'the run-end event delivered',
    });
    const delivered = sink.received.filter((r) => r.status === 202);
    expect(delivered.map((r) => r.authorization)).toEqual(['Bearer fn-token']);
    expect(HTTP.toEvent({ headers: delivered[0]!.headers, body: delivered[0]!.body })).toMatchObject({
      id: `${ended.metadata.uid}-succeeded`,
      cluster: 'a',
    });

    // The sink moves to a token the file does not hold yet: every attempt is refused, the event stays owed.
    await sink.rotate('renewed', false);
    const second = await start('e23s5-b');
    await waitFor(() => h!.fns[0]!.output().includes('run-end event not delivered to K_SINK'), {
      message: 'the refused delivery logged',
    });
    expect((await h.getRun(second)).status).toMatchObject({ phase: 'Succeeded', notified: false });
    expect(sink.received.filter((r) => r.status === 401).every((r) => r.authorization === 'Bearer fn-token')).toBe(
      true,
    );

    // The renewal reaches the file; the janitor, with a K_CE_OVERRIDES name over 20 characters, sends the owed event.
    await sink.rotate('renewed');
    const before = sink.received.length;
    const swept = await runJanitorProcess(
      await janitorEnv(h.ns, {
        LOG_LEVEL: 'info',
        ...env,
        K_CE_OVERRIDES: '{"extensions":{"deploymentenvironment":"prod"}}',
      }),
    );
    expect(swept.code, swept.stderr).toBe(0);
    expect(swept.stderr).toContain('longer than the 20 characters');
    expect(JSON.parse(swept.stdout)).toMatchObject({ eventsOwed: 1, errors: 0 });
    const swept2 = sink.received.slice(before);
    expect(swept2.map((r) => [r.status, r.authorization])).toEqual([[202, 'Bearer renewed']]);
    const event = HTTP.toEvent({ headers: swept2[0]!.headers, body: swept2[0]!.body });
    expect(event).toMatchObject({
      subject: second,
      type: 'net.cascade.run.succeeded.v1',
      deploymentenvironment: 'prod',
    });
    expect((await h.getRun(second)).status).toMatchObject({ notified: true });
  });
});
