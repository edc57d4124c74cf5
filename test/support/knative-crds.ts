// The real Knative Serving and Eventing CRDs, for validating knative/ on the
// local control plane. They come from Knative's Go modules through the Go
// module proxy (`go mod download`, cached in the Go module cache), never from
// the web:
// - Serving: knative.dev/serving, config/core/300-resources/*.yaml;
// - Eventing: knative.dev/eventing, config/core/resources/*.yaml, when the
//   proxy serves it; otherwise the eventing-crds.yaml that the Knative
//   Operator's module (knative.dev/operator) ships for each Eventing release
//   in cmd/operator/kodata/knative-eventing/<version>/.
// Only documents of kind CustomResourceDefinition are kept (files may hold
// several documents, and the operator's bundle holds more than CRDs).
// `node test/support/knative-crds.ts [kubeconfig]` applies them by hand.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, loadAll } from 'js-yaml';
import { kubectlPath } from '../../local/cluster/crds.ts';
import { runCommand } from '../../local/cluster/run-command.ts';

export const SERVING_MODULE = 'knative.dev/serving@v0.50.0';
export const EVENTING_MODULE = 'knative.dev/eventing@v0.50.0';
export const OPERATOR_MODULE = 'knative.dev/operator@v0.42.2';
/** The newest Eventing release the operator module above ships. */
export const OPERATOR_EVENTING_RELEASE = '1.15.0';

export interface Crd {
  kind: string;
  metadata: { name: string };
  [key: string]: unknown;
}

export interface CrdSet {
  /** Where they came from: module@version and directory. */
  source: string;
  crds: Crd[];
}

/** The go command: on the PATH, else where the Go distribution installs it. */
export function goBinary(): string {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    if (existsSync(join(dir, 'go'))) return join(dir, 'go');
  }
  for (const candidate of ['/usr/local/go/bin/go', '/usr/lib/go/bin/go']) if (existsSync(candidate)) return candidate;
  throw new Error('the go command is needed to fetch the Knative CRDs from the Go module proxy, and none was found');
}

/** `go mod download -json module@version`: the extracted module's directory. */
export async function downloadModule(moduleAtVersion: string): Promise<string> {
  let out: string;
  try {
    out = await runCommand(goBinary(), ['mod', 'download', '-json', moduleAtVersion], { cwd: tmpdir() });
  } catch (error) {
    // -json prints the error in the JSON document and exits 1
    out = String((error as Error).message);
  }
  const start = out.indexOf('{');
  const info =
    start >= 0 ? (JSON.parse(out.slice(start, out.lastIndexOf('}') + 1)) as { Dir?: string; Error?: string }) : {};
  if (!info.Dir) throw new Error(`go mod download ${moduleAtVersion}: ${info.Error ?? out.trim()}`);
  return info.Dir;
}

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) throw new Error(`no directory ${dir}`);
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** Every CustomResourceDefinition document in the files. */
export function crdsIn(files: string[]): Crd[] {
  return files.flatMap((file) =>
    (loadAll(readFileSync(file, 'utf8')) as (Crd | null)[]).filter(
      (doc): doc is Crd => doc?.kind === 'CustomResourceDefinition',
    ),
  );
}

export async function servingCrds(): Promise<CrdSet> {
  const dir = join(await downloadModule(SERVING_MODULE), 'config', 'core', '300-resources');
  return { source: `${SERVING_MODULE} config/core/300-resources`, crds: crdsIn(yamlFiles(dir)) };
}

export async function eventingCrds(): Promise<CrdSet> {
  try {
    const dir = join(await downloadModule(EVENTING_MODULE), 'config', 'core', 'resources');
    return { source: `${EVENTING_MODULE} config/core/resources`, crds: crdsIn(yamlFiles(dir)) };
  } catch (eventingError) {
    const release = `cmd/operator/kodata/knative-eventing/${OPERATOR_EVENTING_RELEASE}`;
    try {
      const dir = join(await downloadModule(OPERATOR_MODULE), release);
      return { source: `${OPERATOR_MODULE} ${release}`, crds: crdsIn(yamlFiles(dir)) };
    } catch (operatorError) {
      throw new Error(
        `Knative Eventing CRDs: ${(eventingError as Error).message}; fallback: ${(operatorError as Error).message}`,
      );
    }
  }
}

/**
 * Downloads (or reuses the cached) Knative CRDs, applies them server-side and
 * waits until they are Established. Returns what was applied.
 */
export async function installKnativeCrds(kubeconfig: string): Promise<CrdSet[]> {
  const sets = [await servingCrds(), await eventingCrds()];
  const crds = sets.flatMap((s) => s.crds);
  const kubectl = kubectlPath();
  const base = [`--kubeconfig=${kubeconfig}`];
  // a file, not stdin: kubectl may exit before reading it, and the write would fail
  const dir = mkdtempSync(join(tmpdir(), 'knative-crds-'));
  const file = join(dir, 'crds.yaml');
  writeFileSync(file, crds.map((c) => dump(c, { noRefs: true })).join('---\n'));
  try {
    await runCommand(kubectl, [...base, 'apply', '--server-side', '--force-conflicts', '-o', 'name', '-f', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const names = crds.map((c) => `customresourcedefinition.apiextensions.k8s.io/${c.metadata.name}`);
  await runCommand(kubectl, [...base, 'wait', '--for=condition=Established', '--timeout=120s', ...names]);
  return sets;
}

if (import.meta.main) {
  const kubeconfig = process.argv[2] ?? process.env.KUBECONFIG;
  if (!kubeconfig) throw new Error('usage: node test/support/knative-crds.ts <kubeconfig>');
  for (const set of await installKnativeCrds(kubeconfig)) {
    console.log(`${set.crds.length} CRDs from ${set.source}: ${set.crds.map((c) => c.metadata.name).join(', ')}`);
  }
}
