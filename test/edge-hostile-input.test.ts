// Hostile input at the function's edge, against the real function process
// (faas-js-runtime as it serves the function): each request gets the answer
// the README documents, as `{error}` with a one-line reason of at most
// REASON_MAX characters, creates nothing, and leaves no error-level log line.
import { randomUUID } from 'node:crypto';
import { BatchV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_MAX } from '../shared/api/reason.ts';
import { successScenario } from './fixtures/scenarios.ts';
import {
  binaryEvent,
  cascadeHarness,
  post,
  SCENARIO,
  structuredEvent,
  type Harness,
} from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';

let h: Harness;
let output = ''; // everything the function process writes once it is ready
beforeAll(async () => {
  h = await cascadeHarness({ modules: successScenario(60_000), source: false });
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
  };
  h.fns[0]!.child.stdout!.on('data', keep);
  h.fns[0]!.child.stderr!.on('data', keep);
});
afterAll(async () => {
  await h?.stop();
});

const RUN = 'net.cascade.run.requested.v1';
const RESULT = 'net.cascade.module.finished.v1';
const JSON_TYPE = { 'content-type': 'application/json' };
const STRUCTURED = { 'content-type': 'application/cloudevents+json' };
const request = { turlinfo: 's3://in/x.tgz', iuid: 'edge0001' };
const ce = (type: string, data: unknown) => binaryEvent(type, data).headers;
const ceWithout = (name: string) => Object.fromEntries(Object.entries(ce(RUN, request)).filter(([k]) => k !== name));
const structuredWithout = (name: string) => {
  const event = JSON.parse(structuredEvent(RUN, request).body) as Record<string, unknown>;
  delete event[name];
  return JSON.stringify(event);
};
const LIMIT = 1_048_576; // faas-js-runtime's default body limit

/** The names of every run and Job in the namespace. */
async function everything(): Promise<string[]> {
  const runs = (await h.listRuns()).map((r) => `run/${r.metadata.name}`);
  const jobs = (await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns })).items.map(
    (j) => `job/${j.metadata?.name}`,
  );
  return [...runs, ...jobs].sort();
}

/**
 * The lines the process wrote from `from` on, once it has written all of them
 * for the requests sent so far: a sentinel request is sent after them, and
 * its own line (the process logs it as a refused event type) is waited for.
 */
async function linesSince(from: number): Promise<string[]> {
  const marker = `net.cascade.sentinel.${randomUUID()}`;
  expect((await post(h.url(), {}, ce(marker, {}))).status).toBe(400);
  await waitFor(() => output.includes(marker), { message: 'the sentinel request logged' });
  const end = output.lastIndexOf('\n', output.indexOf(marker)); // the sentinel's own line is left out
  return output
    .slice(from, Math.max(from, end))
    .split('\n')
    .filter((l) => l.trim() !== '');
}

/** Lines at error level or above, and lines that are not pino's JSON (a stack trace, console.error). */
function errorLines(lines: string[]): string[] {
  return lines.filter((line) => {
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 50;
    } catch {
      return true;
    }
  });
}

type Row = [
  name: string,
  body: unknown,
  headers: Record<string, string>,
  status: number,
  reason: RegExp,
  path?: string,
];

async function refused([, body, headers, status, reason, path = '']: Row): Promise<string> {
  const before = await everything();
  const from = output.length;
  const reply = await post(`${h.url()}${path}`, body, headers);
  expect(reply).toMatchObject({ status, body: { error: expect.stringMatching(reason) } });
  const error = String(reply.body.error);
  expect(error).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
  expect(error.length).toBeLessThanOrEqual(REASON_MAX);
  expect(Object.keys(reply.body)).toEqual(['error']);
  expect(errorLines(await linesSince(from))).toEqual([]);
  expect(await everything()).toEqual(before);
  return error;
}

