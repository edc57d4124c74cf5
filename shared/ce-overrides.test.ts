import { describe, expect, it } from 'vitest';
import { parseCeOverrides } from './ce-overrides.ts';

describe('K_CE_OVERRIDES', () => {
  it('has no extensions when unset or empty', () => {
    expect(parseCeOverrides(undefined)).toEqual({ ok: true, extensions: {} });
    expect(parseCeOverrides(' ')).toEqual({ ok: true, extensions: {} });
    expect(parseCeOverrides('{}')).toEqual({ ok: true, extensions: {} });
  });

  it('reads the extensions as SinkBinding writes them, ignoring other keys', () => {
    expect(parseCeOverrides('{"extensions":{"cluster":"prod","tier2":"a b"},"other":1}')).toEqual({ ok: true, extensions: { cluster: 'prod', tier2: 'a b' } });
  });

  it.each([
    ['not JSON', '{extensions:', /is not JSON/],
    ['an array', '[]', /not a JSON object/],
    ['extensions not an object', '{"extensions":"a=b"}', /"extensions" that is not an object/],
    ['an upper-case name', '{"extensions":{"Cluster":"x"}}', /"Cluster", not 1-20 lower-case/],
    ['a name too long', `{"extensions":{"${'a'.repeat(21)}":"x"}}`, /not 1-20 lower-case/],
    ['a core attribute', '{"extensions":{"id":"x"}}', /"id", a CloudEvents attribute/],
    ['a value not a string', '{"extensions":{"n":1}}', /"n" a value that is not a string/],
  ])('refuses %s with the reason', (_what, raw, reason) => {
    const r = parseCeOverrides(raw);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
    expect(!r.ok && r.reason).toMatch(/^K_CE_OVERRIDES /);
  });
});
