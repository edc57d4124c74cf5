// The bundled control plane for `npm start` and `npm run start:process`: the one `npm run cluster:up`
// left running, or a new one tied to this process; CRDs applied, the
// namespace, the modules' ServiceAccount and the demo CascadeAutoOperator
// created when missing.
import { readFileSync } from 'node:fs';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { apiClient } from './kube.ts';
import { apiserverReady, readClusterInfo } from './cluster/cluster-state.ts';
import { startCluster } from './cluster/cluster.ts';
import { applyCrds } from './cluster/crds.ts';
import { defaultStateDir } from './cluster/paths.ts';
import { API_VERSION, CASCADE_AUTO_OPERATOR_KIND } from '../shared/api/group.ts';
import { applyManifests, manifests } from './function-rbac.ts';
import { MODULE_SERVICE_ACCOUNT } from '../shared/core/job-manifest.ts';

const log = (message: string) => process.stderr.write(`${message}\n`);

async function ignoreExisting(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if ((error as { code?: number }).code !== 409) throw error;
  }
}

export async function bundledCluster(): Promise<{ kubeconfig: string; stop: () => Promise<void> }> {
  const stateDir = defaultStateDir();
  const info = readClusterInfo(stateDir);
  if (info && (await apiserverReady(info.kubeconfig))) {
    log(`cascade: using the bundled control plane started by \`npm run cluster:up\` (${stateDir})`);
    return { kubeconfig: info.kubeconfig, stop: async () => {} };
  }
  log('cascade: starting the bundled control plane (the first time builds it, several minutes)');
  const cluster = await startCluster({ stateDir, tieToProcess: true, log });
  return { kubeconfig: cluster.kubeconfig, stop: cluster.stop };
}

export async function prepareNamespace(
  kubeconfig: string,
  namespace: string,
  scenarioName: string,
  scenarioFile: string,
): Promise<void> {
  await applyCrds(kubeconfig);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  await ignoreExisting(apiClient(kc, CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } }));
  const moduleAccount = manifests('knative/rbac.yaml', namespace, ['ServiceAccount']).filter(
    (d) => d.metadata?.name === MODULE_SERVICE_ACCOUNT,
  );
  await applyManifests(kc, moduleAccount, true);
  const scenario = JSON.parse(readFileSync(scenarioFile, 'utf8')) as { cascademodules: unknown[] };
  await createScenario(kc, namespace, scenarioName, scenario.cascademodules);
}

/** Creates scenario `name` of `modules` in `namespace`, unless it exists. */
export async function createScenario(
  kc: KubeConfig,
  namespace: string,
  name: string,
  modules: readonly unknown[],
): Promise<void> {
  await ignoreExisting(
    apiClient(kc, CustomObjectsApi).createNamespacedCustomObject({
      group: 'cascade.cascade.net',
      version: 'v1alpha1',
      namespace,
      plural: 'cascadeautooperators',
      body: {
        apiVersion: API_VERSION,
        kind: CASCADE_AUTO_OPERATOR_KIND,
        metadata: { name },
        spec: { scenarioconfig: { cascademodules: modules } },
      },
    }),
  );
}
