import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTimeout } from './commands/timeout-option.ts';
import { unreachableKubeconfig } from '../test/support/unreachable-kubeconfig.ts';
import { serverHost } from './kube/connect.ts';
import { commandNamed, runCli, splitShortEquals } from './program.ts';

describe('the command line', () => {
  it('reads -n=ns and -o=json as kubectl does: the value after the =', () => {
    expect(splitShortEquals(['-n=cascade-operator', 'list', '-o=json'])).toEqual([
      '-n',
      'cascade-operator',
      'list',
      '-o',
      'json',
    ]);
    expect(splitShortEquals(['--namespace=x', '-n', 'y', '-A'])).toEqual(['--namespace=x', '-n', 'y', '-A']);
    expect(splitShortEquals(['logs', '--', '-n=x'])).toEqual(['logs', '--', '-n=x']);
  });
});

describe('--timeout', () => {
  it('takes seconds, as 60, 60s or 2m', () => {
    expect([parseTimeout('60'), parseTimeout('45s'), parseTimeout('2m')]).toEqual([60, 45, 120]);
    expect(() => parseTimeout('soon')).toThrow('--timeout soon: give seconds, as 60, 60s or 2m');
  });
});

describe('an API server that cannot be reached', () => {
  it('is named as kubectl names it: the connection to the server host:port was refused', async () => {
    const { path: kubeconfig, port } = await unreachableKubeconfig();
    let err = '';
    const io = {
      out: { write: () => {} },
      err: {
        write: (s: string) => {
          err += s;
        },
      },
      env: {},
      now: Date.now,
    };
    expect(await runCli(['--kubeconfig', kubeconfig, 'list'], io)).toBe(1);
    expect(err).toBe(
      `error: The connection to the server 127.0.0.1:${port} was refused - did you specify the right host or port?\n`,
    );
  });

  it('names the server with the port its scheme implies when the URL has none', () => {
    expect([serverHost('http://localhost:8080'), serverHost('https://k8s.example'), serverHost('http://h')]).toEqual([
      'localhost:8080',
      'k8s.example:443',
      'h:80',
    ]);
  });
});

describe('version --client', () => {
  it("prints package.json's version and asks no API server", async () => {
    let out = '';
    const io = {
      out: {
        write: (s: string) => {
          out += s;
        },
      },
      err: { write: () => {} },
      env: {},
      now: Date.now,
    };
    expect(await runCli(['version', '--client'], io)).toBe(0);
    expect(out).toBe(
      `Client Version: ${(JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version}\n`,
    );
  });
});

describe('--help', () => {
  it('ends with Examples for the program and every command', async () => {
    for (const command of ['', 'submit', 'list', 'get', 'watch', 'logs', 'cancel', 'resume', 'lint', 'version']) {
      let out = '';
      const io = {
        out: {
          write: (s: string) => {
            out += s;
          },
        },
        err: { write: () => {} },
        env: {},
        now: Date.now,
      };
      expect(await runCli([...(command ? [command] : []), '--help'], io), command).toBe(0);
      expect(out, command).toMatch(/^Usage: kubectl cascade /);
      expect(out, command).toMatch(/\nExamples:\n {2}(# .*\n {2})?kubectl cascade /);
    }
  });
});

describe('the top-level help', () => {
  const helpOf = async (argv: string[]) => {
    let out = '';
    const io = { out: { write: (s: string) => void (out += s) }, err: { write: () => {} }, env: {}, now: Date.now };
    expect(await runCli(argv, io)).toBe(0);
    return out;
  };

  it("is drawn from COMMAND_LINES without loading a command, and prints what every command's own module gives", async () => {
    const fromLines = await helpOf(['--help']);
    // `help` followed by no command is a word: it loads every command's module
    const fromModules = await helpOf(['help']);
    expect(fromLines).toBe(fromModules);
    for (const name of [
      'submit',
      'list|ls',
      'lint [options] <file...>',
      'delete [options] [runs...]',
      'help [command]',
    ])
      expect(fromLines).toContain(`\n  ${name} `);
  });

  it("leaves completion every command's options: `__complete` with no command yet loads them all", async () => {
    expect(await helpOf(['__complete', 'list', '--ph'])).toBe('--phase\n:4\n');
    expect(await helpOf(['__complete', 'wa'])).toBe('watch\n:4\n');
  });
});

describe('the command a command line names', () => {
  it('is the first word that is no option nor the value of a connection option; an alias is its command', () => {
    expect(commandNamed(['-n', 'list', 'get', 'x'])).toBe('get');
    expect(commandNamed(['--kubeconfig', 'k', '--context', 'c', 'ls', '-A'])).toBe('list');
    expect(commandNamed(['--help'])).toBeUndefined();
    expect(commandNamed(['lst'])).toBeUndefined();
  });
});
