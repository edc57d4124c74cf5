import { describe, expect, it } from 'vitest';
import { parseCeOverrides } from './ce-overrides.ts';

describe('K_CE_OVERRIDES', () => {
  it('has no extensions when unset or empty', () => {
    expect(parseCeOverrides(undefined)).toEqual({ ok: true, extensions: {}, warnings: [] });
    expect(parseCeOverrides(' ')).toEqual({ ok: true, extensions: {}, warnings: [] });
    expect(parseCeOverrides('{}')).toEqual({ ok: true, extensions: {}, warnings: [] });
  });

  it('reads the extensions as SinkBinding writes them, ignoring other keys', () => {
    expect(parseCeOverrides('{"extensions":{"cluster":"prod","tier2":"a b"},"other":1}')).toEqual({
      ok: true,
      extensions: { cluster: 'prod', tier2: 'a b' },
      warnings: [],
    });
  });

  // Every name below passes Knative's webhook (ASCII letters and digits, any length):
  // the process starts with each, and says what it changed.
  it.each([
    ['an upper-case name, lower-cased', { Cluster: 'x' }, { cluster: 'x' }, [/"Cluster" is sent as "cluster"/]],
    [
      'a name over 20 characters, kept',
      { [`a${'b'.repeat(24)}`]: 'x' },
      { [`a${'b'.repeat(24)}`]: 'x' },
      [/longer than the 20 characters/],
    ],
    [
      'a long upper-case name, both',
      { ABCDEFGHIJKLMNOPQRSTU: 'x' },
      { abcdefghijklmnopqrstu: 'x' },
      [/sent as "abcdefghijklmnopqrstu"/, /longer than the 20/],
    ],
    [
      'a CloudEvents attribute, left out',
      { id: 'x', team: 'a' },
      { team: 'a' },
      [/"id" is a CloudEvents attribute.*left out/],
    ],
    ['a CloudEvents attribute in upper case, left out', { ID: 'x' }, {}, [/"ID" is a CloudEvents attribute/]],
    [
      'a name given twice once lower-cased, the first kept',
      { team: 'a', TEAM: 'b' },
      { team: 'a' },
      [/"TEAM" is "team" once lower-cased, given already/],
    ],
  ])('accepts %s, with a warning', (_what, given, extensions, warnings) => {
    const r = parseCeOverrides(JSON.stringify({ extensions: given }));
    expect(r).toEqual({ ok: true, extensions, warnings: warnings.map((w) => expect.stringMatching(w)) });
    expect(r.ok && r.warnings.every((w) => w.startsWith('K_CE_OVERRIDES: '))).toBe(true);
  });

  // None of these can come from a SinkBinding: Knative's webhook or its typed
  // field refuses them, so only a hand-set variable carries them.
  it.each([
    ['not JSON', '{extensions:', /is not JSON/],
    ['an array', '[]', /not a JSON object/],
    ['extensions not an object', '{"extensions":"a=b"}', /"extensions" that is not an object/],
    ['an empty name', '{"extensions":{"":"x"}}', /names the extension "", not ASCII letters and digits/],
    ['a name with a dash', '{"extensions":{"my-ext":"x"}}', /"my-ext", not ASCII letters and digits/],
    ['a non-ASCII letter', '{"extensions":{"caf\u00e9":"x"}}', /not ASCII letters and digits/],
    ['a value not a string', '{"extensions":{"n":1}}', /"n" a value that is not a string/],
  ])('refuses %s with the reason', (_what, raw, reason) => {
    const r = parseCeOverrides(raw);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
    expect(!r.ok && r.reason).toMatch(/^K_CE_OVERRIDES /);
  });
});
