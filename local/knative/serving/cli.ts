// `node local/knative/serving/cli.ts install [kubeconfig]`: installs Knative
// Serving and Traefik on the cluster of the kubeconfig (default $KUBECONFIG),
// whose real node must run.
import { installServing } from './install.ts';

const [command, kubeconfig = process.env.KUBECONFIG] = process.argv.slice(2);
if (command !== 'install' || !kubeconfig) {
  process.stderr.write('usage: node local/knative/serving/cli.ts install [kubeconfig]\n');
  process.exit(2);
}
await installServing(kubeconfig, { log: (m) => process.stderr.write(`${m}\n`) });
