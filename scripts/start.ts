// `npm start`: Cascade's function served locally by faas-js-runtime on
// http://localhost:8080 (PORT), against $KUBECONFIG, or against the bundled
// local control plane when none is configured. Job changes reach the function
// through a local stand-in for Knative's ApiServerSource, as they would on a
// cluster. Ctrl-C stops everything this started.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { startApiServerSource } from '../local/apiserver-source.ts';
import { bundledCluster, prepareNamespace } from '../local/bundled-cluster.ts';

const port = process.env.PORT ?? '8080';
const namespace = process.env.POD_NAMESPACE ?? 'cascade-operator';
const scenarioName = process.env.SCENARIO_NAME ?? 'cascadeautooperator-ip';
const demoScenario = join(repoRoot, 'local/demo-scenario.json');

async function main(): Promise<void> {
  const own = process.env.KUBECONFIG ? undefined : await bundledCluster();
  const kubeconfig = process.env.KUBECONFIG ?? own!.kubeconfig;
  if (own) await prepareNamespace(kubeconfig, namespace, scenarioName, demoScenario);
  const env = { ...process.env, KUBECONFIG: kubeconfig, POD_NAMESPACE: namespace, SCENARIO_NAME: scenarioName, CONFIG_PATH: process.env.CONFIG_PATH ?? demoScenario };
  // the bundled control plane comes with a kubectl of its version
  const kubectl = own ? kubectlPath() : 'kubectl';
  const fn = spawn(process.execPath, [join(repoRoot, 'node_modules/faas-js-runtime/bin/cli.js'), join(repoRoot, 'functions/cascade/index.ts'), '--port', port], { env, stdio: 'inherit' });
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const source = await startApiServerSource({ kc, namespace, sink: `http://127.0.0.1:${port}`, onError: (e) => process.stderr.write(`apiserver-source: ${String(e)}\n`) });
  process.stderr.write([
    '',
    `cascade: function on http://localhost:${port} (namespace ${namespace}, scenario ${scenarioName}, KUBECONFIG=${kubeconfig})`,
    'cascade: start a run from another terminal:',
    `  curl -s -X POST localhost:${port}/ -H 'content-type: application/json' -d '{"turlinfo":"s3://bucket/in.tgz","iuid":"33e65374-ee8e-4da6-a2e7-71a9cc39d222"}'`,
    `  KUBECONFIG=${kubeconfig} ${kubectl} -n ${namespace} get cascaderuns -w`,
    '',
  ].join('\n'));
  const stop = async () => {
    source.stop();
    fn.kill('SIGTERM');
    await new Promise((r) => fn.once('exit', r));
    await own?.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  fn.once('exit', (code) => {
    if (code !== 0 && code !== null) process.stderr.write(`cascade: the function exited with ${code}\n`);
    void stop();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`cascade: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
