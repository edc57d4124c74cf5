// The Knative Service `func deploy` makes from func.yaml, as knative/func's
// Knative deployer builds it (pkg/knative/deployer.go generateNewService and
// setServiceOptions, pkg/k8s/deployer.go SetHealthEndpoints,
// SetSecurityContext and ProcessVolumes). Pure: the manifests test compares it
// with knative/service.yaml, so the two deploy paths stay one.
// Left out: func's own bookkeeping labels and annotations (function.knative.dev/*),
// and the image digest it resolves at deploy time.

export interface FuncYaml {
  name: string;
  image?: string;
  run?: {
    envs?: { name: string; value?: string }[];
    volumes?: {
      configMap?: string;
      secret?: string;
      emptyDir?: { medium?: string; sizeLimit?: string };
      path?: string;
    }[];
  };
  deploy?: {
    image?: string;
    serviceAccountName?: string;
    labels?: { key: string; value?: string }[];
    annotations?: Record<string, string>;
    healthEndpoints?: { liveness?: string; readiness?: string };
    options?: {
      scale?: { min?: number; max?: number; metric?: string; target?: number; utilization?: number };
      resources?: {
        requests?: { cpu?: string; memory?: string };
        limits?: { cpu?: string; memory?: string; concurrency?: number };
      };
    };
  };
}

/** func's fixed HTTP port (k8s.DefaultHTTPPort): its probes name it. */
export const FUNC_HTTP_PORT = 8080;

/** The container securityContext func always sets (k8s.SetSecurityContext): nothing in func.yaml changes it. */
export const FUNC_SECURITY_CONTEXT = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/** Go's %f: the way func writes scale targets into annotations. */
const goFloat = (n: number) => n.toFixed(6);

function scaleAnnotations(
  scale: NonNullable<NonNullable<FuncYaml['deploy']>['options']>['scale'],
): Record<string, string> {
  if (!scale) return {};
  const a: Record<string, string> = {};
  if (scale.min !== undefined) a['autoscaling.knative.dev/min-scale'] = String(scale.min);
  if (scale.max !== undefined) a['autoscaling.knative.dev/max-scale'] = String(scale.max);
  if (scale.metric !== undefined) a['autoscaling.knative.dev/metric'] = scale.metric;
  if (scale.target !== undefined) a['autoscaling.knative.dev/target'] = goFloat(scale.target);
  if (scale.utilization !== undefined)
    a['autoscaling.knative.dev/target-utilization-percentage'] = goFloat(scale.utilization);
  return a;
}

function resources(r: NonNullable<NonNullable<FuncYaml['deploy']>['options']>['resources']) {
  const out: { requests?: Record<string, string>; limits?: Record<string, string> } = {};
  if (r?.requests) out.requests = Object.fromEntries(Object.entries(r.requests).filter(([, v]) => v !== undefined));
  if (r?.limits)
    out.limits = Object.fromEntries(
      Object.entries({ cpu: r.limits.cpu, memory: r.limits.memory }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>;
  return out;
}

/** One func.yaml volume as ProcessVolumes makes it; an emptyDir gets `empty-dir-<n>` here where func draws a random suffix. */
function volume(
  v: NonNullable<NonNullable<FuncYaml['run']>['volumes']>[number],
  i: number,
): Record<string, unknown> & { name: string } {
  if (v.configMap) return { name: `config-map-${v.configMap}`, configMap: { name: v.configMap } };
  if (v.secret) return { name: `secret-${v.secret}`, secret: { secretName: v.secret } };
  if (v.emptyDir) return { name: `empty-dir-${i}`, emptyDir: { ...v.emptyDir } };
  throw new Error('func.yaml: a volume of a kind this renderer does not know');
}

function volumes(given: NonNullable<FuncYaml['run']>['volumes'] = []) {
  const vols = given.map(volume);
  const mounts = given.map((v, i) => {
    if (!v.path) throw new Error(`func.yaml: volume ${vols[i]!.name} has no path`);
    return { name: vols[i]!.name, mountPath: v.path };
  });
  return { vols, mounts };
}

/** The user container func makes. */
function container(f: FuncYaml) {
  const probe = (path: string) => ({ httpGet: { path, port: FUNC_HTTP_PORT } });
  const health = f.deploy?.healthEndpoints ?? {};
  return {
    image: f.deploy?.image ?? f.image,
    env: (f.run?.envs ?? []).map((e) => ({ name: e.name, value: e.value })),
    livenessProbe: probe(health.liveness ?? '/health/liveness'),
    readinessProbe: probe(health.readiness ?? '/health/readiness'),
    resources: resources(f.deploy?.options?.resources),
    securityContext: FUNC_SECURITY_CONTEXT,
    volumeMounts: volumes(f.run?.volumes).mounts,
  };
}

export function funcService(f: FuncYaml) {
  const deploy = f.deploy ?? {};
  const labels = Object.fromEntries((deploy.labels ?? []).map((l) => [l.key, l.value ?? '']));
  const annotations = deploy.annotations ?? {};
  const concurrency = deploy.options?.resources?.limits?.concurrency;
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: { name: f.name, labels, annotations },
    spec: {
      template: {
        metadata: { labels, annotations: { ...annotations, ...scaleAnnotations(deploy.options?.scale) } },
        spec: {
          ...(concurrency === undefined ? {} : { containerConcurrency: concurrency }),
          serviceAccountName: deploy.serviceAccountName,
          containers: [container(f)],
          volumes: volumes(f.run?.volumes).vols,
        },
      },
    },
  };
}
