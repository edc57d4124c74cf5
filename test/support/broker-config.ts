// knative/'s Broker and Triggers for the tests, with the ingress each test
// names. 'sync': without the async-handler annotation, as knative/broker.yaml
// ships it and Knative's default Broker answers on every Eventing release.
// 'async': with it, as the local cluster's overlay sets it for Eventing 1.17+
// (local/knative/cascade-deploy.ts).
import { knativeConfig } from '../../local/stand-ins/broker/broker.ts';
import type { BrokerSpec, EventingConfig } from '../../local/stand-ins/broker/config.ts';

export type BrokerMode = 'sync' | 'async';

export function brokerConfig(mode: BrokerMode): EventingConfig {
  const { broker, triggers } = knativeConfig();
  const spec: BrokerSpec = { name: broker.name, ...(broker.delivery ? { delivery: broker.delivery } : {}) };
  return { broker: mode === 'async' ? { ...spec, async: true } : spec, triggers };
}
