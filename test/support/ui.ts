// The ui's server as a test talks to it: plain HTTP requests with the headers
// the test chooses (a foreign Host, a missing token), and its event stream
// read message by message.
import { request } from 'node:http';
import { CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { adminKubeConfig, serviceAccountKubeConfig } from './kube.ts';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request to `base` (http://host:port/) with exactly these headers; Host defaults to the URL's. */
export function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawReply> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        method,
        path: url.pathname + url.search,
        headers: { host: url.host, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface SseMessage {
  event: string;
  data: unknown;
}

/** The event stream at `base`/api/stream: every message as it comes, and a wait for one that matches. */
export function openStream(base: string) {
  const messages: SseMessage[] = [];
  const waiters = new Set<() => void>();
  const controller = new AbortController();
  const done = fetch(new URL('/api/stream', base), { signal: controller.signal })
    .then(async (res) => {
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) messages.push({ event, data: JSON.parse(data) });
          for (const w of waiters) w();
        }
      }
    })
    .catch(() => {});
  return {
    messages,
    /** The first message (from the start) for which `pick` gives a value; fails after `timeoutMs`. */
    next<T>(pick: (m: SseMessage) => T | undefined, timeoutMs = 60_000): Promise<T> {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const m of messages) {
            const v = pick(m);
            if (v !== undefined) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(v);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no such stream message within ${timeoutMs} ms (${messages.length} seen)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: async () => {
      controller.abort();
      await done;
    },
  };
}

/**
 * A KubeConfig for ServiceAccount `viewer` of `namespace`, which may get,
 * list and watch runs and scenarios there, and nothing else.
 */
export async function grantViewer(namespace: string): Promise<KubeConfig> {
  const admin = adminKubeConfig();
  await admin
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'viewer' } } });
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: 'run-viewer' },
      rules: [
        {
          apiGroups: ['cascade.cascade.net'],
          resources: ['cascaderuns', 'cascadeautooperators'],
          verbs: ['get', 'list', 'watch'],
        },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'viewer-run-viewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'run-viewer' },
      subjects: [{ kind: 'ServiceAccount', name: 'viewer', namespace }],
    },
  });
  return serviceAccountKubeConfig(namespace, 'viewer');
}
