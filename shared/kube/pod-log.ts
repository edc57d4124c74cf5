// A pod's log, read whole or followed as the container writes it.
import type { Connection } from './connection.ts';
import { ApiError, url, type Rest } from './rest.ts';
import { streamGet } from './stream-get.ts';

/** Which lines of a log to read, as kubectl logs --since and --tail: unset reads them all. */
export interface LogWindow {
  sinceSeconds?: number | undefined;
  tailLines?: number | undefined;
}

const logPath = (namespace: string, pod: string) => `/api/v1/namespaces/${namespace}/pods/${pod}/log`;

function logQuery(container: string, window: LogWindow): Record<string, string | undefined> {
  return {
    container,
    sinceSeconds: window.sinceSeconds?.toString(),
    tailLines: window.tailLines?.toString(),
  };
}

export interface PodLogAt {
  namespace: string;
  pod: string;
  container: string;
  window?: LogWindow;
}

/** The log as it is now. */
export function podLog(rest: Rest, at: PodLogAt): Promise<string> {
  return rest<string>('GET', logPath(at.namespace, at.pod), {
    query: logQuery(at.container, at.window ?? {}),
    text: true,
  });
}

/** Streams the log to `onChunk` until the container ends; rejects when the API server refuses or the stream breaks off. */
export function followPodLog(conn: Connection, at: PodLogAt, onChunk: (text: string) => void): Promise<void> {
  const path = logPath(at.namespace, at.pod);
  const target = url(conn, path, { ...logQuery(at.container, at.window ?? {}), follow: 'true' });
  return new Promise((resolve, reject) => {
    const req = streamGet(conn, target, 24 * 3600_000, (res) => {
      const status = res.statusCode ?? 0;
      const chunks: string[] = [];
      res.setEncoding('utf8');
      res.on('data', (text: string) => (status < 400 ? onChunk(text) : chunks.push(text)));
      res.on('error', reject);
      res.on('close', () => {
        if (status >= 400)
          reject(Object.assign(new ApiError(status, 'GET', path, chunks.join('')), { headers: res.headers }));
        else if (res.complete) resolve();
        else reject(new Error(`the log of pod ${at.pod} broke off`));
      });
    });
    req.on('error', reject);
    req.end();
  });
}
