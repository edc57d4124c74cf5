import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../shared/api/group.ts';
import {
  APISERVER_EVENTS,
  MODULE_FINISHED,
  RUN_CANCEL_REQUESTED,
  RUN_RESUME_REQUESTED,
  RUN_REQUESTED,
} from '../../../shared/api/events.ts';
import { destinationKey, matches, parseBroker, parseTriggers } from './config.ts';
import { effectiveDelivery } from './delivery.ts';

const knative = join(import.meta.dirname, '../../../knative');

describe('knative/triggers.yaml and knative/broker.yaml, as the stand-in reads them', () => {
  const triggers = parseTriggers(readFileSync(join(knative, 'triggers.yaml'), 'utf8'));
  const broker = parseBroker(readFileSync(join(knative, 'broker.yaml'), 'utf8'));

  it("one Trigger per event the function takes, each to Service/cascade; the ApiServerSource's by type, kind and apiversion", () => {
    const takes = (t: (typeof triggers)[number]) =>
      [t.filter.type, t.filter.kind, t.filter.apiversion].filter(Boolean).join(' ');
    const [add, update, del] = APISERVER_EVENTS;
    expect(triggers.map(takes).sort()).toEqual(
      [
        RUN_REQUESTED,
        MODULE_FINISHED,
        RUN_CANCEL_REQUESTED,
        RUN_RESUME_REQUESTED,
        ...[add, update, del].map((t) => `${t} Job batch/v1`),
        ...[add, update].map((t) => `${t} CascadeRun ${API_VERSION}`),
      ].sort(),
    );
    expect(new Set(triggers.map((t) => destinationKey(t.subscriber)))).toEqual(new Set(['Service/cascade']));
    expect(new Set(triggers.map((t) => t.broker))).toEqual(new Set([broker.name]));
  });

  it("no Trigger sets a delivery: each delivers with the Broker's, retries, backoff, timeout and dead-letter sink", () => {
    expect(triggers.filter((t) => t.delivery !== undefined).map((t) => t.name)).toEqual([]);
    expect(broker.delivery).toMatchObject({
      retry: 5,
      backoffPolicy: 'exponential',
      backoffDelay: 'PT1S',
      timeout: 'PT30S',
    });
    for (const t of triggers) {
      const spec = effectiveDelivery(t.delivery, broker.delivery);
      expect(spec).toEqual(broker.delivery);
      expect(destinationKey(spec.deadLetterSink!)).toBe('Service/cascade-dead-letters');
    }
  });
});

describe('parse', () => {
  it('a Trigger with a uri subscriber and no delivery', () => {
    const [t] = parseTriggers(
      'kind: Trigger\nmetadata: {name: t}\nspec: {broker: b, subscriber: {uri: "http://x/"}}\n',
    );
    expect(t).toEqual({ name: 't', broker: 'b', filter: {}, subscriber: { uri: 'http://x/' } });
  });
  it.each([
    ['no subscriber', 'kind: Trigger\nmetadata: {name: t}\nspec: {broker: b}\n', /subscriber/],
    [
      'an unknown backoffPolicy',
      'kind: Trigger\nmetadata: {name: t}\nspec: {subscriber: {uri: x}, delivery: {backoffPolicy: fibonacci}}\n',
      /backoffPolicy/,
    ],
    [
      'a negative retry',
      'kind: Trigger\nmetadata: {name: t}\nspec: {subscriber: {uri: x}, delivery: {retry: -1}}\n',
      /retry/,
    ],
  ])('refuses %s', (_n, yaml, reason) => {
    expect(() => parseTriggers(yaml)).toThrow(reason);
  });
});

describe('the async-handler annotation', () => {
  const broker = (value: string) =>
    `kind: Broker\nmetadata: {name: b, annotations: {messaging.knative.dev/async-handler: "${value}"}}\n`;
  it.each([
    ['true', true],
    ['True', true],
    ['1', true],
    ['false', false],
    ['yes', false],
    ['', false],
  ])("%j: async %s, as Go's ParseBool reads it", (value, async) => {
    expect(parseBroker(broker(value)).async === true).toBe(async);
  });
  it("no annotation: synchronous, as Knative's default Broker", () => {
    expect(parseBroker('kind: Broker\nmetadata: {name: b}\n')).toEqual({ name: 'b' });
  });
});

describe('matches', () => {
  const attrs = { type: 'a', source: '/s', ext: '' };
  it.each([
    [{}, true],
    [{ type: 'a' }, true],
    [{ type: 'a', source: '/s' }, true],
    [{ type: 'b' }, false],
    [{ subject: 'x' }, false],
    [{ source: '' }, true],
    [{ ext: '' }, false],
    [{ ext: 'x' }, false],
  ])('%j: %s', (filter, expected) => {
    expect(matches(filter, attrs)).toBe(expected);
  });
});
