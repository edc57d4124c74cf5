import { describe, expect, it } from 'vitest';
import { IUID_PATTERN, JobEventSchema, ModuleResultSchema, RunRequestSchema, TEXT_MAX } from './events.ts';
import { parseWith } from './parse.ts';

const run = (fields: Record<string, unknown>) =>
  parseWith(RunRequestSchema, { turlinfo: 's3://in/x.tgz', iuid: 'abcdef', ...fields });
const result = (fields: Record<string, unknown>) =>
  parseWith(ModuleResultSchema, { runname: 'cao-abcde', modulename: 'grayscale', moduleresult: 'success', ...fields });
const reasonOf = (r: { ok: boolean; reason?: string }) => (r.ok ? 'accepted' : r.reason);

describe('iuid', () => {
  it.each([
    ['a UUID', '33e65374-ee8e-4da6-a2e7-71a9cc39d222'],
    ['an upper-case UUID', '33E65374-EE8E-4DA6-A2E7-71A9CC39D222'],
    ['one character', 'a'],
    ['a short id with "_" and "-"', 'job_12-b'],
    ['a SHA-256 in hex (64 characters)', 'f'.repeat(64)],
  ])('accepts %s, unchanged', (_n, iuid) => {
    expect(run({ iuid })).toEqual({ ok: true, value: expect.objectContaining({ iuid }) });
  });

  it.each([
    ['empty', ''],
    ['65 characters', 'f'.repeat(65)],
    ['a trailing newline', 'X\n'],
    ['a newline inside', 'ab\ncd-1'],
    ['surrounding spaces', ' abcdef '],
    ['a path', '930cc/../../etc/passwd'],
    ['dots', 'a..b'],
    ['a leading "-"', '-abcde'],
    ['a leading "_"', '_abcde'],
    ['non-ASCII letters', 'abcdé'],
    ['a NUL', 'abc\u0000de'],
  ])('refuses %s', (_n, iuid) => {
    expect(reasonOf(run({ iuid }))).toMatch(
      /^iuid: must be 1-64 characters of A-Z a-z 0-9 _ -, the first a letter or a digit$/,
    );
    expect(IUID_PATTERN.test(iuid)).toBe(false);
  });
});

describe('the other fields of a run request', () => {
  it.each([
    ['turlinfo', { turlinfo: 's3://in/x\n.tgz' }, /^turlinfo: must not contain control characters or line breaks$/],
    ['turlinfo', { turlinfo: ' s3://in/x.tgz' }, /^turlinfo: must not begin or end with whitespace$/],
    ['turlinfo', { turlinfo: 's'.repeat(TEXT_MAX.turlinfo + 1) }, /^turlinfo: must be at most 2048 characters$/],
    ['turlinfo', { turlinfo: 's3://x/\uD800' }, /^turlinfo: must be well-formed Unicode/],
    ['oname', { oname: 'o'.repeat(TEXT_MAX.oname + 1) }, /^oname: must be at most 253 characters$/],
    ['oname', { oname: 'org\u001b[31m' }, /^oname: must not contain control characters/],
    ['sname', { sname: 'src\u2028' }, /^sname: must not contain control characters or line breaks$/],
    ['sname', { sname: 5 }, /^sname: must be a string$/],
    ['scenario', { scenario: 'Upper_Case' }, /^scenario: must be a CascadeAutoOperator's name: a DNS-1123 label/],
    ['scenario', { scenario: 's'.repeat(64) }, /^scenario: must be a CascadeAutoOperator's name/],
    ['scenario', { scenario: '' }, /^scenario: must be a CascadeAutoOperator's name/],
  ])('%s %j is refused', (_n, fields, reason) => {
    expect(reasonOf(run(fields))).toMatch(reason);
  });

  it('accepts the longest values and an empty oname and sname, unchanged', () => {
    const fields = { turlinfo: 's'.repeat(TEXT_MAX.turlinfo), oname: '', sname: 'n'.repeat(TEXT_MAX.sname) };
    expect(run(fields)).toEqual({ ok: true, value: { iuid: 'abcdef', ...fields } });
  });

  it('may name its scenario (a CascadeAutoOperator of the namespace)', () => {
    expect(run({ scenario: 'resizer-2' })).toEqual({
      ok: true,
      value: expect.objectContaining({ scenario: 'resizer-2' }),
    });
  });

  it('a body that is no object says so', () => {
    expect(reasonOf(parseWith(RunRequestSchema, 'text'))).toBe('(root): must be a JSON object');
  });
});

describe('module result', () => {
  it.each([
    [{ runname: '../../api/v1/secrets' }, /^runname: must be a run's name/],
    [{ runname: 'CAO-ABCDE' }, /^runname: must be a run's name/],
    [{ runname: `a${'b'.repeat(63)}` }, /^runname: must be a run's name/],
    [{ modulename: '' }, /^modulename: must not be empty$/],
    [{ modulename: 'm'.repeat(TEXT_MAX.modulename + 1) }, /^modulename: must be at most 253 characters$/],
    [{ moduleresult: 'ok\nfail' }, /^moduleresult: must not contain control characters or line breaks$/],
    [{ moduleresult: 'r'.repeat(TEXT_MAX.moduleresult + 1) }, /^moduleresult: must be at most 1024 characters$/],
  ])('%j is refused', (fields, reason) => {
    expect(reasonOf(result(fields))).toMatch(reason);
  });

  it('keeps " Success " as it came', () => {
    expect(result({ moduleresult: ' Success ' })).toEqual({
      ok: true,
      value: expect.objectContaining({ moduleresult: ' Success ' }),
    });
  });
});

describe('ApiServerSource Job', () => {
  it('reads the run label when it names a run', () => {
    const job = {
      kind: 'Job',
      metadata: { name: 'j', labels: { 'cascade.cascade.net/run': 'cao-abcde', other: 'X_y.z' } },
    };
    expect(parseWith(JobEventSchema, job)).toEqual({ ok: true, value: job });
  });

  it('refuses a run label that names no run', () => {
    const job = { kind: 'Job', metadata: { name: 'j', labels: { 'cascade.cascade.net/run': 'a/../b' } } };
    expect(reasonOf(parseWith(JobEventSchema, job))).toMatch(
      /^metadata.labels.cascade.cascade.net\/run: must be a run's name/,
    );
  });
});
