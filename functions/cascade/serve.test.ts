import { describe, expect, it } from 'vitest';
import { runtimeOptions } from './serve.ts';

describe('runtimeOptions', () => {
  it("reads the environment variables faas-js-runtime's CLI reads, with its defaults", () => {
    expect(runtimeOptions({})).toEqual({ logLevel: 'warn', port: 8080, includeRaw: false, bodyLimit: 1_048_576 });
    expect(
      runtimeOptions({ FUNC_PORT: '9090', FUNC_LOG_LEVEL: 'error', FUNC_INCLUDE_RAW: '1', FUNC_BODY_LIMIT: '2048' }),
    ).toEqual({ logLevel: 'error', port: 9090, includeRaw: true, bodyLimit: 2048 });
  });
});
