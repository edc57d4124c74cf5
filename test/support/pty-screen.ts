// A command run in a real pseudo-terminal (util-linux `script`, which the
// README already asks for with flock) and its output rendered by a headless
// xterm.js, so that a test reads the screen as a user would see it.
import { spawn } from 'node:child_process';
import xterm from '@xterm/headless';

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

export interface PtyRun {
  /** The screen's non-empty lines now. */
  screen(): string[];
  /** Every distinct screen seen so far, in order. */
  screens: string[][];
  /** Everything the command wrote, escape sequences included. */
  raw(): string;
  /** Resolves with the command's exit status. */
  exited: Promise<number>;
  /** Types on the terminal's keyboard: `\x03` is Ctrl-C, which the terminal turns into SIGINT for the command. */
  type(keys: string): void;
}

export function runInPty(argv: string[], env: Record<string, string | undefined>): PtyRun {
  const term = new xterm.Terminal({ cols: 120, rows: 40, allowProposedApi: true });
  const screens: string[][] = [];
  let raw = '';
  const screen = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.filter((l) => l.trim() !== '');
  };
  // -q quiet, -e the command's exit status, -f flush each write, -c the command; no typescript file.
  const child = spawn('script', ['-qefc', argv.map(quote).join(' '), '/dev/null'], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let pending = Promise.resolve();
  child.stdout.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    pending = pending.then(
      () =>
        new Promise<void>((resolve) =>
          term.write(chunk, () => {
            const now = screen();
            if (JSON.stringify(now) !== JSON.stringify(screens.at(-1))) screens.push(now);
            resolve();
          }),
        ),
    );
  });
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code) => void pending.then(() => resolve(code ?? -1))),
  );
  child.on('exit', () => child.stdin.end());
  return { screen, screens, raw: () => raw, exited, type: (keys) => child.stdin.write(keys) };
}