describe('a CloudEvent that is not whole is refused with the missing attribute', () => {
  it.each<Row>([
    [
      'binary without ce-id',
      request,
      { ...JSON_TYPE, ...ceWithout('ce-id') },
      400,
      /^binary CloudEvent: missing required attribute id \(header ce-id\)$/,
    ],
    [
      'binary with ce-specversion 9.9',
      request,
      { ...JSON_TYPE, ...ce(RUN, request), 'ce-specversion': '9.9' },
      400,
      /^binary CloudEvent: specversion "9.9" is not supported, only "1.0"$/,
    ],
    [
      'binary with ce-specversion 0.3 (the SDK validates nothing but 1.0)',
      request,
      { ...JSON_TYPE, ...ce(RUN, request), 'ce-specversion': '0.3' },
      400,
      /specversion "0.3" is not supported/,
    ],
    [
      'some ce-* headers but no ce-specversion',
      request,
      { ...JSON_TYPE, ...ceWithout('ce-specversion') },
      400,
      /^binary CloudEvent: missing required attribute specversion \(header ce-specversion\)$/,
    ],
    [
      'binary without ce-source',
      request,
      { ...JSON_TYPE, ...ceWithout('ce-source') },
      400,
      /missing required attribute source \(header ce-source\)$/,
    ],
    [
      'binary with a source that is no URI reference',
      request,
      { ...JSON_TYPE, ...ce(RUN, request), 'ce-source': 'a b' },
      400,
      /^not a valid CloudEvent: source: must match format "uri-reference"$/,
    ],
    [
      'structured without specversion',
      structuredWithout('specversion'),
      STRUCTURED,
      400,
      /^structured CloudEvent: missing required attribute specversion$/,
    ],
    [
      'structured without id',
      structuredWithout('id'),
      STRUCTURED,
      400,
      /^structured CloudEvent: missing required attribute id$/,
    ],
    [
      'structured with a body that is not JSON',
      '{"specversion":',
      STRUCTURED,
      400,
      /^structured CloudEvent: the body is not JSON$/,
    ],
    [
      'a batch',
      `[${structuredEvent(RUN, request).body}]`,
      { 'content-type': 'application/cloudevents-batch+json' },
      400,
      /^batched CloudEvents are not supported/,
    ],
  ])('%s', async (...row) => {
    await refused(row);
  });
});

describe('a request refused before the function gets its 400 or 413 as {error}, and no error-level line', () => {
  it.each<Row>([
    ['invalid JSON', '{"iuid": ', JSON_TYPE, 400, /^the body is not JSON: /],
    ['an empty JSON body', '', JSON_TYPE, 400, /^the body is empty: a JSON object was expected$/],
    [
      'a __proto__ key',
      '{"__proto__":{"polluted":1},"turlinfo":"s3://x","iuid":"proto001"}',
      JSON_TYPE,
      400,
      /^the body is refused: a JSON key "__proto__"/,
    ],
    [
      'a body over the limit',
      JSON.stringify({ ...request, pad: 'x'.repeat(LIMIT) }),
      JSON_TYPE,
      413,
      new RegExp(`^the body is larger than the limit of ${LIMIT} bytes$`),
    ],
    [
      'a JSON string (the runtime would parse it again and console.error the failure)',
      '"hello"',
      JSON_TYPE,
      400,
      /^the body must be a JSON object: /,
    ],
    [
      "the Go controller's POST /run",
      request,
      JSON_TYPE,
      404,
      /^no route POST "\/run": the function serves POST \//,
      '/run',
    ],
  ])('%s', async (...row) => {
    await refused(row);
  });
});

