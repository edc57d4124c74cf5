import { describe, expect, it } from 'vitest';
import { refusalOf } from './refusal.ts';

const LIMIT = 1_048_576;

describe('refusalOf', () => {
  it.each([
    [
      'a body over the limit',
      { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413, message: 'Request body is too large' },
      { statusCode: 413, reason: 'the body is larger than the limit of 1048576 bytes' },
    ],
    [
      'an empty JSON body',
      { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 },
      { statusCode: 400, reason: 'the body is empty: a JSON object was expected' },
    ],
    [
      'invalid JSON',
      { name: 'SyntaxError', statusCode: 400, message: 'Unexpected end of JSON input' },
      { statusCode: 400, reason: 'the body is not JSON: Unexpected end of JSON input' },
    ],
    [
      'a __proto__ key',
      { name: 'SyntaxError', statusCode: 400, message: 'Object contains forbidden prototype property' },
      { statusCode: 400, reason: expect.stringMatching(/^the body is refused: a JSON key "__proto__"/) },
    ],
    [
      'an unsupported media type',
      { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415, message: 'Unsupported Media Type: x/y' },
      { statusCode: 415, reason: 'Unsupported Media Type: x/y' },
    ],
    [
      'a CloudEvent the SDK refuses',
      {
        name: 'TypeError',
        message: 'invalid payload\n  {...}',
        cloudEventErrors: [{ instancePath: '/time', message: 'must match format "date-time"' }],
      },
      { statusCode: 400, reason: 'not a valid CloudEvent: time: must match format "date-time"' },
    ],
    [
      'a CloudEvent the SDK refuses without detail',
      { name: 'TypeError', message: 'invalid payload\nmore', cloudEventErrors: [] },
      { statusCode: 400, reason: 'not a valid CloudEvent: invalid payload' },
    ],
  ])('%s', (_n, error, expected) => {
    expect(refusalOf(error, LIMIT)).toEqual(expected);
  });

  it.each([
    ['an error without a status', { name: 'TypeError', message: 'x is not a function' }],
    ['a server error', { statusCode: 500, message: 'boom' }],
  ])('%s is no refusal: a fault', (_n, error) => {
    expect(refusalOf(error, LIMIT)).toBeUndefined();
  });
});
