// `npm run dist`, run twice from this checkout into two folders, as a release
// engineer runs it, the second time for another registry:
// - the image is an OCI image layout, the same bytes both times (the same
//   digest), whose blobs are what their names say, with Node.js of the pinned
//   binary, the compiled function and the production dependencies only;
// - install.yaml is every object knative/ renders but the CRDs, the image by
//   digest under the registry asked for, and crds.yaml the CRDs alone, which
//   the API server takes (a server-side dry run);
// - the SBOM is valid CycloneDX 1.6 and lists the image, Node.js and
//   @kubernetes/client-node;
// - `npm install -g` of the CLI's tarball gives kubectl-cascade, which kubectl
//   finds as `kubectl cascade`, on the machine's own Node.js;
// - the image's layers, unpacked, run its Node.js in a chroot as its user, and
//   V8 takes the build's code cache there.
// The layers' bytes do not depend on the umask (local/node/image-build.ts).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { load, loadAll } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { writeLayout } from '../local/node/image-build.ts';
import { NODE_BINARY_SHA256, pinnedNodeVersion } from '../local/node/node-binary.ts';
import { tempDir } from '../local/temp-dir.ts';
import { bomErrors, type Bom } from '../scripts/dist/sbom.ts';
import { DIST_FILES } from '../scripts/dist.ts';
import { adminKubeconfigPath } from './support/kube.ts';

const run = promisify(execFile);
const OTHER_REPOSITORY = 'registry.example:5000/team/cascade';
/** PATH without the checkout's node_modules/.bin: the machine's own node and npm, as a user's. */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((d) => !d.includes('node_modules'))
  .join(delimiter);

interface Release {
  image: { repository: string; digest: string; reference: string; size: number; layout: string };
  build: { tag: string; hash: string; date: string };
  files: { install: string; crds: string; sbom: string; cli: string };
}

interface Dist {
  out: string;
  release: Release;
  read(file: string): string;
}

async function dist(args: string[]): Promise<Dist> {
  const out = join(tempDir('cascade-dist-'), 'dist');
  await run('npm', ['run', 'dist', '--', '--out', out, ...args], { cwd: repoRoot, maxBuffer: 64 << 20 });
  const read = (file: string) => readFileSync(join(out, file), 'utf8');
  return { out, release: JSON.parse(read(DIST_FILES.release)) as Release, read };
}

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
type Kube = { kind: string; metadata: { name: string; namespace?: string } };
const objects = (yaml: string) => (loadAll(yaml) as (Kube | null)[]).filter((o): o is Kube => o !== null);
const named = (list: Kube[]) => list.map((o) => `${o.kind}/${o.metadata.name}`).sort();

let a: Dist;
let b: Dist;

beforeAll(async () => {
  a = await dist([]);
  b = await dist(['--image-repo', OTHER_REPOSITORY]);
}, 900_000);

