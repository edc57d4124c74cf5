// The faults of the real-Knative soak (knative-soak.run.ts), each a platform
// part taken down as a crash does: its pods deleted with a grace period of 0.
// The last one rolls out a new revision of the function's Knative Service.
// Knative's controllers bring each part back; the soak times what follows.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { EVENTING_NAMESPACE } from '../../local/knative/eventing/manifests.ts';
import { SERVING_NAMESPACE } from '../../local/knative/serving/manifests.ts';
import { apiClient, apiStatus } from '../../local/kube.ts';
import { adminKubeConfig } from '../support/kube.ts';

/** Where a fault's pods live: a namespace, and a label selector or a Deployment's name. */
interface Target {
  /** Undefined: the soak's own namespace. */
  namespace?: string;
  selector?: string;
  deployment?: string;
}

export const PLATFORM_FAULTS = {
  "the function's pods": { selector: 'serving.knative.dev/service=cascade' },
  "the Broker's ingress": { namespace: EVENTING_NAMESPACE, deployment: 'mt-broker-ingress' },
  "the Broker's filter": { namespace: EVENTING_NAMESPACE, deployment: 'mt-broker-filter' },
  'the channel dispatcher': { namespace: EVENTING_NAMESPACE, deployment: 'imc-dispatcher' },
  'the ApiServerSource adapter': { selector: 'eventing.knative.dev/source=apiserver-source-controller' },
  "Serving's activator": { namespace: SERVING_NAMESPACE, deployment: 'activator' },
  "Serving's autoscaler": { namespace: SERVING_NAMESPACE, deployment: 'autoscaler' },
  'a new revision': {},
} satisfies Record<string, Target>;

export type PlatformFault = keyof typeof PLATFORM_FAULTS;

/** The faults in the order the soak takes them, round after round. */
export const FAULT_ORDER = Object.keys(PLATFORM_FAULTS) as PlatformFault[];

/** A pod of Deployment `name`: the name its ReplicaSet gives, `<name>-<hash>-<suffix>`. */
export function ofDeployment(pod: string, name: string): boolean {
  return new RegExp(`^${name}-[a-z0-9]+-[a-z0-9]{5}$`).test(pod);
}

async function targetPods(namespace: string, target: Target): Promise<V1Pod[]> {
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace, labelSelector: target.selector });
  return pods.items.filter(
    (p) => !p.metadata?.deletionTimestamp && (!target.deployment || ofDeployment(p.metadata!.name!, target.deployment)),
  );
}

/** Deletes the target's pods at once; resolves to their names. */
async function killPods(namespace: string, target: Target): Promise<string[]> {
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  const names: string[] = [];
  for (const pod of await targetPods(namespace, target)) {
    const name = pod.metadata!.name!;
    await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 }).catch((error: unknown) => {
      if (apiStatus(error) !== 404) throw error;
    });
    names.push(name);
  }
  return names;
}

/** Changes an annotation of the Service's template: Serving makes a new revision and moves the traffic to it. */
async function rollOut(namespace: string, round: number): Promise<string> {
  const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
  const annotations = { 'cascade.cascade.net/soak-rollout': String(round) };
  await custom.patchNamespacedCustomObject(
    {
      group: 'serving.knative.dev',
      version: 'v1',
      namespace,
      plural: 'services',
      name: 'cascade',
      body: { spec: { template: { metadata: { annotations } } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  return `rollout ${round}`;
}

/** Injects `fault` in the soak's `namespace`; resolves to what it did, for the log. */
export async function injectFault(fault: PlatformFault, namespace: string, round: number): Promise<string> {
  if (fault === 'a new revision') return rollOut(namespace, round);
  const target: Target = PLATFORM_FAULTS[fault];
  const names = await killPods(target.namespace ?? namespace, target);
  return names.length > 0 ? `deleted ${names.join(', ')}` : 'no pod to delete';
}
