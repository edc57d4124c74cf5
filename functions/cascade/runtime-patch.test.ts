import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isSdkValidationError } from './runtime-patch.ts';

/** The ValidationError of the CloudEvents SDK copy that faas-js-runtime loads. */
const RuntimeValidationError = createRequire(createRequire(import.meta.url).resolve('faas-js-runtime'))('cloudevents')
  .ValidationError as new (message: string, errors?: unknown[]) => Error;

describe('isSdkValidationError', () => {
  it('tells the runtime SDK\'s ValidationError, with or without details, from other errors', () => {
    expect(isSdkValidationError(new RuntimeValidationError('invalid payload', [{ instancePath: '/time' }]))).toBe(true);
    expect(isSdkValidationError(new RuntimeValidationError('invalid spec version'))).toBe(true);
    expect(isSdkValidationError(new TypeError('x'))).toBe(false);
    expect(isSdkValidationError(Object.assign(new Error('x'), { errors: [] }))).toBe(false);
    expect(isSdkValidationError(Object.assign(new TypeError('x'), { errors: 'no list' }))).toBe(false);
  });
});
