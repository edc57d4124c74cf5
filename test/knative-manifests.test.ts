// knative/ is valid for a real API server with the real Knative CRDs: every
// object of `kubectl kustomize knative/` passes a server-side dry run (schema,
// strict field validation, built-in validation of the core kinds), and
// broken copies are rejected, so this test can fail. What only Knative's own
// webhooks check (e.g. that a Trigger has a subscriber) is asserted on the
// manifests themselves, against the function's accepted event types.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { load, loadAll } from 'js-yaml';
import {
  APISERVER_EVENTS,
  MODULE_FINISHED,
  RUN_CANCEL_REQUESTED,
  RUN_RESUME_REQUESTED,
  RUN_REQUESTED,
} from '../shared/api/events.ts';
import { LABEL_APP, LABEL_APP_VALUE, LABEL_RUN } from '../shared/names.ts';
import { BINDING_EXCLUDE_LABEL, BINDING_INCLUDE_LABEL } from '../shared/core/module-sink.ts';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { installKnativeCrds, type CrdSet } from './support/knative-crds.ts';
import { dryRun } from './support/dry-run.ts';
import { adminKubeConfig, adminKubeconfigPath, apiStatus } from './support/kube.ts';
import { CAPPED_HEAP_FLAGS } from '../bench/janitor.ts';

const NAMESPACE = 'cascade-operator';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: any };

let objects: Manifest[] = [];
let installed: CrdSet[] = [];
let createdNamespace = false;

function find(kind: string, name?: string): Manifest {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!found) throw new Error(`no ${kind} ${name ?? ''} in kubectl kustomize knative/`);
  return structuredClone(found);
}

const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
/** The kinds of knative/ that no namespace holds. */
const CLUSTER_SCOPED = ['Namespace', 'CustomResourceDefinition', 'ClusterRole'];

beforeAll(async () => {
  installed = await installKnativeCrds(adminKubeconfigPath());
  const out = await runCommand(kubectlPath(), ['kustomize', join(repoRoot, 'knative')]);
  objects = loadAll(out) as Manifest[];
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  try {
    await core.createNamespace({
      body: { metadata: { name: NAMESPACE, labels: { 'cascade.cascade.net/test': 'true' } } },
    });
    createdNamespace = true;
  } catch (error) {
    if (apiStatus(error) !== 409) throw error;
  }
}, 300_000);

afterAll(async () => {
  if (createdNamespace) await adminKubeConfig().makeApiClient(CoreV1Api).deleteNamespace({ name: NAMESPACE });
});

describe('the real Knative CRDs', () => {
  it('are installed from the Go modules: Serving and Eventing kinds knative/ uses', () => {
    const names = installed.flatMap((s) => s.crds.map((c) => c.metadata.name));
    expect(names).toEqual(
      expect.arrayContaining([
        'services.serving.knative.dev',
        'brokers.eventing.knative.dev',
        'triggers.eventing.knative.dev',
        'apiserversources.sources.knative.dev',
        'sinkbindings.sources.knative.dev',
      ]),
    );
  });
});

