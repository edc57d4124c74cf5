import { describe, expect, it } from 'vitest';
import { heldImages, importsNeeded } from './import-images.ts';

const digest = (c: string) => `sha256:${c.repeat(64)}`;

// as `ctr -n k8s.io images ls` prints it
const listing = [
  'REF                                 TYPE                                    DIGEST       SIZE     PLATFORMS   LABELS ',
  `cascade.local/pause:3.10            application/vnd.oci.image.manifest.v1+json ${digest('a')} 700.0 KiB linux/amd64 io.cri-containerd.pinned=pinned`,
  `cascade.local/module:1              application/vnd.oci.image.manifest.v1+json ${digest('b')} 1.1 MiB linux/amd64 -`,
  `sha256:${'c'.repeat(64)} application/vnd.oci.image.manifest.v1+json ${digest('b')} 1.1 MiB linux/amd64 -`,
  '',
].join('\n');

describe('the images the node already holds', () => {
  it('are read from the listing, each reference with its digest, the header left out', () => {
    const held = heldImages(listing);
    expect(held.get('cascade.local/pause:3.10')).toBe(digest('a'));
    expect(held.get('cascade.local/module:1')).toBe(digest('b'));
    expect(held.has('REF')).toBe(false);
  });

  it('are none in an empty containerd', () => {
    expect(heldImages('REF TYPE DIGEST SIZE PLATFORMS LABELS\n').size).toBe(0);
  });

  it('are not imported again; one of another digest, or not held, is', () => {
    const archives = [
      { reference: 'cascade.local/pause:3.10', digest: digest('a'), archive: 'p.tar' },
      { reference: 'cascade.local/module:1', digest: digest('d'), archive: 'm.tar' },
      { reference: 'cascade.local/knative-eventing/controller:v0.50.0', digest: digest('e'), archive: 'c.tar' },
    ];
    expect(importsNeeded(archives, heldImages(listing)).map((a) => a.archive)).toEqual(['m.tar', 'c.tar']);
    expect(importsNeeded(archives, new Map())).toEqual(archives);
  });
});
