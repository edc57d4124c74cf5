// `watch RUN`: the run's progress, one line per module, from a watch of the
// CascadeRun. On a terminal the screen is redrawn in place (and its elapsed
// times every second); elsewhere a plain line is printed per change. The exit
// status says how the run ended; Ctrl-C stops the watch with 130.
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { outPalette, type Io } from '../io.ts';
import type { Kube } from '../kube/connect.ts';
import { followRun } from '../kube/runs.ts';
import { EXIT_ERROR, EXIT_INTERRUPTED, exitCodeOf } from '../runs/exit-code.ts';
import type { RunObject } from '../runs/run-object.ts';
import { changeLines, redrawPrefix, screenLines, type Shown } from '../runs/screen.ts';
import { COMMAND_LINES } from './summaries.ts';

/** Follows `name`, in `kube`'s namespace, to its end on `io.out`; the exit status of its final phase. */
export async function watchRun(io: Io, kube: Kube, name: string): Promise<number> {
  const live = Boolean(io.out.isTTY);
  const p = outPalette(io);
  let drawn = 0;
  let last: RunObject | undefined;
  const draw = () => {
    if (!last) return;
    const lines = screenLines(last, io.now(), p);
    io.out.write(`${redrawPrefix(drawn)}${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  const shown: Shown = new Map();
  const onChange = (run: RunObject) => {
    last = run;
    if (live) draw();
    else for (const line of changeLines(run, shown, io.now())) io.out.write(`${line}\n`);
  };
  const ticker = live ? setInterval(draw, 1000) : undefined;
  const stop = new AbortController();
  const interrupted = () => stop.abort();
  process.on('SIGINT', interrupted); // each Ctrl-C, the first and any more, ends the watch with 130
  try {
    const run = await followRun(kube, name, onChange, { signal: stop.signal });
    if (live) draw();
    if (stop.signal.aborted) return EXIT_INTERRUPTED;
    return exitCodeOf(run.status?.phase) ?? EXIT_ERROR;
  } finally {
    clearInterval(ticker);
    process.off('SIGINT', interrupted);
  }
}

export function registerWatch(program: Command, ctx: Ctx): void {
  program
    .command('watch')
    .argument('<run>', "the CascadeRun's name")
    .description(COMMAND_LINES.watch.description)
    .action(
      act(ctx, async (name: string, _opts: unknown, cmd: Command) => {
        return watchRun(ctx.io, connection(cmd), name);
      }),
    );
}