describe('fields outside their rules are refused, never trimmed or passed on', () => {
  const run = (fields: Record<string, unknown>) => ({ ...request, ...fields });
  const iuidRule = /^run request: iuid: must be 1-64 characters of A-Z a-z 0-9 _ -, the first a letter or a digit$/;
  it.each<Row>([
    ['an iuid with a trailing newline', run({ iuid: 'edge0002\n' }), JSON_TYPE, 400, iuidRule],
    ['an iuid with a newline inside', run({ iuid: 'ab\ncd-1' }), JSON_TYPE, 400, iuidRule],
    ['an iuid with surrounding spaces', run({ iuid: ' edge0003 ' }), JSON_TYPE, 400, iuidRule],
    ['an iuid that climbs out of its path', run({ iuid: '930cc/../../etc/passwd' }), JSON_TYPE, 400, iuidRule],
    ['an iuid of 65 characters', run({ iuid: 'e'.repeat(65) }), JSON_TYPE, 400, iuidRule],
    ['an iuid in a CloudEvent', run({ iuid: '../x' }), { ...JSON_TYPE, ...ce(RUN, {}) }, 400, iuidRule],
    [
      'an iuid whose first five characters make no name',
      run({ iuid: 'ab_cd-1234' }),
      JSON_TYPE,
      400,
      /^iuid "ab_cd-1234" cannot make a valid Kubernetes name: its first characters "ab_cd"/,
    ],
    [
      'a turlinfo with a trailing space',
      run({ turlinfo: 's3://in/x.tgz ' }),
      JSON_TYPE,
      400,
      /^run request: turlinfo: must not begin or end with whitespace$/,
    ],
    [
      'a turlinfo with a newline',
      run({ turlinfo: 's3://in/x\n.tgz' }),
      JSON_TYPE,
      400,
      /^run request: turlinfo: must not contain control characters or line breaks$/,
    ],
    [
      'a turlinfo over 2048 characters',
      run({ turlinfo: `s3://${'x'.repeat(2048)}` }),
      JSON_TYPE,
      400,
      /^run request: turlinfo: must be at most 2048 characters$/,
    ],
    [
      'an oname with an escape sequence',
      run({ oname: 'org\u001b[2J' }),
      JSON_TYPE,
      400,
      /^run request: oname: must not contain control characters or line breaks$/,
    ],
    [
      'an sname over 253 characters',
      run({ sname: 's'.repeat(254) }),
      JSON_TYPE,
      400,
      /^run request: sname: must be at most 253 characters$/,
    ],
    [
      'a runname that is an API path',
      { runname: '../../../api/v1/namespaces/default/secrets', modulename: 'grayscale', moduleresult: 'success' },
      JSON_TYPE,
      400,
      /^module result: runname: must be a run's name/,
    ],
    [
      'a moduleresult with a newline',
      { runname: `${SCENARIO}-nope0`, modulename: 'grayscale', moduleresult: 'success\nfail' },
      { ...JSON_TYPE, ...ce(RESULT, {}) },
      400,
      /^module result: moduleresult: must not contain control characters or line breaks$/,
    ],
  ])('%s', async (...row) => {
    await refused(row);
  });
});

describe('reasons echo values quoted, cut and on one line', () => {
  it('an unknown event type of 4000 characters', async () => {
    const type = `com.example.${'q'.repeat(4000)}`;
    const error = await refused([
      '',
      {},
      { ...JSON_TYPE, ...ce(type, {}) },
      400,
      /^unsupported event type "com\.example\.q+"…$/,
    ]);
    expect(error.length).toBeLessThan(100);
  });

  it('an unknown run', async () => {
    await refused([
      '',
      { runname: `${SCENARIO}-nope1`, modulename: 'grayscale', moduleresult: 'success' },
      JSON_TYPE,
      400,
      /^unknown run "cascadeautooperator-ip-nope1"$/,
    ]);
  });
});

describe('a valid run request is kept byte for byte', () => {
  it('"EdGe9_x-1" is its own run, with every field as it came; "EdGe9_x-1\\n" is refused', async () => {
    const body = { turlinfo: 's3://in/a b.tgz', iuid: 'EdGe9_x-1', oname: ' org ', sname: '' };
    expect(await post(h.url(), body)).toMatchObject({
      status: 200,
      body: { run: `${SCENARIO}-edge9`, iuid: 'EdGe9_x-1' },
    });
    expect((await h.getRun(`${SCENARIO}-edge9`)).spec).toMatchObject({
      pid: 'EdGe9_x-1',
      turlinfo: 's3://in/a b.tgz',
      ob: ' org ',
      src: '',
    });
    // its first Job follows the reply: the snapshot of the refused request is taken after it
    await h.waitStarted(`${SCENARIO}-edge9`);
    await refused(['', { ...body, iuid: 'EdGe9_x-1\n' }, JSON_TYPE, 400, /^run request: iuid: must be 1-64/]);

    // A module the run does not have, named in 253 characters: quoted and cut.
    const modulename = `m${'\u00e9'.repeat(252)}`;
    await refused([
      '',
      { runname: `${SCENARIO}-edge9`, modulename, moduleresult: 'success' },
      JSON_TYPE,
      400,
      /^run "cascadeautooperator-ip-edge9" has no module "mé+"…$/,
    ]);
  });
});
