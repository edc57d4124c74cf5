// The images of Knative Serving's parts and of Traefik, its networking layer,
// made as ko makes Serving's release images: one static binary on a
// distroless-like base, run as the nonroot user 65532. The base holds what the
// binaries read: /etc/passwd and /etc/group with that user, the host's CA
// bundle where distroless keeps it, an empty KO_DATA_PATH (the module zip has
// no kodata), and /tmp.
import { existsSync } from 'node:fs';
import type { ImageDefinition, ImageFile } from '../../node/image-build.ts';

export const SERVING_VERSION = 'v0.50.0';
export const TRAEFIK_VERSION = 'v3.6.5';

/** Serving's commands that run as Deployments; `queue` is the sidecar the controller injects. */
export const SERVING_COMMANDS = ['controller', 'webhook', 'activator', 'autoscaler', 'queue'] as const;
export type ServingCommand = (typeof SERVING_COMMANDS)[number];

/** A registry name no registry answers for: config-deployment's registries-skipping-tag-resolving lists it. */
export const IMAGE_REGISTRY = 'cascade.local';

export function servingImageReference(command: ServingCommand): string {
  return `${IMAGE_REGISTRY}/knative-serving/${command}:${SERVING_VERSION}`;
}

export const TRAEFIK_IMAGE = `${IMAGE_REGISTRY}/traefik:${TRAEFIK_VERSION}`;

const NONROOT = '65532:65532';
const KO_DATA_PATH = '/var/run/ko';
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

function base(): ImageFile[] {
  return [
    {
      path: '/etc/passwd',
      content: 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n',
    },
    { path: '/etc/group', content: 'root:x:0:\nnonroot:x:65532:\n' },
    // root-owned here, so readable by all: the binaries look for ~/.kube/config
    { path: '/home/nonroot', dir: true, mode: 0o755 },
    { path: KO_DATA_PATH, dir: true, mode: 0o755 },
    { path: '/tmp', dir: true, mode: 0o1777 },
    ...(existsSync(CA_BUNDLE) ? [{ path: CA_BUNDLE, from: CA_BUNDLE, mode: 0o644 }] : []),
  ];
}

function staticImage(reference: string, binary: string, app: string): ImageDefinition {
  return {
    reference,
    files: [...base(), { path: app, from: binary, mode: 0o755 }],
    config: {
      entrypoint: [app],
      user: NONROOT,
      env: { PATH: '/ko-app:/usr/local/bin:/usr/bin:/bin', KO_DATA_PATH, HOME: '/home/nonroot' },
    },
  };
}

/** One of Serving's commands, at `/ko-app/<command>` as ko puts it. */
export function servingImage(command: ServingCommand, binary: string): ImageDefinition {
  return staticImage(servingImageReference(command), binary, `/ko-app/${command}`);
}

export function traefikImage(binary: string): ImageDefinition {
  return staticImage(TRAEFIK_IMAGE, binary, '/usr/local/bin/traefik');
}
