// `npm start`: Cascade's function served locally by faas-js-runtime behind
// Knative Serving's queue-proxy on http://localhost:8080 (PORT), as in a pod
// (CASCADE_QUEUE_PROXY=off: the function itself on PORT), against
// $KUBECONFIG, or against the bundled local control plane when none is
// configured. Job changes reach the function through a local stand-in for
// Knative's ApiServerSource, as they would on a cluster. Ctrl-C stops
// everything this started.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { startApiServerSource } from '../local/apiserver-source.ts';
import { bundledCluster, prepareNamespace } from '../local/bundled-cluster.ts';
import { freePort } from '../local/function-process.ts';
import { startQueueProxy, type QueueProxy } from '../local/queue-proxy/queue-proxy.ts';

const port = process.env.PORT ?? '8080';
const namespace = process.env.POD_NAMESPACE ?? 'cascade-operator';
const scenarioName = process.env.SCENARIO_NAME ?? 'cascadeautooperator-ip';
const demoScenario = join(repoRoot, 'local/demo-scenario.json');
const withQueueProxy = process.env.CASCADE_QUEUE_PROXY !== 'off';

async function main(): Promise<void> {
  const own = process.env.KUBECONFIG ? undefined : await bundledCluster();
  const kubeconfig = process.env.KUBECONFIG ?? own!.kubeconfig;
  if (own) await prepareNamespace(kubeconfig, namespace, scenarioName, demoScenario);
  const env = { ...process.env, KUBECONFIG: kubeconfig, POD_NAMESPACE: namespace, SCENARIO_NAME: scenarioName, CONFIG_PATH: process.env.CONFIG_PATH ?? demoScenario };
  // the bundled control plane comes with a kubectl of its version
  const kubectl = own ? kubectlPath() : 'kubectl';
  // behind queue-proxy the function takes a port of its own, as the user container of a pod
  const fnPort = withQueueProxy ? String(await freePort()) : port;
  const fn = spawn(process.execPath, [join(repoRoot, 'node_modules/faas-js-runtime/bin/cli.js'), join(repoRoot, 'functions/cascade/index.ts'), '--port', fnPort], { env, stdio: 'inherit' });
  const qp: QueueProxy | undefined = withQueueProxy
    ? await startQueueProxy({ userPort: Number(fnPort), servingPort: Number(port), namespace, lockWaitSeconds: 120 }).catch((error: unknown) => {
      fn.kill('SIGTERM');
      throw error;
    })
    : undefined;
  // as the kubelet: no traffic before queue-proxy's readiness probe (the function's /ready) passes
  await qp?.waitReady();
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const source = await startApiServerSource({ kc, namespace, sink: `http://127.0.0.1:${port}`, onError: (e) => process.stderr.write(`apiserver-source: ${String(e)}\n`) });
  process.stderr.write([
    '',
    qp
      ? `cascade: function on http://localhost:${fnPort} behind Knative's queue-proxy on http://localhost:${port} (its metrics: ${qp.metricsUrl})`
      : `cascade: function on http://localhost:${port}`,
    `cascade: namespace ${namespace}, scenario ${scenarioName}, KUBECONFIG=${kubeconfig}`,
    'cascade: start a run from another terminal:',
    `  curl -s -X POST localhost:${port}/ -H 'content-type: application/json' -d '{"turlinfo":"s3://bucket/in.tgz","iuid":"33e65374-ee8e-4da6-a2e7-71a9cc39d222"}'`,
    `  KUBECONFIG=${kubeconfig} ${kubectl} -n ${namespace} get cascaderuns -w`,
    '',
  ].join('\n'));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    source.stop();
    // at once, not the 30 s drain of a pod's queue-proxy
    await qp?.stop('SIGKILL');
    if (fn.exitCode === null && fn.signalCode === null) {
      fn.kill('SIGTERM');
      await new Promise((r) => fn.once('exit', r));
    }
    await own?.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  fn.once('exit', (code) => {
    if (code !== 0 && code !== null) process.stderr.write(`cascade: the function exited with ${code}\n`);
    void stop();
  });
  qp?.child.once('exit', (code) => {
    if (stopping) return;
    process.stderr.write(`cascade: queue-proxy exited with ${code}:\n${qp.output().slice(-2000)}\n`);
    void stop();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`cascade: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
