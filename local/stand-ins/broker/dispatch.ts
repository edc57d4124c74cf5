// One event to one destination, as Knative's dispatcher delivers it: attempt,
// read the answer as the Broker's filter does, retry what SelectiveRetry
// retries with the policy's backoff, give up after `retries`. No I/O of its
// own: sending, waiting and recording are given, so the loop is tested with
// stand-ins.
import { replyMeaning, type CloudEvent, type Headers } from './cloudevent.ts';
import { isRetried, type RetryPolicy } from './delivery.ts';

/** An HTTP answer, or none (`error`: a connection error or a timeout). */
export interface Answer {
  status?: number;
  headers: Headers;
  body: Uint8Array;
  error?: string;
  /** No answer within the attempt's timeout (the channel cut its request to the filter). */
  timedOut?: boolean;
  /** How long the attempt took, when measured. */
  ms?: number;
}

/** One delivery attempt, as the stand-in records it. */
export interface Attempt {
  /** The Trigger, or `<trigger> dead-letter sink`. */
  route: string;
  id: string;
  type: string;
  /** 1 for the first attempt. */
  attempt: number;
  target: string;
  /** The status the dispatcher saw (502 for a 2xx that is no CloudEvent), undefined for no answer. */
  status?: number;
  outcome: 'delivered' | 'reply' | 'retry' | 'failed';
  detail?: string;
  /** How long the destination took to answer (or to fail), when measured. */
  ms?: number;
}

export interface DispatchIo {
  send(target: string, event: CloudEvent, timeoutMs: number | undefined): Promise<Answer>;
  sleep(ms: number): Promise<void>;
  record(attempt: Attempt): void;
}

export interface Route {
  name: string;
  /** The next address to try (round robin over replicas), undefined when there is none. */
  next(): string | undefined;
}

export type Final =
  | { kind: 'delivered' }
  | { kind: 'reply'; event: CloudEvent }
  /**
   * `status`: the last status, 500 when there was no answer. `extensions`: the
   * filter answered its error JSON, so the dead-letter sink gets Knative's
   * error extensions (a subscriber's non-2xx, or no answer before the timeout).
   */
  | { kind: 'failed'; status: number; body: Uint8Array; target: string; attempts: number; extensions: boolean };

const encoder = new TextEncoder();
const text = (b: Uint8Array) => new TextDecoder().decode(b).slice(0, 300);

type Step = { final: Final; retry: boolean; status?: number; detail?: string };

function meaning(answer: Answer, target: string, attempts: number): Step {
  if (answer.status === undefined) {
    const body = encoder.encode(`dispatch error: ${answer.error ?? 'no answer'}`);
    return {
      final: { kind: 'failed', status: 500, body, target, attempts, extensions: !answer.timedOut },
      retry: true,
      detail: answer.error,
    };
  }
  const m = replyMeaning(answer.status, answer.headers, answer.body);
  if (m.kind !== 'failed') return { final: m, retry: false, status: answer.status };
  return {
    final: { kind: 'failed', status: m.status, body: m.body, target, attempts, extensions: m.subscriber },
    retry: isRetried(m.status),
    status: m.status,
    detail: text(m.body),
  };
}

function attemptOf(a: Attempt, detail: string | undefined, ms: number | undefined): Attempt {
  return { ...a, ...(detail ? { detail } : {}), ...(ms !== undefined ? { ms } : {}) };
}

export async function dispatch(event: CloudEvent, route: Route, policy: RetryPolicy, io: DispatchIo): Promise<Final> {
  const { id = '', type = '' } = event.attributes;
  let last: Final | undefined;
  for (let n = 1; n <= policy.retries + 1; n++) {
    const target = route.next();
    const answer: Answer = target
      ? await io.send(target, event, policy.timeoutMs)
      : { headers: {}, body: new Uint8Array(), error: 'no address to send to' };
    const step = meaning(answer, target ?? '', n);
    last = step.final;
    const more = step.retry && n <= policy.retries;
    const outcome = step.final.kind === 'failed' ? (more ? 'retry' : 'failed') : step.final.kind;
    io.record(
      attemptOf(
        { route: route.name, id, type, attempt: n, target: target ?? '', status: step.status, outcome },
        step.detail,
        answer.ms,
      ),
    );
    if (!more) break;
    await io.sleep(policy.waitMs(n, { status: answer.status, retryAfter: header(answer.headers, 'retry-after') }));
  }
  return last!;
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
