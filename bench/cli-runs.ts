// Seeds a namespace with N finished CascadeRuns (300 by default), each with a
// three-step status, for timing `kubectl cascade list` and `get` against
// `kubectl get`: the cli phase of the bench. Run alone, it prints the
// namespace it made; nothing else is touched.
// Usage: KUBECONFIG=... node bench/cli-runs.ts [N]
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { createNamespace, kubeConfigFromFile } from '../local/kube.ts';
import { GROUP, VERSION, CASCADE_RUN_PLURAL } from '../shared/api/group.ts';

const template = { spec: { containers: [{ name: 'm', image: 'registry.example/m:1' }], restartPolicy: 'Never' } };
const modules = ['grayscale', 'binarization', 'diff'];
const time = (i: number, s: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000 + s * 1000).toISOString();

/** Makes a namespace with `count` finished runs, `bench-run-0000` and on; resolves with its name. */
export async function seedRuns(kc: KubeConfig, count: number): Promise<string> {
  const ns = await createNamespace(kc, 'cli-bench');
  const api = kc.makeApiClient(CustomObjectsApi);
  const at = { group: GROUP, version: VERSION, namespace: ns, plural: CASCADE_RUN_PLURAL };
  for (let i = 0; i < count; i++) {
    const name = `bench-run-${String(i).padStart(4, '0')}`;
    const iuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const created = (await api.createNamespacedCustomObject({
      ...at,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'CascadeRun',
        metadata: { name, labels: { app: 'Cascade' } },
        spec: {
          ob: 'org',
          src: 'src',
          pid: iuid,
          scenarioname: 'bench',
          modules,
          turlinfo: 's3://in/x.tgz',
          cascademodules: modules.map((modulename) => ({ modulename, template })),
        },
      },
    })) as Record<string, unknown>;
    const status = {
      phase: 'Succeeded',
      currentStep: 2,
      currentModule: 'diff',
      startTime: time(i, 0),
      completionTime: time(i, 3),
      conditions: [
        {
          type: 'Succeeded',
          status: 'True',
          reason: 'Succeeded',
          message: 'all 3 modules succeeded',
          lastTransitionTime: time(i, 3),
        },
      ],
      modules: modules.map((m, step) => ({
        name: m,
        step,
        jobName: `${name}-${m}`,
        phase: 'Succeeded',
        result: 'success',
        startTime: time(i, step),
        completionTime: time(i, step + 1),
      })),
    };
    await api.replaceNamespacedCustomObjectStatus({ ...at, name, body: { ...created, status } });
  }
  return ns;
}

if (import.meta.main)
  console.log(await seedRuns(kubeConfigFromFile(process.env.KUBECONFIG ?? ''), Number(process.argv[2] ?? 300)));
