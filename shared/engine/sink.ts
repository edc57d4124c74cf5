// Run-end CloudEvents to K_SINK (Knative SinkBinding convention), in binary
// mode, retried a few times; a delivery that still fails is logged and dropped:
// it never fails the run.
import pRetry from 'p-retry';
import type { Logger } from 'pino';
import type { RunEndEvent } from '../api/events.ts';

export function sinkNotifier(sink: string | undefined, log: Logger, retries = 3): (event: RunEndEvent) => Promise<void> {
  if (!sink) return async () => {};
  return async (event) => {
    const headers = {
      'content-type': 'application/json',
      'ce-specversion': '1.0', 'ce-id': event.id, 'ce-type': event.type,
      'ce-source': event.source, 'ce-subject': event.subject, 'ce-time': new Date().toISOString(),
    };
    try {
      await pRetry(async () => {
        const res = await fetch(sink, { method: 'POST', headers, body: JSON.stringify(event.data), signal: AbortSignal.timeout(5000) });
        if (!res.ok) throw new Error(`K_SINK answered ${res.status}`);
      }, { retries, minTimeout: 100, maxTimeout: 2000 });
    } catch (error) {
      log.error({ err: error, eventId: event.id, run: event.subject }, 'run-end event not delivered to K_SINK');
    }
  };
}
