// prometheus-operator's CRDs, from its Go module (example/prometheus-operator-crd/)
// through the Go module proxy, for the monitoring manifests' dry runs.
import { join } from 'node:path';
import { kubectlPath } from '../../local/cluster/crds.ts';
import { runCommand } from '../../local/cluster/run-command.ts';
import { downloadModule } from './knative-crds.ts';
import { adminKubeconfigPath } from './kube.ts';

const PROMETHEUS_OPERATOR_MODULE = 'github.com/prometheus-operator/prometheus-operator@v0.93.0';

/** Applies the CRD of `plural` (podmonitors, prometheusrules) to the test cluster and waits until it is Established. */
export async function installPrometheusOperatorCrd(plural: string): Promise<void> {
  const kubectl = (...args: string[]) => runCommand(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, ...args]);
  const crd = join(
    await downloadModule(PROMETHEUS_OPERATOR_MODULE),
    `example/prometheus-operator-crd/monitoring.coreos.com_${plural}.yaml`,
  );
  await kubectl('apply', '--server-side', '--force-conflicts', '-f', crd);
  await kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=120s',
    `customresourcedefinition.apiextensions.k8s.io/${plural}.monitoring.coreos.com`,
  );
}
