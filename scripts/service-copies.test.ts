// The function's Knative Service is written in four places. knative/service.yaml
// is the source. func.yaml is checked against it in func-yaml.test.ts. This
// file checks the other two, field by field: deploy/http/service.yaml, and the
// `kn` commands of docs/deploy/kn.md, with the Broker and the Triggers those
// commands make. What a copy cannot say is listed here, once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load as parse, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Env {
  name: string;
  value?: string;
  valueFrom?: unknown;
}
/* eslint-disable @typescript-eslint/no-explicit-any -- YAML documents read as they are */
const service = parse(read('knative/service.yaml')) as any;
const httpService = parse(read('deploy/http/service.yaml')) as any;
const broker = parse(read('knative/broker.yaml')) as any;
const triggers = (loadAll(read('knative/triggers.yaml')) as any[]).filter((d) => d?.kind === 'Trigger');
/* eslint-enable @typescript-eslint/no-explicit-any */

/** What knative/service.yaml sets and `kn service create` has no flag for (docs/deploy/kn.md's table of gaps). */
const KN_CANNOT_EXPRESS = {
  securityContext: ['readOnlyRootFilesystem', 'runAsGroup'],
  emptyDir: ['sizeLimit'],
};

/** The `kn` commands of a sh block: continued lines joined, comments dropped, each split into words. */
export function knCommands(markdown: string): string[][] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .flatMap((b) => b.replace(/\\\n/g, ' ').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('kn '))
    .map((line) => line.split(/\s+/));
}

/** A command's flags: each name with every value it was given, in order; a flag with no value gets ''. */
export function flagsOf(words: string[]): Map<string, string[]> {
  const flags = new Map<string, string[]>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('--')) continue;
    const next = words[i + 1];
    const value = next !== undefined && !next.startsWith('--') ? next : '';
    if (value !== '') i++;
    flags.set(word, [...(flags.get(word) ?? []), value]);
  }
  return flags;
}

