// `kubectl cascade list -w` across 410 Gone, on a control plane of this file's
// own. The API server is stopped while the command watches. Behind its back,
// in etcd itself, one run is added, one changed and one deleted, and etcd's
// history is compacted. The API server started again knows no version older
// than its start, so the command's watch meets 410 Gone. It must then list
// again and print a row for each of the three runs.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../local/cluster/cluster.ts';
import { startComponent, stopComponent, waitComponentHealthy } from '../local/cluster/components.ts';
import { applyCrds } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { createNamespace } from '../local/kube.ts';
import type { CascadeRunStatus } from '../shared/api/cascade-run.ts';
import { CLI_BIN } from './support/cli.ts';
import { createRun } from './support/janitor.ts';
import { waitFor } from './support/kube.ts';
import { successScenario } from './fixtures/scenarios.ts';

let cluster: RunningCluster | undefined;
beforeAll(async () => {
  const stateDir = join(repoRoot, '.cascade', `list-gone-cluster-${process.pid}`);
  cluster = await startCluster({ stateDir, tieToProcess: true, log: (m) => process.stderr.write(`list-gone ${m}\n`) });
  await applyCrds(cluster.kubeconfig);
});
afterAll(async () => {
  await cluster?.stop();
});

const running = { phase: 'Running', startTime: new Date().toISOString(), currentStep: 1 } as CascadeRunStatus;

/** etcd's JSON gateway on its client port. */
async function etcd(
  path: string,
  body: unknown,
): Promise<{ header?: { revision?: string }; kvs?: { value: string }[] }> {
  const res = await fetch(`http://127.0.0.1:${cluster!.ports.etcdClient}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { header?: { revision?: string }; kvs?: { value: string }[] };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** What etcd holds of a run: its JSON, as the API server stores custom resources. */
interface Stored {
  metadata: Record<string, unknown>;
  status?: Record<string, unknown>;
}

async function stored(key: string): Promise<Stored> {
  const { kvs } = await etcd('/v3/kv/range', { key: b64(key) });
  return JSON.parse(Buffer.from(kvs![0]!.value, 'base64').toString('utf8')) as Stored;
}

const put = (key: string, object: unknown) => etcd('/v3/kv/put', { key: b64(key), value: b64(JSON.stringify(object)) });

describe('list -w across 410 Gone', () => {
  it('prints a row for each run added, changed and deleted while the watch was broken', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(cluster!.kubeconfig);
    const ns = await createNamespace(kc, 'list-gone');
    const at = { custom: kc.makeApiClient(CustomObjectsApi), ns };
    const modules = successScenario(0);
    const names: Record<string, string> = {};
    for (const iuid of ['kept', 'changed', 'deleted'])
      names[iuid] = await createRun(at, 'gone', { iuid, modules, status: running });

    const child = spawn(CLI_BIN, ['--kubeconfig', cluster!.kubeconfig, '-n', ns, 'list', '-w'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => process.stderr.write(`list -w: ${d.toString()}`));
    try {
      await waitFor(() => out.trim().split('\n').length >= 4 || undefined, { message: 'the table', timeoutMs: 60_000 });
      const table = out;

      await stopComponent(cluster!.stateDir, 'kube-apiserver');
      const key = (name: string) => `/registry/cascade.cascade.net/cascaderuns/${ns}/${name}`;
      const changed = await stored(key(names.changed!));
      await put(key(names.changed!), { ...changed, status: { ...changed.status, phase: 'Failed' } });
      const kept = await stored(key(names.kept!));
      const added = `${names.kept!}-added`;
      await put(key(added), { ...kept, metadata: { ...kept.metadata, name: added, uid: crypto.randomUUID() } });
      await etcd('/v3/kv/deleterange', { key: b64(key(names.deleted!)) });
      const { header } = await etcd('/v3/kv/range', { key: b64(key(added)), count_only: true });
      await etcd('/v3/kv/compaction', { revision: header?.revision, physical: true });
      await startComponent(cluster!.stateDir, 'kube-apiserver');
      await waitComponentHealthy(cluster!.stateDir, 'kube-apiserver');

      const rows = () => out.slice(table.length).trim().split('\n').filter(Boolean);
      await waitFor(() => rows().length >= 3 || undefined, { message: 'the rows after 410 Gone', timeoutMs: 90_000 });
      const after = rows().map((r) => r.split(/\s+/).slice(0, 3).join(' '));
      expect(after.sort()).toEqual(
        [`${added} gone Running`, `${names.changed} gone Failed`, `${names.deleted} gone Running`].sort(),
      );
    } finally {
      child.kill('SIGINT');
    }
  });
});
