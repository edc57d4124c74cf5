// The real node's images as local/node/image-build.ts writes them: OCI
// layouts in a tar, one layer of root-owned entries dated 1970, so that the
// same files give the same digests. containerd importing them is what
// test/real-node-scenarios.test.ts and test/real-node-function.test.ts run on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureNodePackages } from '../local/node/binaries.ts';
import { buildImage } from '../local/node/image-build.ts';
import { MODULE_IMAGE, moduleImage } from '../local/node/images.ts';
import { sha256 } from '../local/node/oci-layout.ts';
import { tempDir } from '../local/temp-dir.ts';

const tar = (...args: string[]) => execFileSync('tar', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

// busybox comes from Debian's busybox-static
beforeAll(ensureNodePackages, 600_000);

describe('the module image, written with no daemon', () => {
  it('is an OCI layout whose index names it, the same bytes every time', async () => {
    const dir = tempDir('cascade-images-');
    const [a, b] = [join(dir, 'a.tar'), join(dir, 'b.tar')];
    const digest = await buildImage(moduleImage(), a);
    expect(await buildImage(moduleImage(), b)).toBe(digest);
    expect(sha256(readFileSync(a))).toBe(sha256(readFileSync(b)));

    const index = JSON.parse(tar('-xOf', a, './index.json'));
    expect(index.manifests).toEqual([
      expect.objectContaining({
        digest,
        annotations: expect.objectContaining({ 'io.containerd.image.name': MODULE_IMAGE }),
      }),
    ]);
    const blob = (d: string) => tar('-xOf', a, `./blobs/sha256/${d.slice('sha256:'.length)}`);
    const manifest = JSON.parse(blob(digest));
    const config = JSON.parse(blob(manifest.config.digest));
    expect(config.config).toMatchObject({ Entrypoint: ['/bin/sh', '/module.sh'], User: '65532:65532' });
    expect(config.rootfs.diff_ids).toEqual([manifest.layers[0].digest]);

    const layer = join(dir, 'layer.tar');
    tar('-xf', a, '-C', dir, `./blobs/sha256/${manifest.layers[0].digest.slice('sha256:'.length)}`);
    execFileSync('mv', [join(dir, 'blobs/sha256', manifest.layers[0].digest.slice('sha256:'.length)), layer]);
    expect(sha256(readFileSync(layer))).toBe(manifest.layers[0].digest);
    const entries = tar('--numeric-owner', '-tvf', layer).trim().split('\n');
    expect(entries.every((e) => / 0\/0 .* 1970-01-01 00:00 /.test(e))).toBe(true);
    expect(entries.map((e) => e.split(' ').at(-1))).toEqual(expect.arrayContaining(['./bin/busybox', './module.sh']));
    expect(entries.find((e) => e.endsWith(' ./bin/sh -> busybox'))).toBeDefined();
  });
});
