// knative/'s Broker and Triggers for the tests, with the ingress each test
// names. 'sync' drops the async-handler annotation: the stand-in's default,
// as Knative's default Broker answers on every Eventing release. 'async' sets
// it, as knative/broker.yaml ships it for Eventing 1.17+.
import { knativeConfig } from '../../local/eventing/broker.ts';
import type { BrokerSpec, EventingConfig } from '../../local/eventing/config.ts';

export type BrokerMode = 'sync' | 'async';

export function brokerConfig(mode: BrokerMode): EventingConfig {
  const { broker, triggers } = knativeConfig();
  const spec: BrokerSpec = { name: broker.name, ...(broker.delivery ? { delivery: broker.delivery } : {}) };
  return { broker: mode === 'async' ? { ...spec, async: true } : spec, triggers };
}
