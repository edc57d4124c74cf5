// Run-end CloudEvents to K_SINK (Knative SinkBinding convention), built and
// encoded in binary mode by the CloudEvents SDK (sink-message.ts, loaded when
// the first event is sent), with K_CE_OVERRIDES' extensions, retried a few
// times. A delivery that still fails is logged and reported (false): the event stays owed in the run's status and is sent
// again by the next delivery of the run's events or by the janitor.
import pRetry from 'p-retry';
import type { Logger } from 'pino';
import type { RunEndEvent } from '../../api/events.ts';
import { PLAIN_TRANSPORT, type Sink } from './sink-transport.ts';

export interface SinkPolicy {
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
  /** One POST with no answer by then fails (and is retried while retries are left). */
  attemptTimeoutMs: number;
}

/**
 * The function sends in the background (no reply waits): a few retries, then
 * the event is left owed. On a synchronous Broker one POST lasts the whole
 * fan-out to its Triggers. A Trigger of knative/triggers.yaml delivers with
 * the Broker's delivery (knative/broker.yaml): at most 6 attempts of 30 s,
 * 31 s of backoff and its dead-letter sink's attempt, 241 s. Each POST gets 250 s, so none is cut in flight and
 * sent again. SIGTERM aborts it (outbox.ts): the event stays owed.
 */
export const FUNCTION_SINK_POLICY: SinkPolicy = {
  retries: 5,
  minTimeoutMs: 200,
  maxTimeoutMs: 5000,
  attemptTimeoutMs: 250_000,
};
/**
 * The janitor sends each owed event within its sweep of at most 110 s: one
 * retry, the next sweep tries again. A POST it cuts is sent again under the
 * same id.
 */
export const JANITOR_SINK_POLICY: SinkPolicy = {
  retries: 1,
  minTimeoutMs: 200,
  maxTimeoutMs: 1000,
  attemptTimeoutMs: 5000,
};

export type Notify = (event: RunEndEvent, signal?: AbortSignal) => Promise<boolean>;

export function sinkNotifier(
  { url: sink, extensions, transport = PLAIN_TRANSPORT }: Sink,
  log: Logger,
  policy: SinkPolicy,
): Notify {
  if (!sink) return async () => false;
  return async (event, signal) => {
    const { binaryMessage } = await import('./sink-message.ts');
    const { headers, body } = binaryMessage(event, extensions);
    try {
      await pRetry(
        async () => {
          const timeout = AbortSignal.timeout(policy.attemptTimeoutMs);
          const authorization = await transport.authorization();
          const res = await transport.fetch(sink, {
            method: 'POST',
            headers: { ...(headers as Record<string, string>), ...(authorization ? { authorization } : {}) },
            body: body as string,
            signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          });
          await res.body?.cancel();
          if (!res.ok) throw new Error(`K_SINK answered ${res.status}`);
        },
        {
          retries: policy.retries,
          minTimeout: policy.minTimeoutMs,
          maxTimeout: policy.maxTimeoutMs,
          randomize: true,
          ...(signal ? { signal } : {}),
          shouldRetry: () => !signal?.aborted,
        },
      );
      return true;
    } catch (error) {
      log.warn(
        { err: error, eventId: event.id, run: event.subject },
        "run-end event not delivered to K_SINK: still owed, sent again by the next delivery of the run's events or the janitor",
      );
      return false;
    }
  };
}
