// Knative Eventing's commands as this repository builds them (build.sh): the
// version, each command's binary in the cache, and the image reference each
// gets on the real node. Pure: names in, names out.
import { join } from 'node:path';
import { buildCacheDir } from '../../build-script.ts';

export const EVENTING_VERSION = process.env.CASCADE_KNATIVE_EVENTING_VERSION ?? 'v0.50.0';

/**
 * The commands build.sh builds, as paths under knative.dev/eventing/cmd/: those
 * whose pods the local cluster runs, and event_display, the image of Cascade's
 * dead-letter sink and the tests' subscriber. Two commands the YAMLs name are
 * left out, since no pod of theirs ever runs here. `mtping` is the image of
 * pingsource-mt-adapter, which has 0 replicas until a PingSource exists.
 * `auth_proxy` is the sidecar image of IntegrationSinks and EventTransforms.
 * Their Deployment and environment keep the images' names, which no pod pulls.
 */
export const EVENTING_COMMANDS = [
  'controller',
  'webhook',
  'mtchannel_broker',
  'in_memory/channel_controller',
  'in_memory/channel_dispatcher',
  'broker/ingress',
  'broker/filter',
  'apiserver_receive_adapter',
  'jobsink',
  'requestreply',
  'event_display',
] as const;

export type EventingCommand = (typeof EVENTING_COMMANDS)[number];

/** What the release YAMLs write where an image goes: ko resolves it to an image of the command. */
export const KO_PREFIX = 'ko://knative.dev/eventing/cmd/';

/** build.sh's file name of a command's binary: its path with `/` made `-`. */
export function binaryName(cmd: string): string {
  return cmd.replaceAll('/', '-');
}

/** The reference of a command's image in the node's containerd. */
export function imageReference(cmd: string, version = EVENTING_VERSION): string {
  return `cascade.local/knative-eventing/${binaryName(cmd)}:${version}`;
}

/** The command a `ko://` reference names, or undefined for any other string. */
export function koCommand(value: string): string | undefined {
  return value.startsWith(KO_PREFIX) ? value.slice(KO_PREFIX.length) : undefined;
}

/** The copy of the module that build.sh builds in; its `config/` holds the release YAMLs' sources. */
export function eventingSourceDir(version = EVENTING_VERSION): string {
  return join(buildCacheDir(), 'src', `knative-eventing-${version}`);
}
