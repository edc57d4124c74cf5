// Every build of the local cluster started at once. Each needs only Go and
// the module proxy, never another build's output, so none need wait for
// another: on a first start they share the cores from the first second, and
// the longest sets the time. Each later caller of a build waits on its lock
// (cached-build.sh) and then finds the binary built, so no build runs twice.
// For the tests, the control plane's build comes first: the others run niced,
// so the first tests start once it is up, and the others end while they run.
import { withNiceness } from './build-script.ts';
import { ensureBinaries } from './cluster/binaries.ts';
import { ensureEventingBinaries } from './knative/eventing/install.ts';
import { ensureServingBinaries } from './knative/serving/binaries.ts';
import { ensureKnativeValidate } from './knative/validate/knative-validate.ts';
import { ensureKubeStateMetrics } from './kube-state-metrics/kube-state-metrics.ts';
import { ensureNodeBinaries } from './node/binaries.ts';
import { ensurePrometheus, ensurePromtool } from './prometheus/binaries.ts';
import { ensureRegistryTools } from './registry/registry.ts';

/** The builds of `npm start`: the control plane, the real node and its registry, Knative. */
const startBuilds = [
  ensureBinaries,
  ensureNodeBinaries,
  ensureRegistryTools,
  ensureServingBinaries,
  ensureEventingBinaries,
];

/** The builds only the tests use beside them. */
const testBuilds = [ensurePromtool, ensurePrometheus, ensureKubeStateMetrics, ensureKnativeValidate];

/** The niceness of the builds the tests' first files do not wait for. */
const LATER_BUILDS_NICENESS = 10;

/**
 * Starts the builds `npm start` needs, and with `forTests` those of the
 * tests too, all but the control plane's niced. Resolves when all ended; a
 * failed build is left to the caller that needs it, which runs it again and
 * reports its error.
 */
export async function prebuild(forTests = false): Promise<void> {
  const builds = forTests ? [...startBuilds, ...testBuilds] : startBuilds;
  const start = (build: () => Promise<unknown>) =>
    forTests && build !== ensureBinaries ? withNiceness(LATER_BUILDS_NICENESS, build) : build();
  await Promise.allSettled(builds.map(start));
}