const pairs = (list: string[] = []) =>
  Object.fromEntries(
    list.flatMap((v) => v.split(',')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );

/** The fields of knative/service.yaml that `kn service create` can set, as that command sets them. */
function fromKn(words: string[]) {
  const f = flagsOf(words);
  const one = (name: string) => f.get(name)?.[0];
  const [min, max] = one('--scale')!.split('..');
  const mounts = Object.fromEntries(
    (f.get('--mount') ?? []).map((m) => {
      const [path, source] = m.split('=') as [string, string];
      const [kind, name] = source.split(':');
      return [path, kind === 'cm' ? { configMap: { name } } : { emptyDir: {} }];
    }),
  );
  const probePath = (flag: string) => one(flag)!.split(':').at(-1);
  return {
    name: words[3],
    labels: {
      ...(f.has('--cluster-local') ? { 'networking.knative.dev/visibility': 'cluster-local' } : {}),
      ...pairs(f.get('--label')),
    },
    annotations: {
      'autoscaling.knative.dev/min-scale': min,
      'autoscaling.knative.dev/max-scale': max,
      'autoscaling.knative.dev/target-utilization-percentage': one('--scale-utilization'),
      'autoscaling.knative.dev/metric': one('--scale-metric'),
      ...pairs(f.get('--annotation-revision')),
    },
    containerConcurrency: Number(one('--concurrency-limit')),
    timeoutSeconds: Number(one('--timeout')),
    serviceAccountName: one('--service-account'),
    image: one('--image'),
    port: Number(one('--port')),
    env: pairs(f.get('--env')),
    probes: { liveness: probePath('--probe-liveness'), readiness: probePath('--probe-readiness') },
    resources: { requests: pairs(f.get('--request')), limits: pairs(f.get('--limit')) },
    // kn's `strict`, as docs/deploy/kn.md says it
    securityContext: {
      ...(one('--security-context') === 'strict'
        ? {
            runAsNonRoot: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          }
        : {}),
      ...(f.has('--user') ? { runAsUser: Number(one('--user')) } : {}),
    },
    mounts,
  };
}

/** The same fields of a Knative Service manifest, without what kn cannot express. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a Knative Service read from YAML
function fromManifest(svc: any): ReturnType<typeof fromKn> {
  const t = svc.spec.template;
  const c = t.spec.containers[0];
  const volumes = new Map((t.spec.volumes as { name: string }[]).map(({ name, ...source }) => [name, source]));
  const drop = (o: Record<string, unknown>, keys: string[]) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
  return {
    name: svc.metadata.name,
    labels: svc.metadata.labels ?? {},
    annotations: t.metadata.annotations,
    containerConcurrency: t.spec.containerConcurrency,
    timeoutSeconds: t.spec.timeoutSeconds,
    serviceAccountName: t.spec.serviceAccountName,
    image: c.image,
    port: c.ports[0].containerPort,
    env: Object.fromEntries((c.env as Env[]).map((e) => [e.name, e.value])),
    probes: { liveness: c.livenessProbe.httpGet.path, readiness: c.readinessProbe.httpGet.path },
    resources: c.resources,
    securityContext: drop(c.securityContext, KN_CANNOT_EXPRESS.securityContext),
    mounts: Object.fromEntries(
      (c.volumeMounts as { name: string; mountPath: string }[]).map((m) => {
        const v = volumes.get(m.name) as { emptyDir?: Record<string, unknown> };
        return [m.mountPath, v.emptyDir ? { emptyDir: drop(v.emptyDir, KN_CANNOT_EXPRESS.emptyDir) } : v];
      }),
    ),
  } as ReturnType<typeof fromKn>;
}

/** The section of docs/deploy/kn.md that makes the objects: its first sh block, under "Install with `kn`". */
const install = read('docs/deploy/kn.md').split('\n## ')[1]!;
const kn = knCommands(install);
const command = (...prefix: string[]) => kn.filter((w) => prefix.every((p, i) => w[i] === p));

describe('docs/deploy/kn.md makes the objects of knative/', () => {
  it('`kn service create cascade` sets every field of knative/service.yaml that kn has a flag for, to the same value', () => {
    const [create] = command('kn', 'service', 'create', 'cascade');
    expect(fromKn(create!)).toEqual(fromManifest(service));
  });

  it('`kn broker create` sets the delivery of knative/broker.yaml and, as it, no class: the cluster default', () => {
    const [create] = command('kn', 'broker', 'create', broker.metadata.name);
    const f = flagsOf(create!);
    const d = broker.spec.delivery;
    expect(broker.metadata.annotations).toBeUndefined();
    expect({
      class: f.get('--class')?.[0],
      retry: Number(f.get('--retry')?.[0]),
      backoffPolicy: f.get('--backoff-policy')?.[0],
      backoffDelay: f.get('--backoff-delay')?.[0],
      timeout: f.get('--timeout')?.[0],
      deadLetterSink: f.get('--dl-sink')?.[0],
    }).toEqual({
      class: undefined,
      retry: d.retry,
      backoffPolicy: d.backoffPolicy,
      backoffDelay: d.backoffDelay,
      timeout: d.timeout,
      deadLetterSink: `ksvc:${d.deadLetterSink.ref.name}`,
    });
  });

  it('`kn trigger create` makes the Triggers of knative/triggers.yaml: names, filters, subscriber, no delivery of their own', () => {
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    const fromDoc = command('kn', 'trigger', 'create').map((w) => {
      const f = flagsOf(w);
      const delivery = [...f.keys()].filter((k) => /retry|backoff|timeout|dl-sink/.test(k));
      return { name: w[3]!, filter: pairs(f.get('--filter')), sink: f.get('--sink')?.[0], delivery };
    });
    const fromYaml = triggers.map((t) => ({
      name: String(t.metadata.name),
      filter: t.spec.filter.attributes,
      sink: `ksvc:${t.spec.subscriber.ref.name}`,
      delivery: t.spec.delivery === undefined ? [] : Object.keys(t.spec.delivery),
    }));
    expect(fromDoc.sort(byName)).toEqual(fromYaml.sort(byName));
  });
});

describe('deploy/http/service.yaml', () => {
  it('is knative/service.yaml but for its name, its public visibility and the caller token', () => {
    // both labelled for the SinkBinding webhook in either selection mode
    expect(httpService.metadata.labels).toEqual({ 'bindings.knative.dev/include': 'true' });
    expect(service.metadata.labels['bindings.knative.dev/include']).toBe('true');
    const exposed = structuredClone(httpService);
    const container = exposed.spec.template.spec.containers[0];
    expect((container.env as Env[]).find((e) => e.name === 'CASCADE_AUTH_TOKEN')).toEqual({
      name: 'CASCADE_AUTH_TOKEN',
      valueFrom: { secretKeyRef: { name: 'cascade-caller-token', key: 'token' } },
    });
    container.env = (container.env as Env[]).filter((e) => e.name !== 'CASCADE_AUTH_TOKEN');
    const original = structuredClone(service);
    delete original.metadata.labels;
    delete exposed.metadata.labels;
    expect(exposed.metadata).toEqual({ name: 'cascade-http' });
    expect({ ...exposed, metadata: original.metadata }).toEqual(original);
  });
});

describe('knCommands and flagsOf', () => {
  it('join continued lines, drop comments, keep repeated flags in order and valueless ones', () => {
    const md =
      '```sh\n# a comment\nkn trigger create t \\\n  --filter a=1 --filter b=2 --cluster-local --sink x\n```\n';
    const [words] = knCommands(md);
    expect(words!.slice(0, 4)).toEqual(['kn', 'trigger', 'create', 't']);
    const f = flagsOf(words!);
    expect(f.get('--filter')).toEqual(['a=1', 'b=2']);
    expect(f.get('--cluster-local')).toEqual(['']);
    expect(f.get('--sink')).toEqual(['x']);
  });
});
