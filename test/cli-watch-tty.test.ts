// kubectl-cascade watch in a real pseudo-terminal: one line per module,
// redrawn in place as the run goes on (read from the rendered screen), with
// colours unless NO_COLOR; the exit status says how the run ended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cascadeHarness, post, type Harness } from './support/cascade-harness.ts';
import { CLI_BIN } from './support/cli.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';
import { runInPty } from './support/pty-screen.ts';
import { successScenario } from './fixtures/scenarios.ts';

let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: successScenario(6000) });
});
afterAll(async () => {
  await h?.stop();
});

const moduleLine = (state: string, name: string) => new RegExp(`^ {2}\\S ${name} +${state} +\\d+\\.\\ds$`);

describe('kubectl-cascade watch on a terminal', () => {
  it('redraws one line per module in place as the run goes on, in colour, and exits 0 when it succeeds', async () => {
    const reply = await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'tty-1' });
    const run = reply.body.run as string;
    const pty = runInPty([CLI_BIN, '--kubeconfig', adminKubeconfigPath(), '-n', h.ns, 'watch', run], {
      ...process.env,
      NO_COLOR: '',
      TERM: 'xterm-256color',
    });
    // The CLI takes a while to start on a loaded machine: whichever module runs
    // when the first screen shows, a later screen shows it done, in place.
    await waitFor(() => pty.screens.length > 0, { timeoutMs: 100_000, message: 'the first screen' });
    const names = ['grayscale   ', 'binarization', 'diff        '];
    const runningAt = (s: string[]) => names.findIndex((n, i) => moduleLine('Running', n).test(s[i + 1] ?? ''));
    await waitFor(() => pty.screens.some((s) => runningAt(s) >= 0), {
      timeoutMs: 100_000,
      message: 'a screen with a module running',
    });
    const first = pty.screens.findIndex((s) => runningAt(s) >= 0);
    const module = runningAt(pty.screens[first]!);
    await waitFor(
      () => pty.screens.slice(first).some((s) => moduleLine('Succeeded', names[module]!).test(s[module + 1] ?? '')),
      { timeoutMs: 100_000, message: `a later screen with ${names[module]!.trim()} done` },
    );
    expect(await pty.exited).toBe(0);
    const last = pty.screen();
    expect(last).toHaveLength(4);
    expect(last[0]).toMatch(new RegExp(`^${run} {2}Succeeded {2}\\d+\\.\\ds$`));
    expect(last.slice(1)).toEqual([
      expect.stringMatching(moduleLine('Succeeded', 'grayscale   ')),
      expect.stringMatching(moduleLine('Succeeded', 'binarization')),
      expect.stringMatching(moduleLine('Succeeded', 'diff        ')),
    ]);
    // every screen is the run's line and one per module: redrawn, never appended to
    expect(pty.screens.length).toBeGreaterThan(2);
    for (const s of pty.screens) expect(s.length, s.join('\n')).toBeLessThanOrEqual(4);
    expect(pty.raw()).toContain('\x1b[32m');
  }, 150_000);

  it('honours NO_COLOR: still redrawn, but without colours', async () => {
    const reply = await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'tty-2' });
    const pty = runInPty(
      [CLI_BIN, '--kubeconfig', adminKubeconfigPath(), '-n', h.ns, 'watch', reply.body.run as string],
      { ...process.env, NO_COLOR: '1', TERM: 'xterm-256color' },
    );
    expect(await pty.exited).toBe(0);
    expect(pty.screen()).toHaveLength(4);
    expect(pty.raw()).not.toMatch(/\x1b\[\d+m/);
    expect(pty.raw()).toMatch(/\x1b\[\d+A/);
  }, 150_000);

  it('Ctrl-C typed on the terminal stops watch with exit status 130, the last screen left as it was', async () => {
    const reply = await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'tty-3' });
    const run = reply.body.run as string;
    const pty = runInPty([CLI_BIN, '--kubeconfig', adminKubeconfigPath(), '-n', h.ns, 'watch', run], {
      ...process.env,
      NO_COLOR: '1',
      TERM: 'xterm-256color',
    });
    await waitFor(() => pty.screens.some((s) => s.slice(1).some((l) => moduleLine('Running', '\\S+').test(l))), {
      timeoutMs: 100_000,
      message: 'a screen with a module running',
    });
    pty.type('\x03');
    expect(await pty.exited).toBe(130);
    const last = pty.screen();
    expect(last[0]).toMatch(new RegExp(`^${run} {2}Running {2}\\d+\\.\\ds$`));
    expect(last.slice(1).some((l) => moduleLine('Running', '\\S+').test(l))).toBe(true);
    expect(pty.raw()).not.toMatch(/Error|at /);
    expect((await h.getRun(run)).status?.phase, 'Ctrl-C stops the watch, not the run').not.toMatch(/Cancelled|Failed/);
  }, 150_000);
});
