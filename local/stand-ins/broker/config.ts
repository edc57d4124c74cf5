// The Broker and its Triggers as knative/broker.yaml and knative/triggers.yaml
// declare them, read for the stand-in: each Trigger's exact-match filter,
// subscriber and delivery, the Broker's delivery. Pure (YAML text in); which
// Triggers take an event (`matches`) and where a Destination points
// (`destinationKey`) too.
import { loadAll } from 'js-yaml';
import type { DeliverySpec, Destination } from './delivery.ts';

export interface Trigger {
  name: string;
  broker: string;
  /** `spec.filter.attributes`: every attribute must be present and equal ('' matches any non-empty value). */
  filter: Record<string, string>;
  subscriber: Destination;
  delivery?: DeliverySpec;
}

export interface BrokerSpec {
  name: string;
  delivery?: DeliverySpec;
  /** `messaging.knative.dev/async-handler` reads true: the channel answers 202 before it delivers. */
  async?: true;
}

/** The annotation Eventing 1.17+ copies from a Broker to its InMemoryChannel. */
export const ASYNC_HANDLER = 'messaging.knative.dev/async-handler';

/** Go's strconv.ParseBool as the dispatcher reads the annotation: anything else counts as false. */
export function parseBool(value: unknown): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(String(value));
}

export interface EventingConfig {
  broker: BrokerSpec;
  triggers: Trigger[];
}

type Doc =
  | {
      kind?: string;
      metadata?: { name?: string; annotations?: Record<string, unknown> };
      spec?: Record<string, unknown>;
    }
  | null
  | undefined;

const docs = (yaml: string, kind: string) =>
  (loadAll(yaml) as Doc[]).filter((d): d is NonNullable<Doc> => d?.kind === kind);

function nameOf(doc: NonNullable<Doc>): string {
  const name = doc.metadata?.name;
  if (!name) throw new Error(`a ${doc.kind} without metadata.name`);
  return name;
}

function destination(value: unknown, what: string): Destination {
  const d = value as Destination | undefined;
  if (!d || (!d.uri && !(d.ref?.kind && d.ref.name)))
    throw new Error(`${what}: a ref (kind, name) or a uri is required`);
  return d;
}

function delivery(value: unknown, what: string): DeliverySpec | undefined {
  if (value === undefined) return undefined;
  const d = value as DeliverySpec;
  if (d.deadLetterSink !== undefined) destination(d.deadLetterSink, `${what}.deadLetterSink`);
  if (d.backoffPolicy !== undefined && d.backoffPolicy !== 'exponential' && d.backoffPolicy !== 'linear') {
    throw new Error(`${what}.backoffPolicy: exponential or linear, not ${JSON.stringify(d.backoffPolicy)}`);
  }
  if (d.retry !== undefined && (!Number.isInteger(d.retry) || d.retry < 0))
    throw new Error(`${what}.retry: a non-negative integer`);
  return d;
}

export function parseTriggers(yaml: string): Trigger[] {
  return docs(yaml, 'Trigger').map((doc) => {
    const name = nameOf(doc);
    const spec = doc.spec ?? {};
    const filter = (spec.filter as { attributes?: Record<string, string> } | undefined)?.attributes ?? {};
    const trigger: Trigger = {
      name,
      broker: String(spec.broker ?? 'default'),
      filter,
      subscriber: destination(spec.subscriber, `Trigger ${name} subscriber`),
    };
    const d = delivery(spec.delivery, `Trigger ${name} delivery`);
    return d ? { ...trigger, delivery: d } : trigger;
  });
}

export function parseBroker(yaml: string): BrokerSpec {
  const [doc] = docs(yaml, 'Broker');
  if (!doc) throw new Error('no Broker');
  const name = nameOf(doc);
  const d = delivery(doc.spec?.delivery, `Broker ${name} delivery`);
  const async = parseBool(doc.metadata?.annotations?.[ASYNC_HANDLER]);
  return { name, ...(d ? { delivery: d } : {}), ...(async ? { async } : {}) };
}

/** Knative's attributes filter: each filtered attribute present and equal; '' asks only for presence with a value. */
export function matches(filter: Record<string, string>, attributes: Record<string, string>): boolean {
  return Object.entries(filter).every(([k, v]) => {
    const value = attributes[k];
    if (value === undefined || value === '') return false;
    return v === '' || v === value;
  });
}

/** How a Destination is looked up among the addresses the stand-in is given: its uri, or `Kind/name` of its ref. */
export function destinationKey(d: Destination): string {
  return d.uri ?? `${d.ref!.kind}/${d.ref!.name}`;
}
