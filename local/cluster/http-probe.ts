// Minimal HTTP(S) GET used for health probes.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';

export interface ProbeResult {
  status: number;
  body: string;
}

export interface ProbeTls {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  /** Components serve a self-signed cert of their own: do not verify it. */
  insecure?: boolean;
}

export function probe(url: string, tls: ProbeTls = {}, timeoutMs = 3000): Promise<ProbeResult> {
  const isHttps = url.startsWith('https:');
  const options: RequestOptions = isHttps
    ? { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: !tls.insecure }
    : {};
  const send = isHttps ? httpsRequest : httpRequest;
  return new Promise((resolveProbe, reject) => {
    const req = send(url, { ...options, method: 'GET', timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolveProbe({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** True when `url` answers 200. */
export async function probeOk(url: string, tls: ProbeTls = {}): Promise<boolean> {
  try {
    return (await probe(url, tls)).status === 200;
  } catch {
    return false;
  }
}
