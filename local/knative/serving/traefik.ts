// Traefik as Knative Serving's networking layer: a Deployment with its
// experimental Knative provider, which watches Knative's Ingresses of its
// class, routes each host to the Ingress's backends (Kubernetes Services, by
// ClusterIP) and reports the Ingress's load balancer: `traefik` for public
// hosts and `traefik-internal` for cluster-local ones. Pure: objects out.
import { placedOnRealNode, type KubeObject } from './manifests.ts';
import { TRAEFIK_IMAGE } from './images.ts';

export const TRAEFIK_NAMESPACE = 'knative-traefik';
export const TRAEFIK_PUBLIC_SERVICE = 'traefik';
export const TRAEFIK_PRIVATE_SERVICE = 'traefik-internal';

const PORTS = { public: 8081, private: 8082, ping: 9000 } as const;
const labels = { 'app.kubernetes.io/name': 'traefik', 'app.kubernetes.io/component': 'knative-ingress' };
const selector = { 'app.kubernetes.io/name': 'traefik' };

/** Traefik's command line: the Knative provider on two entry points, no dashboard, no telemetry. */
export function traefikArgs(): string[] {
  return [
    `--entrypoints.web.address=:${PORTS.public}`,
    `--entrypoints.web-internal.address=:${PORTS.private}`,
    `--entrypoints.traefik.address=:${PORTS.ping}`,
    '--ping=true',
    '--experimental.knative=true',
    '--providers.knative=true',
    '--providers.knative.publicEntrypoints=web',
    `--providers.knative.publicService.name=${TRAEFIK_PUBLIC_SERVICE}`,
    `--providers.knative.publicService.namespace=${TRAEFIK_NAMESPACE}`,
    '--providers.knative.privateEntrypoints=web-internal',
    `--providers.knative.privateService.name=${TRAEFIK_PRIVATE_SERVICE}`,
    `--providers.knative.privateService.namespace=${TRAEFIK_NAMESPACE}`,
    '--global.checkNewVersion=false',
    '--global.sendAnonymousUsage=false',
    '--log.level=INFO',
    '--log.noColor=true',
  ];
}

function service(name: string, targetPort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: TRAEFIK_NAMESPACE, labels },
    spec: { selector, ports: [{ name: 'http', port: 80, targetPort, protocol: 'TCP' }] },
  };
}

function deployment(name: string): KubeObject {
  return placedOnRealNode({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: TRAEFIK_NAMESPACE, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: name,
          containers: [
            {
              name,
              image: TRAEFIK_IMAGE,
              args: traefikArgs(),
              ports: [
                { name: 'web', containerPort: PORTS.public },
                { name: 'web-internal', containerPort: PORTS.private },
                { name: 'ping', containerPort: PORTS.ping },
              ],
              readinessProbe: { httpGet: { path: '/ping', port: 'ping' }, periodSeconds: 2 },
              livenessProbe: { httpGet: { path: '/ping', port: 'ping' }, periodSeconds: 10 },
              resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '512Mi' } },
              securityContext: {
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
            },
          ],
        },
      },
    },
  });
}

export function traefikObjects(): KubeObject[] {
  const name = 'traefik';
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TRAEFIK_NAMESPACE, labels } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: TRAEFIK_NAMESPACE, labels } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'knative-traefik', labels },
      rules: [
        { apiGroups: ['networking.internal.knative.dev'], resources: ['ingresses'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['networking.internal.knative.dev'], resources: ['ingresses/status'], verbs: ['update'] },
        { apiGroups: [''], resources: ['services', 'secrets'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'knative-traefik', labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'knative-traefik' },
      subjects: [{ kind: 'ServiceAccount', name, namespace: TRAEFIK_NAMESPACE }],
    },
    deployment(name),
    service(TRAEFIK_PUBLIC_SERVICE, PORTS.public),
    service(TRAEFIK_PRIVATE_SERVICE, PORTS.private),
  ];
}
