// The janitor for tests: its own ServiceAccount from knative/rbac.yaml (so
// tests run it with exactly the permissions it is deployed with), engine deps
// over a real Store acting as that ServiceAccount, the janitor as a real
// process, and runs created directly through the API as the function would.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { CustomObjectsApi } from '@kubernetes/client-node';
import pino from 'pino';
import type { CascadeRun, CascadeRunStatus } from '../../shared/api/cascade-run.ts';
import type { CascadeModule } from '../../shared/api/scenario.ts';
import { parseConfig } from '../../shared/config.ts';
import type { RunEndEvent } from '../../shared/api/events.ts';
import type { EngineDeps } from '../../shared/engine/deps.ts';
import { connectStore } from '../../shared/kube/connect.ts';
import { DEFAULT_RETRY } from '../../shared/kube/api-retry.ts';
import { LABEL_APP, LABEL_APP_VALUE, runName } from '../../shared/names.ts';
import { repoRoot } from '../../local/cluster/paths.ts';
import { serviceAccountKubeconfigFile } from '../../local/function-rbac.ts';
import { adminKubeConfig } from './kube.ts';
import { OUT, SCENARIO } from './cascade-harness.ts';
import { janitorEngine } from '../../shared/engine/profiles.ts';

export const JANITOR_SA = 'cascade-janitor';
const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };

/** Applies the janitor's documents of knative/rbac.yaml (unless there already); returns a kubeconfig file acting as its ServiceAccount. */
export function janitorKubeconfig(namespace: string): Promise<string> {
  return serviceAccountKubeconfigFile(adminKubeConfig(), namespace, JANITOR_SA);
}

/** The janitor's environment for namespace `ns`, as the harness's function has it, with `env` on top. */
export async function janitorEnv(ns: string, env: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    KUBECONFIG: await janitorKubeconfig(ns),
    POD_NAMESPACE: ns,
    SCENARIO_NAME: SCENARIO,
    OUT_MINIO_ADDRESS: OUT,
    ...env,
  };
}

export interface TestDeps extends EngineDeps {
  events: RunEndEvent[];
}

/** Engine deps as functions/janitor/wiring.ts makes them, over a Store acting as the janitor's ServiceAccount; run-end events are recorded, not sent. */
export function janitorDeps(kubeconfig: string, env: Record<string, string>): TestDeps {
  // A K_SINK, so that run-end events are owed; they are recorded in `events`, not sent.
  const parsed = parseConfig({ K_SINK: 'http://recorded.invalid/', ...env });
  if (!parsed.ok) throw new Error(parsed.reason);
  const events: RunEndEvent[] = [];
  const deps = janitorEngine({
    config: parsed.value,
    store: connectStore(
      parsed.value.namespace,
      { ...DEFAULT_RETRY, retries: 2, minTimeoutMs: 20, maxTimeoutMs: 200 },
      kubeconfig,
    ),
    log: pino({ level: process.env.JANITOR_TEST_LOG ?? 'silent' }),
    now: () => new Date(),
    notify: async (event) => {
      events.push(event);
      return true;
    },
  });
  return { ...deps, events };
}

export interface RunSpec {
  iuid: string;
  modules: CascadeModule[];
  /** Written through the status subresource after the run is created. */
  status?: CascadeRunStatus;
}

/** Creates a CascadeRun of SCENARIO_NAME `scenario` as start-run.ts would, optionally with a stored status; returns its name. */
export async function createRun(
  at: { custom: CustomObjectsApi; ns: string },
  scenario: string,
  { iuid, modules, status }: RunSpec,
): Promise<string> {
  const { custom, ns } = at;
  const name = runName(scenario, iuid);
  if (!name.ok) throw new Error(name.reason);
  const body: CascadeRun = {
    apiVersion: 'cascade.cascade.net/v1alpha1',
    kind: 'CascadeRun',
    metadata: { name: name.name, namespace: ns, labels: { [LABEL_APP]: LABEL_APP_VALUE } },
    spec: {
      ob: 'org',
      src: 'src',
      pid: iuid,
      scenarioname: scenario,
      modules: modules.map((m) => m.modulename),
      turlinfo: 's3://incoming/in.tgz',
      cascademodules: modules,
    },
  };
  const created = (await custom.createNamespacedCustomObject({
    ...G,
    namespace: ns,
    plural: 'cascaderuns',
    body,
  })) as CascadeRun;
  if (status) {
    await custom.replaceNamespacedCustomObjectStatus({
      ...G,
      namespace: ns,
      plural: 'cascaderuns',
      name: name.name,
      body: { ...created, status },
    });
  }
  return name.name;
}

export interface JanitorExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node functions/janitor/main.ts` once with `env` (and nothing of the test's own environment but PATH). */
export function runJanitorProcess(env: Record<string, string>): Promise<JanitorExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'functions/janitor/main.ts')], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    // 'close', not 'exit': its output may still be unread when it exits
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