describe('kubectl kustomize knative/', () => {
  it('holds every piece of the deployment, in namespace cascade-operator', () => {
    const kinds = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'Namespace/cascade-operator',
        'CustomResourceDefinition/cascaderuns.cascade.cascade.net',
        'CustomResourceDefinition/cascadeautooperators.cascade.cascade.net',
        'ServiceAccount/cascade-function',
        'Role/cascade-function',
        'RoleBinding/cascade-function',
        'ServiceAccount/cascade-janitor',
        'Role/cascade-janitor',
        'RoleBinding/cascade-janitor',
        'ServiceAccount/cascade-module',
        'ValidatingAdmissionPolicy/cascade-module-fence',
        'ValidatingAdmissionPolicyBinding/cascade-module-fence',
        'ServiceAccount/cascade-apiserversource',
        'Role/cascade-apiserversource',
        'RoleBinding/cascade-apiserversource',
        'ConfigMap/cascade-scenario-config',
        'Service/cascade',
        'Broker/default',
        'ApiServerSource/cascade-jobs',
        'SinkBinding/cascade-modules',
        'CronJob/cascade-janitor',
        'Service/cascade-dead-letters',
        'ClusterRole/cascade-view',
        'ClusterRole/cascade-edit',
      ]),
    );
    const namespaced = objects.filter((o) => !CLUSTER_SCOPED.includes(o.kind));
    expect(namespaced.every((o) => o.metadata.namespace === NAMESPACE)).toBe(true);
  });

  it("leaves the Broker's class to the cluster: no class, no annotation only one class reads", () => {
    const broker = find('Broker', 'default') as Manifest & { metadata: { annotations?: object } };
    expect(broker.metadata.annotations).toBeUndefined();
  });

  it('aggregates its ClusterRoles into view and edit, and nothing else cluster-scoped but the Namespace and the CRDs', () => {
    const roles = ofKind('ClusterRole') as (Manifest & { metadata: { labels: Record<string, string> } })[];
    expect(Object.fromEntries(roles.map((r) => [r.metadata.name, r.metadata.labels]))).toEqual({
      'cascade-view': { 'app.kubernetes.io/part-of': 'cascade', 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
      'cascade-edit': { 'app.kubernetes.io/part-of': 'cascade', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
    });
    expect(objects.filter((o) => CLUSTER_SCOPED.includes(o.kind)).map((o) => o.kind)).toEqual(
      expect.arrayContaining(['Namespace', 'CustomResourceDefinition', 'ClusterRole']),
    );
    expect(ofKind('ClusterRoleBinding')).toEqual([]);
  });

  it('passes a server-side dry run, object by object', async () => {
    const out = await dryRun(objects);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(objects.length);
    expect(lines).toEqual(
      expect.arrayContaining([
        'service.serving.knative.dev/cascade',
        'trigger.eventing.knative.dev/cascade-run-requested',
        'apiserversource.sources.knative.dev/cascade-jobs',
        'sinkbinding.sources.knative.dev/cascade-modules',
        'cronjob.batch/cascade-janitor',
      ]),
    );
  });
});

describe('kubectl kustomize deploy/func (the platform around a `func deploy`ed function)', () => {
  it('is knative/ without the Knative Service, with the janitor and the dead-letter sink on the buildpack launcher, and passes a dry run', async () => {
    const out = await runCommand(kubectlPath(), ['kustomize', join(repoRoot, 'deploy', 'func')]);
    const docs = loadAll(out) as Manifest[];
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual(
      objects
        .filter((o) => !(o.kind === 'Service' && o.metadata.name === 'cascade'))
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort(),
    );
    const cronJob = docs.find((d) => d.kind === 'CronJob')!;
    expect(cronJob.spec.jobTemplate.spec.template.spec.containers[0].command).toEqual(['/cnb/process/janitor']);
    const sink = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'cascade-dead-letters')!;
    expect(sink.spec.template.spec.containers[0].command).toEqual(['/cnb/process/dead-letters']);
    expect(sink.spec.template.spec.containers[0].securityContext).not.toHaveProperty('runAsUser');
    expect((await dryRun(docs)).trim().split('\n')).toHaveLength(docs.length);
  });
});

describe('kubectl kustomize deploy/http (the function exposed on purpose, with a caller token)', () => {
  it('is the Service cascade, public, named cascade-http, with CASCADE_AUTH_TOKEN from a Secret; with its SinkBinding, it passes a dry run', async () => {
    const docs = loadAll(
      await runCommand(kubectlPath(), ['kustomize', join(repoRoot, 'deploy', 'http')]),
    ) as Manifest[];
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'Service/cascade-http',
      'SinkBinding/cascade-http',
    ]);
    const exposed = structuredClone(docs[0]!) as Manifest & { metadata: { labels?: Record<string, string> } };
    const env = exposed.spec.template.spec.containers[0].env as { name: string }[];
    expect(env.find((e) => e.name === 'CASCADE_AUTH_TOKEN')).toEqual({
      name: 'CASCADE_AUTH_TOKEN',
      valueFrom: { secretKeyRef: { name: 'cascade-caller-token', key: 'token' } },
    });
    expect(exposed.metadata.labels?.['networking.knative.dev/visibility']).toBeUndefined();
    // apart from those, the same Service as knative/service.yaml: keep deploy/http/service.yaml in step with it
    const original = find('Service', 'cascade') as Manifest & { metadata: { labels: Record<string, string> } };
    delete original.metadata.labels['networking.knative.dev/visibility'];
    exposed.spec.template.spec.containers[0].env = env.filter((e) => e.name !== 'CASCADE_AUTH_TOKEN');
    expect({ ...exposed, metadata: { ...exposed.metadata, name: 'cascade' } }).toEqual(original);
    expect(docs[1]!.spec).toMatchObject({
      subject: { kind: 'Service', name: 'cascade-http' },
      sink: { ref: { kind: 'Broker', name: 'default' } },
    });
    expect((await dryRun(docs)).trim().split('\n')).toEqual([
      'service.serving.knative.dev/cascade-http',
      'sinkbinding.sources.knative.dev/cascade-http',
    ]);
  });
});

