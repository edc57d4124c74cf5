// A server-side dry run of manifests on the test cluster, as kubectl makes one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { kubectlPath } from '../../local/cluster/crds.ts';
import { runCommand } from '../../local/cluster/run-command.ts';
import { adminKubeconfigPath } from './kube.ts';

/**
 * Server-side dry run of `docs` (from a file: kubectl may exit before reading
 * stdin); resolves to kubectl's `-o name` lines. `namespace` for namespaced
 * objects that name none; `strict` refuses unknown fields.
 */
export async function dryRun(docs: unknown[], options: { namespace?: string; strict?: boolean } = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'cascade-dry-run-'));
  const file = join(dir, 'manifests.yaml');
  writeFileSync(file, docs.map((d) => dump(d, { noRefs: true })).join('---\n'));
  try {
    return await runCommand(kubectlPath(), [
      `--kubeconfig=${adminKubeconfigPath()}`,
      'apply',
      ...(options.namespace ? ['-n', options.namespace] : []),
      '--dry-run=server',
      ...(options.strict ? ['--validate=strict'] : []),
      '-o',
      'name',
      '-f',
      file,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