describe('the image', () => {
  const blob = (d: Dist, digest: string) =>
    readFileSync(join(d.out, DIST_FILES.image, 'blobs', 'sha256', digest.slice('sha256:'.length)));

  it('is the same bytes from two builds of one commit, whatever registry it is for', () => {
    expect(a.release.image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b.release.image.digest).toBe(a.release.image.digest);
    const blobs = (d: Dist) => readdirSync(join(d.out, DIST_FILES.image, 'blobs', 'sha256')).sort();
    expect(blobs(b)).toEqual(blobs(a));
    for (const name of blobs(a)) expect(sha256(blob(a, `sha256:${name}`))).toBe(`sha256:${name}`);
    expect(a.release.image.reference).toBe(`ghcr.io/cascade/cascade:${a.release.build.tag}`);
    expect(b.release.image.reference).toBe(`${OTHER_REPOSITORY}:${b.release.build.tag}`);
  });

  it("is an OCI image layout whose index names the manifest by the release's digest", () => {
    expect(JSON.parse(a.read(`${DIST_FILES.image}/oci-layout`))).toEqual({ imageLayoutVersion: '1.0.0' });
    const index = JSON.parse(a.read(`${DIST_FILES.image}/index.json`));
    expect(index.manifests).toEqual([
      expect.objectContaining({
        digest: a.release.image.digest,
        annotations: expect.objectContaining({ 'org.opencontainers.image.ref.name': a.release.build.tag }),
      }),
    ]);
    const manifest = JSON.parse(blob(a, a.release.image.digest).toString());
    expect(manifest.annotations).toMatchObject({ 'org.opencontainers.image.revision': a.release.build.hash });
    const config = JSON.parse(blob(a, manifest.config.digest).toString());
    expect(config.config).toMatchObject({
      Cmd: ['node', '--max-semi-space-size=4', 'build/functions/cascade/server.cjs'],
      User: '1000:1000',
      WorkingDir: '/app',
    });
    // diff IDs are the digests of the layers as tar, before gzip
    const layers = manifest.layers as { mediaType: string; digest: string }[];
    expect(layers.map((l) => l.mediaType)).toEqual(Array(3).fill('application/vnd.oci.image.layer.v1.tar+gzip'));
    expect(layers.map((l) => sha256(gunzipSync(blob(a, l.digest))))).toEqual(config.rootfs.diff_ids);
  });

  it('holds the pinned Node.js binary, the compiled function and janitor, and the production dependencies only', async () => {
    const manifest = JSON.parse(blob(a, a.release.image.digest).toString());
    const listing = async (digest: string) =>
      (
        await run('tar', ['-tzf', join(a.out, DIST_FILES.image, 'blobs', 'sha256', digest.slice(7))], {
          maxBuffer: 64 << 20,
        })
      ).stdout.split('\n');
    const files = (await Promise.all(manifest.layers.map((l: { digest: string }) => listing(l.digest)))).flat();
    for (const file of [
      './usr/local/bin/node',
      './lib64/ld-linux-x86-64.so.2',
      './etc/passwd',
      './app/package-lock.json',
      './app/build/functions/cascade/server.cjs',
      './app/build/functions/cascade/function.code-cache',
      './app/build/functions/janitor/main.js',
      './app/node_modules/@kubernetes/client-node/package.json',
    ])
      expect(files, file).toContain(file);
    expect(files.filter((f) => /node_modules\/(typescript|vitest|node)\//.test(f))).toEqual([]);
    const [runtime] = manifest.layers as { digest: string }[];
    const node = await run(
      'tar',
      ['-xzOf', join(a.out, DIST_FILES.image, 'blobs', 'sha256', runtime!.digest.slice(7)), './usr/local/bin/node'],
      {
        encoding: 'buffer',
        maxBuffer: 256 << 20,
      },
    );
    expect(sha256(node.stdout)).toBe(`sha256:${NODE_BINARY_SHA256[pinnedNodeVersion(repoRoot)]}`);
  });
});

describe("the image's own files", () => {
  // chroot needs root, as CI has; elsewhere this is skipped
  it.runIf(process.getuid?.() === 0)(
    "run its Node.js as its user, with no file of this machine, and V8 takes the build's code cache",
    async () => {
      const root = tempDir('cascade-dist-rootfs-');
      const manifest = JSON.parse(
        readFileSync(join(a.out, DIST_FILES.image, 'blobs', 'sha256', a.release.image.digest.slice(7)), 'utf8'),
      );
      for (const layer of manifest.layers as { digest: string }[])
        await run('tar', ['-xzf', join(a.out, DIST_FILES.image, 'blobs', 'sha256', layer.digest.slice(7)), '-C', root]);
      const probe =
        "process.stdout.write(String(require('/app/build/functions/cascade/server.cjs').load().cacheTaken))";
      const chroot = (await run('sh', ['-c', 'command -v chroot'])).stdout.trim();
      const { stdout } = await run(
        chroot,
        [
          '--userspec=1000:1000',
          root,
          '/usr/local/bin/node',
          '--max-semi-space-size=4',
          '-e',
          `${probe}; process.exit(0)`,
        ],
        { env: { PATH: '/usr/local/bin:/usr/bin:/bin', NODE_ENV: 'production' } },
      );
      expect(stdout).toBe('true');
    },
  );
});

describe('install.yaml and crds.yaml', () => {
  it("hold every object of knative/ but the CRDs, with no image but the release's, by digest", async () => {
    const rendered = objects(
      (await run(kubectlPath(), ['kustomize', join(repoRoot, 'knative')], { maxBuffer: 64 << 20 })).stdout,
    );
    const expected = named(rendered.filter((o) => o.kind !== 'CustomResourceDefinition'));
    for (const [d, repository] of [
      [a, 'ghcr.io/cascade/cascade'],
      [b, OTHER_REPOSITORY],
    ] as const) {
      const install = d.read(DIST_FILES.install);
      expect(named(objects(install))).toEqual(expected);
      expect(install).not.toMatch(/kind: CustomResourceDefinition/);
      const images = [...install.matchAll(/image: *(\S+)/g)].map((m) => m[1]!);
      // the function, the janitor and the dead-letter sink: one image, by the digest
      expect(images).toHaveLength(3);
      expect(new Set(images)).toEqual(new Set([`${repository}@${a.release.image.digest}`]));
    }
  });

  it('crds.yaml holds the CRDs of crds/ alone, which the API server takes', async () => {
    const crds = objects(a.read(DIST_FILES.crds));
    expect(crds.map((o) => o.kind)).toEqual(crds.map(() => 'CustomResourceDefinition'));
    const own = readdirSync(join(repoRoot, 'crds'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => (load(readFileSync(join(repoRoot, 'crds', f), 'utf8')) as Kube).metadata.name)
      .sort();
    expect(crds.map((o) => o.metadata.name).sort()).toEqual(own);
    const kubeconfig = `--kubeconfig=${adminKubeconfigPath()}`;
    const applied = await run(kubectlPath(), [
      kubeconfig,
      'apply',
      '--server-side',
      '--force-conflicts',
      '--dry-run=server',
      '-f',
      join(a.out, DIST_FILES.crds),
    ]);
    expect(applied.stdout.trim().split('\n')).toHaveLength(own.length);
  });
});

describe('the SBOM', () => {
  it('is valid CycloneDX 1.6 of the image by its digest: Node.js, the Debian libraries and the npm packages', async () => {
    const bom = JSON.parse(a.read(DIST_FILES.sbom)) as Bom;
    expect(await bomErrors(bom)).toEqual([]);
    expect(bom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    expect(bom.metadata.component).toMatchObject({ type: 'container', version: a.release.image.digest });
    const find = (name: string, group?: string) =>
      bom.components.find((c) => c.name === name && (group === undefined || c.group === group));
    expect(find('node')).toMatchObject({ type: 'platform', version: pinnedNodeVersion(repoRoot) });
    expect(find('libc6')).toMatchObject({ type: 'library', purl: expect.stringMatching(/^pkg:deb\/debian\/libc6@/) });
    const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'));
    expect(find('client-node', '@kubernetes')).toMatchObject({
      version: lock.packages['node_modules/@kubernetes/client-node'].version,
      purl: expect.stringMatching(/^pkg:npm\/%40kubernetes\/client-node@/),
    });
    expect(find('typescript')).toBeUndefined();
    expect(b.read(DIST_FILES.sbom).replace(OTHER_REPOSITORY, 'ghcr.io/cascade/cascade')).toBe(a.read(DIST_FILES.sbom));
  });
});

describe("the CLI's package", () => {
  it('installs with npm install -g and runs as kubectl-cascade and as kubectl cascade', async () => {
    const prefix = tempDir('cascade-dist-prefix-');
    const env = { ...process.env, PATH: machinePath, NO_COLOR: '1' };
    const tarball = join(a.out, a.release.files.cli);
    await run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { env, cwd: prefix });
    const bin = join(prefix, 'bin', 'kubectl-cascade');
    expect((await run(bin, ['version', '--client'], { env })).stdout).toMatch(/^Client Version: \S+/);
    expect((await run(bin, ['--help'], { env })).stdout).toMatch(/^Usage: kubectl cascade/);
    const onPath = { ...env, PATH: [join(prefix, 'bin'), machinePath].join(delimiter) };
    expect((await run(kubectlPath(), ['cascade', 'version', '--client'], { env: onPath })).stdout).toMatch(
      /^Client Version: /,
    );
  }, 300_000);
});

describe('the layers', () => {
  it('are the same bytes whatever modes the umask left on the files', async () => {
    const layoutOf = async (fileMode: number, dirMode: number) => {
      const dir = tempDir('cascade-dist-umask-');
      mkdirSync(join(dir, 'app', 'lib'), { recursive: true });
      writeFileSync(join(dir, 'app', 'lib', 'a.js'), 'a');
      writeFileSync(join(dir, 'app', 'run.sh'), '#!/bin/sh\n');
      chmodSync(join(dir, 'app', 'lib', 'a.js'), fileMode);
      chmodSync(join(dir, 'app', 'run.sh'), fileMode | 0o111);
      for (const d of [join(dir, 'app'), join(dir, 'app', 'lib')]) chmodSync(d, dirMode);
      const image = {
        reference: 'x.local/y:1',
        files: [{ path: '/app', from: join(dir, 'app') }],
        config: {},
        gzip: true,
      };
      return (await writeLayout(image, join(dir, 'layout'))).manifest.digest;
    };
    expect(await layoutOf(0o664, 0o775)).toBe(await layoutOf(0o644, 0o755));
  });
});
