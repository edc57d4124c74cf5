// Every error body the function can send stays well under 768 bytes: a
// failure body over 768 bytes makes Knative's in-memory dispatcher panic when
// it writes knativeerrordata (its base64 into 1024 bytes), losing every event
// in flight. Each refusal path is fed hostile input: long, multi-byte, full of
// quotes, backslashes and control characters.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  APISERVER_EVENTS,
  MODULE_FINISHED,
  RUN_CANCEL_REQUESTED,
  RUN_REQUESTED,
  RUN_RESUME_REQUESTED,
} from '../../shared/api/events.ts';
import { fromCloudEvent, fromHttpBody } from './inputs.ts';
import { refusalOf, type RuntimeError } from './refusal.ts';
import { rateLimited, refused, reply, type Reply } from './reply.ts';

/** What Cascade's error bodies must stay under, with room to spare (Knative's limit is 768). */
const BUDGET = 512;

const bodyBytes = (r: Reply) => Buffer.byteLength(JSON.stringify(r.body));

/** Strings a hostile sender might send: every kind of character, and a few worst cases, long. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 3000 }),
  fc.string({ unit: 'grapheme', maxLength: 2000 }),
  fc.constantFrom(
    '"'.repeat(5000),
    '\\'.repeat(5000),
    '\u0000'.repeat(5000),
    '語'.repeat(5000),
    '😀'.repeat(5000),
    '\u2028'.repeat(5000),
    '\uD800'.repeat(5000),
  ),
);

const worst = [
  '"'.repeat(5000),
  '\\'.repeat(5000),
  '\u0001'.repeat(5000),
  '語'.repeat(5000),
  '😀'.repeat(5000),
  '\uDC00x'.repeat(3000),
];

function expectSmall(r: Reply) {
  if (r.statusCode >= 200 && r.statusCode <= 299) return;
  expect(bodyBytes(r)).toBeLessThanOrEqual(BUDGET);
}

describe('every error body stays under 512 bytes', () => {
  it("the engine's outcomes, whatever their reason", () => {
    fc.assert(
      fc.property(
        hostile,
        fc.constantFrom('invalid', 'unavailable', 'failed') as fc.Arbitrary<'invalid' | 'unavailable' | 'failed'>,
        (reason, kind) => {
          expectSmall(reply({ kind, reason }));
        },
      ),
    );
    for (const reason of worst) expectSmall(reply({ kind: 'failed', reason }));
  });

  it("refusals before the function: fastify's and the CloudEvents SDK's errors, caller tokens, internal errors, the rate limit", () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 400, max: 499 }), (text, status) => {
        const errors: RuntimeError[] = [
          { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413, message: text },
          { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400, message: text },
          { name: 'ValidationError', message: text, cloudEventErrors: [{ instancePath: `/${text}`, message: text }] },
          { name: 'ValidationError', message: text, cloudEventErrors: [] },
          { name: 'SyntaxError', statusCode: 400, message: `Unexpected token in JSON: ${text}` },
          { name: 'SyntaxError', statusCode: 400, message: `Object contains forbidden prototype property ${text}` },
          { name: 'Error', statusCode: status, message: text },
        ];
        for (const error of errors) {
          const refusal = refusalOf(error, 1_048_576);
          if (refusal) expectSmall(refused(refusal.statusCode, refusal.reason));
        }
        expectSmall(refused(500, `internal error: ${text}`));
      }),
    );
    expectSmall(refused(401, 'no valid caller token: send Authorization: Bearer <the token of CASCADE_AUTH_TOKEN>'));
    expectSmall(rateLimited(30));
  });

  it('requests refused by the input checks: every event type and plain bodies, hostile fields and keys', () => {
    const types = [
      RUN_REQUESTED,
      RUN_RESUME_REQUESTED,
      MODULE_FINISHED,
      RUN_CANCEL_REQUESTED,
      ...APISERVER_EVENTS,
      'x'.repeat(5000),
      '語'.repeat(3000),
    ];
    const data = (s: string) => [
      s,
      42,
      null,
      [s],
      { [s]: s },
      { runname: s, modulename: s, moduleresult: s },
      { iuid: s, scenarioname: s, cascademodules: [s] },
      { action: s },
      { action: 'cancel', runname: s },
      { action: 'resume', runname: s, iuid: s },
      {
        kind: 'Job',
        apiVersion: s,
        metadata: { name: s, labels: { 'cascade.cascade.net/run': s }, uid: s },
        status: { conditions: [{ type: s, status: s }] },
      },
      { kind: 'CascadeRun', metadata: { name: s, annotations: { [s]: s } } },
    ];
    fc.assert(
      fc.property(hostile, (s) => {
        for (const d of data(s)) {
          for (const type of types) {
            const r = fromCloudEvent({ id: s, type, data: d });
            if (r.kind === 'invalid' || r.kind === 'ignored') expectSmall(refused(400, r.reason));
          }
          const plain = fromHttpBody(d);
          if (plain.kind === 'invalid' || plain.kind === 'ignored') expectSmall(refused(400, plain.reason));
        }
      }),
      { numRuns: 60 },
    );
  });
});
