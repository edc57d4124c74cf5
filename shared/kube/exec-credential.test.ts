import { describe, expect, it } from 'vitest';
import { execToken, runExec } from './exec-credential.ts';

type Run = Parameters<typeof runExec>[1];

/** A stand-in for execFileSync: records each call, answers the credentials given in turn. */
function plugin(...answers: object[]) {
  const calls: { command: string; args: readonly string[]; env: Record<string, string | undefined> }[] = [];
  const run = ((command: string, args: readonly string[], opts: { env: Record<string, string | undefined> }) => {
    calls.push({ command, args, env: opts.env });
    return JSON.stringify(answers[calls.length - 1]);
  }) as unknown as Run;
  return { calls, run };
}

describe('an exec plugin', () => {
  it('runs with its args, its env and KUBERNETES_EXEC_INFO, and gives its token', () => {
    const { calls, run } = plugin({ status: { token: 'tok' } });
    const exec = { command: 'aws', args: ['eks', 'get-token'], env: [{ name: 'AWS_PROFILE', value: 'prod' }] };
    expect(runExec(exec, run).token).toBe('tok');
    expect(calls[0]).toMatchObject({ command: 'aws', args: ['eks', 'get-token'], env: { AWS_PROFILE: 'prod' } });
    expect(JSON.parse(calls[0]!.env.KUBERNETES_EXEC_INFO!)).toMatchObject({ kind: 'ExecCredential' });
  });

  it('keeps its token until it expires, then runs again', () => {
    const soon = new Date(Date.now() + 5_000).toISOString();
    const { calls, run } = plugin({ status: { token: 'a', expirationTimestamp: soon } }, { status: { token: 'b' } });
    const token = execToken({ command: 'p' }, run);
    expect(token()).toBe('a');
    expect(token()).toBe('b');
    expect(token()).toBe('b');
    expect(calls).toHaveLength(2);
  });

  it('refuses a credential without a token', () => {
    const { run } = plugin({ status: { clientCertificateData: 'CERT' } });
    expect(() => runExec({ command: 'p' }, run)).toThrow(/gave no token/);
  });
});
