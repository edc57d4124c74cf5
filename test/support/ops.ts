// Helpers for the operational tests (test/ops-*.test.ts): scraping and reading
// Prometheus text, `promtool check metrics`, kubectl as the admin, a K_SINK
// that holds run-end events until released, and run requests that record how
// they were answered (a connection error is an answer too).
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { kubectlPath } from '../../local/cluster/crds.ts';
import { ensurePromtool } from '../../local/prometheus/binaries.ts';
import { adminKubeconfigPath } from './kube.ts';
import { replyBody } from './cascade-harness.ts';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text exposition (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The samples of `name` whose labels include all of `labels`. */
export function samples(all: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample of `name` with `labels`; throws when there is none or several. */
export function value(all: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples(all, name, labels);
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name}${JSON.stringify(labels)}, expected 1`);
  return found[0]!.value;
}

/** `# TYPE` of each metric family. */
export function metricTypes(text: string): Record<string, string> {
  const types: Record<string, string> = {};
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types[m[1]!] = m[2]!;
  return types;
}

export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text}`);
  return text;
}

export interface PromtoolResult {
  /** 0: clean; 3: lint problems only; 1: the text does not parse. */
  code: number;
  /** promtool's lint problems, one a line. */
  problems: string[];
}

/**
 * `promtool check metrics` on `text`, with the pinned promtool
 * (local/prometheus/), built first on a first run.
 */
export async function promtoolCheck(text: string): Promise<PromtoolResult> {
  const promtool = await ensurePromtool();
  return new Promise((resolve, reject) => {
    const child = execFile(promtool, ['check', 'metrics'], (error, stdout, stderr) => {
      const e = error as (NodeJS.ErrnoException & { code?: number | string }) | null;
      if (typeof e?.code === 'string') {
        reject(new Error(`${promtool} check metrics: ${e.message}`));
        return;
      }
      const code = typeof e?.code === 'number' ? e.code : 0;
      resolve({
        code,
        problems: `${stdout}${stderr}`
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean),
      });
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(text);
  });
}

/** kubectl as the cluster admin. */
export function kubectl(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, ...args], (error, stdout, stderr) => {
      if (error) reject(new Error(`kubectl ${args.join(' ')}: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export interface SinkEvent {
  id: string;
  type: string;
  subject: string;
}

/**
 * A K_SINK that records every run-end CloudEvent and, until `release()`,
 * answers none of them: whatever request ends a run stays in flight.
 */
export async function heldSink() {
  let open = false;
  const waiting: ServerResponse[] = [];
  const received: SinkEvent[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      received.push({
        id: String(req.headers['ce-id']),
        type: String(req.headers['ce-type']),
        subject: String(req.headers['ce-subject']),
      });
      if (open) res.writeHead(200).end();
      else waiting.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    release() {
      open = true;
      for (const res of waiting.splice(0)) res.writeHead(200).end();
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

export interface Answer {
  /** HTTP status, or 0 when the connection failed (refused or reset). */
  status: number;
  body: Record<string, unknown>;
  headers: Headers | undefined;
  error?: string;
  /** When the answer arrived (Date.now()). */
  at: number;
}

/** POSTs JSON and records the answer; a connection error is status 0, not a throw. */
export async function send(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: replyBody(await res.text()), headers: res.headers, at: Date.now() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      status: 0,
      body: {},
      headers: undefined,
      error: cause?.code ?? cause?.message ?? String(error),
      at: Date.now(),
    };
  }
}
