// `node local/knative/serving/cli.ts install|uninstall [kubeconfig]`: installs
// Knative Serving and Traefik on the cluster of the kubeconfig (default
// $KUBECONFIG), whose real node must run, or removes them.
import { installServing, uninstallServing } from './install.ts';

const [command, kubeconfig = process.env.KUBECONFIG] = process.argv.slice(2);
if (!kubeconfig || (command !== 'install' && command !== 'uninstall')) {
  process.stderr.write('usage: node local/knative/serving/cli.ts install|uninstall [kubeconfig]\n');
  process.exit(2);
}
if (command === 'install') await installServing(kubeconfig, { log: (m) => process.stderr.write(`${m}\n`) });
else await uninstallServing(kubeconfig);
