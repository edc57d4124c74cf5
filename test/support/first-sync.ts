// The function's first sync as its metrics show it (shared/engine/sync/first-sync.ts):
// the passes done, and the runs each kind of move moved.
import type { FunctionProcess } from '../../local/stand-ins/function-process.ts';
import { waitFor } from './kube.ts';

/** The value of an unlabelled sample, or of one labelled `move="<move>"`, in a Prometheus text. */
function sample(text: string, name: string, move?: string): number {
  const labels = move === undefined ? '' : `\\{move="${move}"\\}`;
  const m = new RegExp(`^${name}${labels} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

export interface SyncFigures {
  passes: number;
  moved: { start: number; admission: number; look: number; wake: number };
}

export async function syncFigures(fn: Pick<FunctionProcess, 'metricsUrl'>): Promise<SyncFigures> {
  const text = await (await fetch(fn.metricsUrl)).text();
  const moved = (move: string) => sample(text, 'cascade_sync_moves_total', move);
  return {
    passes: sample(text, 'cascade_sync_passes_total'),
    moved: { start: moved('start'), admission: moved('admission'), look: moved('look'), wake: moved('wake') },
  };
}

/**
 * Waits until the function has made `passes` passes of its first sync: at start, once its watches of runs and
 * Jobs have listed (a second after it loaded its engine). A test that sets up runs for another actor to move
 * waits for this first, so that the function's sync does not move them before. The wait is long: a list the
 * API server refuses (403) is tried again a minute later (kube/informer.ts pauseAfter). On a timeout, the
 * function's output says why.
 */
export async function synced(
  fn: Pick<FunctionProcess, 'metricsUrl'> & Partial<Pick<FunctionProcess, 'output'>>,
  passes = 1,
): Promise<SyncFigures> {
  try {
    return await waitFor(
      async () => {
        const figures = await syncFigures(fn).catch(() => undefined);
        return figures && figures.passes >= passes ? figures : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 100, message: `the function's first sync made ${passes} pass(es)` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; the function's output:\n${fn.output?.().slice(-4000) ?? ''}`);
  }
}
