import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { FUNCTION_SINK_POLICY } from './sink.ts';

interface Delivery {
  retry: number;
  backoffDelay: string;
  timeout: string;
  deadLetterSink?: unknown;
}

/** Seconds of an ISO 8601 duration as the Triggers write it: PT1S, PT30S. */
const seconds = (iso: string) => Number(/^PT(\d+)S$/.exec(iso)?.[1] ?? Number.NaN);

/** The longest one event takes through a Trigger: every attempt timed out, every backoff waited, then the dead-letter sink's attempt. */
function worstMs(d: Delivery): number {
  const attempts = d.retry + 1 + (d.deadLetterSink ? 1 : 0);
  const backoff = Array.from({ length: d.retry }, (_, i) => seconds(d.backoffDelay) * 2 ** i).reduce(
    (a, b) => a + b,
    0,
  );
  return (attempts * seconds(d.timeout) + backoff) * 1000;
}

describe("the function's run-end POST on a synchronous Broker", () => {
  it("outlasts one event's whole delivery through any Trigger of knative/triggers.yaml", () => {
    const read = (file: string) =>
      loadAll(readFileSync(new URL(`../../../knative/${file}`, import.meta.url), 'utf8')) as Array<{
        spec: { delivery?: Delivery };
      }>;
    const [broker] = read('broker.yaml');
    // A Trigger without a delivery takes the Broker's (knative/broker.yaml).
    const worst = read('triggers.yaml').map((t) => worstMs((t.spec.delivery ?? broker!.spec.delivery)!));
    expect(worst.length).toBeGreaterThan(0);
    expect(Math.max(...worst)).toBe(241_000);
    expect(FUNCTION_SINK_POLICY.attemptTimeoutMs).toBeGreaterThan(Math.max(...worst));
  });
});
