import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { unreachableKubeconfig } from '../../test/support/unreachable-kubeconfig.ts';
import { runCli } from '../program.ts';
import { bareVersion, printVersion } from './version-print.ts';

describe('bareVersion: the command lines main.ts runs without commander', () => {
  it('reads `version`, `--client` after it, and kubectl flags anywhere, in both forms', () => {
    expect(bareVersion(['version'])).toEqual({ flags: {}, client: false });
    expect(bareVersion(['version', '--client'])).toEqual({ flags: {}, client: true });
    expect(bareVersion(['--kubeconfig', 'k', '-n', 'ns', 'version', '--context=c'])).toEqual({
      flags: { kubeconfig: 'k', namespace: 'ns', context: 'c' },
      client: false,
    });
    expect(bareVersion(['--namespace=a', 'version', '--namespace', 'b'])).toEqual({
      flags: { namespace: 'b' },
      client: false,
    });
  });

  it('leaves every other line to commander: help, unknown options, a misplaced --client, a flag without its value', () => {
    for (const argv of [
      [],
      ['--help'],
      ['version', '--help'],
      ['version', '-h'],
      ['version', '--bogus'],
      ['--client', 'version'],
      ['version', 'version'],
      ['version', 'extra'],
      ['version', '-n'],
      ['version', '-n', '--client'],
      ['-n=ns', 'version'],
      ['--kubeconfig=', 'list'],
      ['list'],
      ['ls', 'version'],
    ])
      expect(bareVersion(argv), argv.join(' ')).toBeUndefined();
  });
});

function capture() {
  const text = { out: '', err: '' };
  const io = {
    out: { write: (s: string) => void (text.out += s) },
    err: { write: (s: string) => void (text.err += s) },
    env: {},
    now: Date.now,
  };
  return { io, text };
}

describe("printVersion prints what commander's `version` prints", () => {
  let dir: string;
  let refused: string;
  beforeAll(async () => {
    refused = (await unreachableKubeconfig()).path;
    dir = dirname(refused);
  });

  const lines = () => [
    ['version', '--client'],
    ['--kubeconfig', refused, 'version'],
    ['--kubeconfig', refused, '--context', 'nope', 'version'],
    ['--kubeconfig', join(dir, 'missing'), 'version'],
    ['version', '--kubeconfig', refused, '--client'],
    ['version', '--kubeconfig', join(dir, 'missing')],
    ['version', '-n', 'ns', '--kubeconfig=' + refused],
  ];

  it('the same output and exit status, whether the server answers or not', async () => {
    for (const argv of lines()) {
      const direct = capture();
      const viaCommander = capture();
      const code = await printVersion(direct.io, bareVersion(argv)!);
      expect([code, direct.text], argv.join(' ')).toEqual([await runCli(argv, viaCommander.io), viaCommander.text]);
    }
    const down = capture();
    expect(await printVersion(down.io, bareVersion(lines()[1]!)!)).toBe(1);
    expect(down.text.err).toMatch(/^error: The connection to the server 127\.0\.0\.1:\d+ was refused/);
  });
});
