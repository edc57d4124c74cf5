// The Server-Sent Events of the page: a snapshot when it connects, then the
// changes the state gathered, at most every 100 ms, and a comment every 15 s
// so that no proxy or browser takes the stream for dead. The snapshot's first
// message holds the list's first screen only; the other runs follow in a
// second one, so that the page can draw before it reads them all.
import type { ServerResponse } from 'node:http';
import { FIRST_SCREEN, newestOf, type Snapshot } from './protocol.ts';
import type { UiState } from './state.ts';

export const FLUSH_MS = 100;
const HEARTBEAT_MS = 15_000;

const message = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export interface StreamHub {
  /** Starts the stream on `res`: the snapshot once the first lists are in, then the changes. */
  add(res: ServerResponse, headers: Record<string, string>): Promise<void>;
  close(): void;
}

export function streamHub(state: UiState, ready: Promise<void>, scope: Snapshot['scope']): StreamHub {
  const clients = new Set<ServerResponse>();
  const flush = setInterval(() => {
    const changes = state.takeChanges();
    if (!changes) return;
    const text = message('changes', changes);
    for (const res of clients) res.write(text);
  }, FLUSH_MS);
  const heartbeat = setInterval(() => {
    for (const res of clients) res.write(': ping\n\n');
  }, HEARTBEAT_MS);
  return {
    async add(res, headers) {
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
      res.flushHeaders();
      await ready;
      if (res.destroyed) return;
      const first = newestOf(state.runSummaries.values(), FIRST_SCREEN);
      const snapshot: Snapshot = {
        scope,
        runs: first,
        total: state.runSummaries.size,
        scenarios: state.scenarios(),
        errors: [...state.errors.values()],
      };
      res.write(`retry: 1000\n${message('snapshot', snapshot)}`);
      // The rest as the state's JSON of each run (state.ts keeps it between snapshots): no JSON.stringify of 10,000 runs per page.
      if (first.length < snapshot.total)
        res.write(`event: rest\ndata: {"runs":${state.runsJson(new Set(first.map((r) => r.key)))}}\n\n`);
      clients.add(res);
      res.on('close', () => clients.delete(res));
    },
    close() {
      clearInterval(flush);
      clearInterval(heartbeat);
      for (const res of clients) res.end();
      clients.clear();
    },
  };
}
