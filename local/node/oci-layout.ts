// The JSON documents of an OCI image layout (image-spec v1.1): an image's
// config, its manifest and the layout's index.json, for images built with
// no daemon and no registry (image-build.ts), shipped by `npm run dist` and
// imported into containerd with `ctr images import`. Pure: the digests of
// the blobs are given.
import { createHash } from 'node:crypto';

export const MEDIA = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar',
  layerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** What an image runs: the fields of its config that a Containerfile would set. */
export interface RunConfig {
  entrypoint?: string[];
  cmd?: string[];
  /** `uid:gid`, numeric so that `runAsNonRoot` can verify it. */
  user?: string;
  env?: Record<string, string>;
  workingDir?: string;
  exposedPorts?: number[];
}

/** The time of an image made from files alone. */
export const EPOCH = '1970-01-01T00:00:00Z';

export function sha256(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** A blob's descriptor. */
export function describe(mediaType: string, bytes: Uint8Array | string): Descriptor {
  return { mediaType, digest: sha256(bytes), size: Buffer.byteLength(bytes) };
}

/** The image config; `diffIds` are the digests of the uncompressed layers, bottom first. */
export function imageConfig(run: RunConfig, diffIds: string[], created = EPOCH): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (run.entrypoint) config.Entrypoint = run.entrypoint;
  if (run.cmd) config.Cmd = run.cmd;
  if (run.user) config.User = run.user;
  if (run.env) config.Env = Object.entries(run.env).map(([k, v]) => `${k}=${v}`);
  if (run.workingDir) config.WorkingDir = run.workingDir;
  if (run.exposedPorts) config.ExposedPorts = Object.fromEntries(run.exposedPorts.map((p) => [`${p}/tcp`, {}]));
  return {
    created,
    architecture: 'amd64',
    os: 'linux',
    config,
    rootfs: { type: 'layers', diff_ids: diffIds },
  };
}

export function imageManifest(
  config: Descriptor,
  layers: Descriptor[],
  annotations?: Record<string, string>,
): Record<string, unknown> {
  return { schemaVersion: 2, mediaType: MEDIA.manifest, config, layers, ...(annotations ? { annotations } : {}) };
}

/**
 * The layout's index.json: one manifest, named by both annotations containerd
 * reads on import (the full reference, and the OCI tag).
 */
export function layoutIndex(manifest: Descriptor, reference: string): Record<string, unknown> {
  const tag = reference.slice(reference.lastIndexOf(':') + 1);
  return {
    schemaVersion: 2,
    mediaType: MEDIA.index,
    manifests: [
      {
        ...manifest,
        annotations: { 'io.containerd.image.name': reference, 'org.opencontainers.image.ref.name': tag },
      },
    ],
  };
}

export const OCI_LAYOUT_FILE = JSON.stringify({ imageLayoutVersion: '1.0.0' });
