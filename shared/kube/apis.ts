// The Kubernetes clients, from $KUBECONFIG, ~/.kube/config or the in-cluster
// service account, whichever @kubernetes/client-node finds first.
import { BatchV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { KubeApis } from './store.ts';

export function kubeApis(kc: KubeConfig = defaultKubeConfig()): KubeApis {
  return { batch: kc.makeApiClient(BatchV1Api), core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

export function defaultKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}
