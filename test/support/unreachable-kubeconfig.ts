// A kubeconfig whose API server refuses every connection: its server is a
// free port on 127.0.0.1 that nothing listens on. The CLI's tests use it to
// check what a command says when the cluster cannot be reached.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePorts } from '../../local/cluster/ports.ts';
import { tempDir } from '../../local/temp-dir.ts';

/** The kubeconfig's path, in a temporary directory removed at exit, and the port it names. */
export async function unreachableKubeconfig(): Promise<{ path: string; port: number }> {
  const [port] = await freePorts(1);
  const path = join(tempDir('cascade-unreachable-'), 'config');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}"}}]`,
      'users: [{name: u, user: {token: x}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n'),
  );
  return { path, port: port! };
}
