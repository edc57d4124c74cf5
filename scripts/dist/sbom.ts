// The image's SBOM, CycloneDX 1.6 JSON. @cyclonedx/cyclonedx-npm, a pinned
// devDependency, lists the npm packages of the image's /app as npm installed
// them there: production ones, no optional ones. imageBom adds what npm does
// not know. The image itself becomes the SBOM's subject, and the Node.js
// runtime and the Debian packages of the libraries it links become
// components. npmBom and debianPackages run tools; imageBom is pure
// (sbom.test.ts).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../../local/cluster/paths.ts';
import { runCommand } from '../../local/cluster/run-command.ts';
import { NODE_BINARY_PACKAGE } from '../../local/node/node-binary.ts';

export interface Bom {
  metadata: { component?: Component; properties?: { name: string; value: string }[] } & Record<string, unknown>;
  components: Component[];
  dependencies?: { ref: string; dependsOn?: string[] }[];
  [key: string]: unknown;
}

export interface Component {
  type: string;
  name: string;
  version?: string;
  'bom-ref'?: string;
  purl?: string;
  [key: string]: unknown;
}

/** A Debian package and the files of the image that come from it. */
export interface DebianPackage {
  name: string;
  version: string;
  arch: string;
  /** `debian-12`, from /etc/os-release. */
  distro: string;
  files: { path: string; sha256: string }[];
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** cyclonedx-npm over the installed tree in `app` (its package.json and node_modules); it runs npm ls. */
export async function npmBom(app: string): Promise<Bom> {
  const cli = join(repoRoot, 'node_modules', '@cyclonedx', 'cyclonedx-npm', 'bin', 'cyclonedx-npm-cli.js');
  const out = await runCommand(process.execPath, [
    cli,
    ...['--omit', 'dev', '--omit', 'optional', '--flatten-components', '--output-reproducible'],
    ...['--spec-version', '1.6', '--output-format', 'JSON', '--output-file', '-', join(app, 'package.json')],
  ]);
  return JSON.parse(out) as Bom;
}

/**
 * Validates a BOM against CycloneDX 1.6's JSON schema, strictly, with the
 * validator of cyclonedx-npm's own library; resolves to the schema's errors,
 * [] when there are none.
 */
export async function bomErrors(bom: Bom): Promise<unknown[]> {
  const cyclonedx = join(repoRoot, 'node_modules', '@cyclonedx', 'cyclonedx-npm', 'package.json');
  const { Validation, Spec } = createRequire(cyclonedx)('@cyclonedx/cyclonedx-library') as {
    Validation: { JsonStrictValidator: new (version: string) => { validate(json: string): Promise<unknown> } };
    Spec: { Version: { v1dot6: string } };
  };
  const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(JSON.stringify(bom));
  return Array.isArray(errors) ? errors : errors ? [errors] : [];
}

const dpkgQuery = (...args: string[]) =>
  execFileSync('dpkg-query', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/** The package that installed a file, by dpkg's database, which knows it by /lib/... or, merged, /usr/lib/...; undefined without one. */
function ownerOf(path: string): string | undefined {
  for (const candidate of [path, realpathSync(path)]) {
    try {
      return dpkgQuery('-S', candidate).split(':')[0];
    } catch {
      // not by this path
    }
  }
  return undefined;
}

/** The machine's distribution as purl names it: `debian-12`. */
function distro(): string {
  try {
    const release = readFileSync('/etc/os-release', 'utf8');
    const field = (name: string) => new RegExp(`^${name}="?([^"\\n]*)"?$`, 'm').exec(release)?.[1] ?? '';
    return `${field('ID')}-${field('VERSION_ID')}`;
  } catch {
    return 'unknown';
  }
}

/** The Debian packages of the files, with the files' SHA-256; a file no package installed is left out. */
export function debianPackages(files: string[]): DebianPackage[] {
  const packages = new Map<string, DebianPackage>();
  for (const path of files) {
    const owner = ownerOf(path);
    if (!owner) continue;
    let entry = packages.get(owner);
    if (!entry) {
      const [name = owner, version = '', arch = ''] = dpkgQuery(
        '-W',
        '--showformat=${Package}\t${Version}\t${Architecture}',
        owner,
      ).split('\t');
      entry = { name, version, arch, distro: distro(), files: [] };
      packages.set(owner, entry);
    }
    entry.files.push({ path, sha256: sha256(path) });
  }
  return [...packages.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export interface ImageFacts {
  repository: string;
  digest: string;
  node: { version: string; sha256: string; path: string };
  debian: DebianPackage[];
}

const IMAGE_REF = 'image';

/** The npm SBOM of /app turned into the image's: the image as the subject, the app, Node.js and the Debian packages as its components. */
export function imageBom(npm: Bom, image: ImageFacts): Bom {
  const app = npm.metadata.component!;
  const appRef = app['bom-ref'] ?? app.name;
  const nodeRef = `nodejs@${image.node.version}`;
  const name = image.repository.split('/').at(-1)!;
  const node: Component = {
    type: 'platform',
    name: 'node',
    version: image.node.version,
    'bom-ref': nodeRef,
    description: `Node.js, the official Linux x64 build, from the npm package ${NODE_BINARY_PACKAGE}@${image.node.version}`,
    licenses: [{ license: { id: 'MIT' } }],
    purl: `pkg:npm/${NODE_BINARY_PACKAGE}@${image.node.version}`,
    hashes: [{ alg: 'SHA-256', content: image.node.sha256 }],
    externalReferences: [{ type: 'website', url: 'https://nodejs.org/' }],
    properties: [{ name: 'cascade:image:path', value: image.node.path }],
  };
  const debian = image.debian.map((p): Component => ({
    type: 'library',
    name: p.name,
    version: p.version,
    'bom-ref': `deb:${p.name}@${p.version}`,
    purl: `pkg:deb/debian/${p.name}@${encodeURIComponent(p.version)}?arch=${p.arch}&distro=${p.distro}`,
    properties: p.files.map((f) => ({ name: 'cascade:image:file', value: `${f.path} sha256:${f.sha256}` })),
  }));
  const subject: Component = {
    type: 'container',
    name,
    version: image.digest,
    'bom-ref': IMAGE_REF,
    purl: `pkg:oci/${name}@${encodeURIComponent(image.digest)}?arch=amd64&repository_url=${image.repository}`,
  };
  return {
    ...npm,
    metadata: { ...npm.metadata, component: subject },
    components: [{ ...app, type: 'application' }, node, ...debian, ...npm.components],
    dependencies: [
      { ref: IMAGE_REF, dependsOn: [appRef, nodeRef] },
      { ref: nodeRef, dependsOn: debian.map((d) => d['bom-ref']!) },
      ...debian.map((d) => ({ ref: d['bom-ref']!, dependsOn: [] })),
      ...(npm.dependencies ?? []),
    ],
  };
}
