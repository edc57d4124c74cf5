import { describe as group, expect, it } from 'vitest';
import { describe, imageConfig, imageManifest, layoutIndex, MEDIA, sha256 } from './oci-layout.ts';

group('OCI layout documents', () => {
  it('describes a blob by its sha256 and byte length', () => {
    expect(describe(MEDIA.config, 'é')).toEqual({
      mediaType: MEDIA.config,
      digest: sha256('é'),
      size: 2,
    });
    expect(sha256('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('writes only the run settings given, env as KEY=value and ports as N/tcp', () => {
    const config = imageConfig(
      { cmd: ['node', 'x.cjs'], user: '1000:1000', env: { A: '1' }, workingDir: '/app', exposedPorts: [8080] },
      ['sha256:aa'],
    );
    expect(config).toEqual({
      created: '1970-01-01T00:00:00Z',
      architecture: 'amd64',
      os: 'linux',
      config: {
        Cmd: ['node', 'x.cjs'],
        User: '1000:1000',
        Env: ['A=1'],
        WorkingDir: '/app',
        ExposedPorts: { '8080/tcp': {} },
      },
      rootfs: { type: 'layers', diff_ids: ['sha256:aa'] },
    });
    expect(imageConfig({ entrypoint: ['/pause'] }, [])).toMatchObject({ config: { Entrypoint: ['/pause'] } });
    expect(imageConfig({}, [], '2026-01-02T03:04:05Z')).toMatchObject({ created: '2026-01-02T03:04:05Z' });
  });

  it('names the manifest in the index by its full reference and by its tag', () => {
    const manifest = describe(MEDIA.manifest, '{}');
    const config = describe(MEDIA.config, '{}');
    expect(imageManifest(config, [])).toEqual({ schemaVersion: 2, mediaType: MEDIA.manifest, config, layers: [] });
    expect(imageManifest(config, [], { 'org.opencontainers.image.revision': 'abc' })).toMatchObject({
      annotations: { 'org.opencontainers.image.revision': 'abc' },
    });
    expect(layoutIndex(manifest, 'cascade.local:5000/module:1')).toEqual({
      schemaVersion: 2,
      mediaType: MEDIA.index,
      manifests: [
        {
          ...manifest,
          annotations: {
            'io.containerd.image.name': 'cascade.local:5000/module:1',
            'org.opencontainers.image.ref.name': '1',
          },
        },
      ],
    });
  });
});