describe('the manifests docs/deploy/exposing.md shows for exposing the function', () => {
  it('EventPolicy and DomainMapping pass a dry run against the Knative CRDs', async () => {
    const blocks = [
      ...readFileSync(join(repoRoot, 'docs', 'deploy', 'exposing.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g),
    ].map((m) => m[1]!);
    const shown = blocks
      .map((b) => load(b) as Manifest)
      .filter((d) => ['EventPolicy', 'DomainMapping'].includes(d?.kind));
    expect(shown.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'EventPolicy/cascade-broker-senders',
      'DomainMapping/cascade.example.com',
    ]);
    expect(shown[0]!.spec.to).toEqual([
      { ref: { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: find('Broker').metadata.name } },
    ]);
    expect(shown[0]!.spec.from).toContainEqual({
      ref: {
        apiVersion: 'sources.knative.dev/v1',
        kind: 'ApiServerSource',
        name: find('ApiServerSource').metadata.name,
      },
    });
    expect((await dryRun(shown)).trim().split('\n')).toEqual([
      'eventpolicy.eventing.knative.dev/cascade-broker-senders',
      'domainmapping.serving.knative.dev/cascade.example.com',
    ]);
  });
});

describe('the EventPolicies docs/security.md shows, one per sender', () => {
  it('pass a dry run against the Knative CRDs, and admit Job events from the ApiServerSource only', async () => {
    const blocks = [
      ...readFileSync(join(repoRoot, 'docs', 'security.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g),
    ].map((m) => m[1]!);
    const policies = blocks.flatMap((b) => loadAll(b) as Manifest[]).filter((d) => d?.kind === 'EventPolicy');
    expect(policies.map((d) => d.metadata.name)).toEqual([
      'cascade-job-events',
      'cascade-module-results',
      'cascade-run-requests',
      'cascade-run-ends',
    ]);
    const broker = {
      ref: { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: find('Broker').metadata.name },
    };
    for (const p of policies) expect(p.spec.to).toEqual([broker]);
    const source = find('ApiServerSource');
    expect(policies[0]!.spec.from).toEqual([
      {
        ref: {
          apiVersion: 'sources.knative.dev/v1',
          kind: 'ApiServerSource',
          name: source.metadata.name,
          namespace: source.metadata.namespace,
        },
      },
    ]);
    expect(policies[0]!.spec.filters).toEqual([{ prefix: { type: 'dev.knative.apiserver.resource.' } }]);
    // The CRDs here are Eventing 1.15's, whose EventPolicy has no `filters` yet (docs/security.md says so).
    const unfiltered = policies.map((p) => ({ ...p, spec: { to: p.spec.to, from: p.spec.from } }));
    expect((await dryRun(unfiltered)).trim().split('\n')).toEqual(
      policies.map((p) => `eventpolicy.eventing.knative.dev/${p.metadata.name}`),
    );
  });
});

describe('broken copies are rejected by the API server', () => {
  const cases: [string, () => Manifest, RegExp][] = [
    [
      'a Trigger whose subscriber is not an object',
      () => {
        const t = find('Trigger', 'cascade-run-requested');
        t.spec.subscriber = 'cascade';
        return t;
      },
      /spec\.subscriber in body must be of type object/,
    ],
    [
      'a Trigger with a misspelt field in its subscriber',
      () => {
        const t = find('Trigger', 'cascade-module-finished');
        t.spec.subscriber = { reff: t.spec.subscriber.ref };
        return t;
      },
      /unknown field "spec\.subscriber\.reff"/,
    ],
    [
      'a Service whose containerConcurrency is not a number',
      () => {
        const s = find('Service', 'cascade');
        s.spec.template.spec.containerConcurrency = 'a hundred';
        return s;
      },
      /containerConcurrency in body must be of type integer/,
    ],
    [
      'a Service whose probe has a misspelt field',
      () => {
        const s = find('Service', 'cascade');
        s.spec.template.spec.containers[0].livenessProbe.httpGet = { paht: '/healthz' };
        return s;
      },
      /unknown field "spec\.template\.spec\.containers\[0\]\.livenessProbe\.httpGet\.paht"/,
    ],
    [
      'a Service without containers',
      () => {
        const s = find('Service', 'cascade');
        delete s.spec.template.spec.containers;
        return s;
      },
      /spec\.template\.spec\.containers: Required value/,
    ],
    [
      'a SinkBinding whose subject selector is a string',
      () => {
        const b = find('SinkBinding', 'cascade-modules');
        b.spec.subject.selector = 'app=Cascade';
        return b;
      },
      /spec\.subject\.selector in body must be of type object/,
    ],
    [
      'an ApiServerSource whose resources are not a list',
      () => {
        const a = find('ApiServerSource');
        a.spec.resources = a.spec.resources[0];
        return a;
      },
      /unknown field "spec\.resources\.kind"/,
    ],
    [
      'a CronJob with an invalid schedule',
      () => {
        const c = find('CronJob');
        c.spec.schedule = 'every two minutes';
        return c;
      },
      /spec\.schedule: Invalid value: "every two minutes"/,
    ],
    [
      'a CronJob with an unknown concurrencyPolicy',
      () => {
        const c = find('CronJob');
        c.spec.concurrencyPolicy = 'Never';
        return c;
      },
      /spec\.concurrencyPolicy: Unsupported value: "Never"/,
    ],
  ];

  it.each(cases)('%s', async (_what, broken, reason) => {
    await expect(dryRun([broken()])).rejects.toThrow(reason);
  });

  it('while the unbroken originals pass', async () => {
    const originals = ['Trigger', 'Service', 'SinkBinding', 'ApiServerSource', 'CronJob'].map((k) => find(k));
    await expect(dryRun(originals)).resolves.toContain('cronjob.batch/cascade-janitor');
  });
});

// What Knative's webhooks (not running here) would check, and what the function needs.
describe('the wiring, checked on the manifests', () => {
  it("has one Trigger per event type the function accepts, the ApiServerSource's per resource kind, each with a subscriber: the Service cascade", () => {
    const triggers = ofKind('Trigger');
    const filters = triggers.map((t) => {
      const { type, kind, apiversion } = t.spec.filter.attributes;
      return [type, kind, apiversion].filter(Boolean).join(' ');
    });
    // A CascadeRun's delete asks nothing of the function: no Trigger for it.
    const [add, update] = APISERVER_EVENTS;
    expect(filters.sort()).toEqual(
      [
        RUN_REQUESTED,
        MODULE_FINISHED,
        RUN_CANCEL_REQUESTED,
        RUN_RESUME_REQUESTED,
        ...APISERVER_EVENTS.map((type) => `${type} Job batch/v1`),
        `${add} CascadeRun cascade.cascade.net/v1alpha1`,
        `${update} CascadeRun cascade.cascade.net/v1alpha1`,
      ].sort(),
    );
    for (const t of triggers) {
      expect(t.spec.broker).toBe('default');
      expect(t.spec.subscriber).toEqual({
        ref: { apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: 'cascade' },
      });
    }
  });

  it('gives the Broker explicit retry, backoff, timeout and the dead-letter sink cascade-dead-letters, which every Trigger takes', () => {
    const dls = { ref: { apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: 'cascade-dead-letters' } };
    expect(find('Broker', 'default').spec.delivery).toEqual({
      retry: expect.any(Number),
      backoffPolicy: 'exponential',
      backoffDelay: expect.stringMatching(/^PT/),
      timeout: expect.stringMatching(/^PT/),
      deadLetterSink: dls,
    });
    // A Trigger without a delivery takes the Broker's whole (Knative's MT broker, its Trigger reconciler).
    expect(ofKind('Trigger').filter((t) => t.spec.delivery !== undefined)).toEqual([]);
    const sink = find('Service', 'cascade-dead-letters');
    expect(sink.metadata).toMatchObject({ labels: { 'networking.knative.dev/visibility': 'cluster-local' } });
    // the release's one image, its dead-letter entry
    expect(sink.spec.template.spec.containers[0]).toMatchObject({
      image: expect.stringMatching(/^ghcr\.io\/cascade\/cascade[:@]/),
      command: ['node', 'build/functions/dead-letters/main.js'],
    });
  });

  it("sends Job events of runs, CascadeRun events and the modules' results to the Broker", () => {
    const broker = { ref: { apiVersion: 'eventing.knative.dev/v1', kind: 'Broker', name: 'default' } };
    const source = find('ApiServerSource');
    expect(source.spec).toMatchObject({
      mode: 'Resource',
      serviceAccountName: 'cascade-apiserversource',
      resources: [
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          selector: { matchExpressions: [{ key: LABEL_RUN, operator: 'Exists' }] },
        },
        { apiVersion: 'cascade.cascade.net/v1alpha1', kind: 'CascadeRun' },
      ],
      sink: broker,
    });
    expect(find('SinkBinding', 'cascade-modules').spec).toEqual({
      subject: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        selector: {
          matchLabels: { [LABEL_APP]: LABEL_APP_VALUE },
          matchExpressions: [{ key: BINDING_EXCLUDE_LABEL, operator: 'DoesNotExist' }],
        },
      },
      sink: broker,
    });
    // The janitor sends the run-end events still owed: its Jobs get the function's sink.
    expect(find('SinkBinding', 'cascade-function').spec.sink).toEqual(broker);
    const janitorJobs = find('CronJob').spec.jobTemplate.metadata.labels as Record<string, string>;
    const janitorBinding = find('SinkBinding', 'cascade-janitor').spec;
    expect(janitorBinding).toEqual({
      subject: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        selector: { matchLabels: janitorBinding.subject.selector.matchLabels },
      },
      sink: broker,
    });
    expect(
      Object.entries(janitorBinding.subject.selector.matchLabels as Record<string, string>).every(
        ([k, v]) => janitorJobs[k] === v,
      ),
    ).toBe(true);
    expect(janitorJobs[LABEL_APP], 'not a module Job').toBeUndefined();
    // In inclusion mode the SinkBinding webhook admits only objects labelled as their namespace is.
    const labelsOf = (m: Manifest) => (m.metadata as { labels?: Record<string, string> }).labels ?? {};
    expect(labelsOf(find('Namespace'))[BINDING_INCLUDE_LABEL]).toBe('true');
    expect(janitorJobs[BINDING_INCLUDE_LABEL]).toBe('true');
    expect(labelsOf(find('Service', 'cascade'))[BINDING_INCLUDE_LABEL]).toBe('true');
  });

  it("runs the function and the janitor with the Go controller's environment and their own ServiceAccounts", () => {
    const service = find('Service', 'cascade').spec.template;
    const janitor = find('CronJob').spec.jobTemplate.spec.template.spec;
    const envNames = (c: { env: { name: string }[] }) => c.env.map((e) => e.name);
    // POD_NAMESPACE is left out: both read their namespace from their ServiceAccount
    const goEnv = ['CONFIG_PATH', 'SCENARIO_NAME', 'OUT_MINIO_ADDRESS'];
    expect(envNames(service.spec.containers[0])).toEqual(expect.arrayContaining(goEnv));
    expect(envNames(janitor.containers[0])).toEqual(expect.arrayContaining(goEnv));
    expect(service.metadata.annotations['autoscaling.knative.dev/min-scale']).toBe('0');
    // private by default: not published on the cluster's external domain
    expect(find('Service', 'cascade').metadata).toMatchObject({
      labels: { 'networking.knative.dev/visibility': 'cluster-local' },
    });
    expect(service.spec.serviceAccountName).toBe('cascade-function');
    expect(janitor.serviceAccountName).toBe('cascade-janitor');
    expect(janitor.containers[0].command).toEqual(['node', 'build/functions/janitor/main.js']);
    expect(find('CronJob').spec).toMatchObject({ schedule: '*/2 * * * *', concurrencyPolicy: 'Forbid' });
  });

  it('runs the janitor with the V8 heap caps the bench sweeps 10,000 live runs within (bench/janitor.ts), old space at most half its memory limit', () => {
    const container = find('CronJob').spec.jobTemplate.spec.template.spec.containers[0];
    const nodeOptions = container.env.find((e: { name: string }) => e.name === 'NODE_OPTIONS')?.value as string;
    expect(nodeOptions).toBe(CAPPED_HEAP_FLAGS.join(' '));
    const capMiB = Number(CAPPED_HEAP_FLAGS.find((f) => f.startsWith('--max-old-space-size='))!.split('=')[1]);
    expect(container.resources.limits.memory).toMatch(/^\d+Mi$/);
    expect(2 * capMiB).toBeLessThanOrEqual(parseInt(container.resources.limits.memory, 10));
  });

  it('uses no downward API (fieldRef), which a default Knative Serving refuses (kubernetes.podspec-fieldref)', () => {
    const service = find('Service', 'cascade').spec.template.spec;
    const janitor = find('CronJob').spec.jobTemplate.spec.template.spec;
    expect(JSON.stringify(service)).not.toContain('fieldRef');
    expect(JSON.stringify(janitor)).not.toContain('fieldRef');
  });
});
