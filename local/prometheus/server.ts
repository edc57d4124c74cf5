// A real Prometheus server on a free port, scraping static targets from a
// generated configuration, with its HTTP API for queries. The binary is the
// pinned build of build.sh (ensurePrometheus() in binaries.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { freePort } from '../stand-ins/function-process.ts';

export interface ScrapeTarget {
  /** The job label of the target's series. */
  job: string;
  /** Where its metrics are, e.g. the function's metricsUrl. */
  url: string;
  /** Target labels, as service discovery would set them (namespace, pod). */
  labels?: Record<string, string>;
  /** honor_labels: the target's own labels win (kube-state-metrics' namespace). */
  honorLabels?: boolean;
}

/** One entry of an instant query's result vector. */
export interface VectorSample {
  metric: Record<string, string>;
  /** The sample's value; NaN and ±Inf as numbers. */
  value: number;
}

export interface RunningPrometheus {
  url: string;
  /** Instant query at `time` (unix seconds; default now). */
  query(expr: string, time?: number): Promise<VectorSample[]>;
  /** The values of `label` on the series matched by `match` (what Grafana's label_values() asks). */
  labelValues(label: string, match: string): Promise<string[]>;
  /** /api/v1/targets: the targets left after relabeling, and how many were dropped. */
  targets(): Promise<{
    active: { scrapePool: string; scrapeUrl: string; labels: Record<string, string> }[];
    dropped: number;
  }>;
  output(): string;
  stop(): Promise<void>;
}

/** The prometheus.yml: one scrape job per target job, static targets. */
export function scrapeConfig(targets: ScrapeTarget[], scrapeInterval: string): string {
  const jobs = [...new Set(targets.map((t) => t.job))].map((job) => {
    const mine = targets.filter((t) => t.job === job);
    const first = new URL(mine[0]!.url);
    return {
      job_name: job,
      metrics_path: first.pathname,
      honor_labels: mine.some((t) => t.honorLabels === true),
      static_configs: mine.map((t) => ({ targets: [new URL(t.url).host], labels: t.labels ?? {} })),
    };
  });
  return dump({ global: { scrape_interval: scrapeInterval, scrape_timeout: scrapeInterval }, scrape_configs: jobs });
}

/** A sample value as the HTTP API writes it ("NaN", "+Inf", "-Inf" included). */
const promNumber = (text: string) => (text === '+Inf' ? Infinity : text === '-Inf' ? -Infinity : Number(text));

interface ApiAnswer<T> {
  status: string;
  data: T;
  error?: string;
}

async function api<T>(base: string, path: string, params: Record<string, string | string[]>): Promise<T> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) query.append(k, one);
  const res = await fetch(`${base}${path}?${query.toString()}`);
  const body = (await res.json()) as ApiAnswer<T>;
  if (body.status !== 'success')
    throw new Error(`${path} ${JSON.stringify(params)}: ${res.status} ${body.error ?? ''}`);
  return body.data;
}

async function waitReady(url: string, exited: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`prometheus exited:\n${output()}`);
    if (
      await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`prometheus did not become ready in 60 s:\n${output()}`);
}

export interface PrometheusOptions {
  scrapeInterval?: string;
  /** Scrape jobs of Prometheus's own configuration format, added as they are (file_sd_configs, relabel_configs...). */
  extraScrapeConfigs?: object[];
}

/** Writes the prometheus.yml into `dir`: the targets' jobs, then the extra scrape jobs as given. Returns its path. */
function writeConfig(dir: string, targets: ScrapeTarget[], options: PrometheusOptions): string {
  const config = load(scrapeConfig(targets, options.scrapeInterval ?? '1s')) as { scrape_configs: object[] };
  config.scrape_configs.push(...(options.extraScrapeConfigs ?? []));
  const file = join(dir, 'prometheus.yml');
  writeFileSync(file, dump(config));
  return file;
}

type Labels = Record<string, string>;
interface QueryData {
  resultType: string;
  result: { metric: Labels; value: [number, string] }[];
}
interface TargetsData {
  activeTargets: { scrapePool: string; scrapeUrl: string; labels: Labels }[];
  droppedTargets: unknown[];
}

/** The queries of the HTTP API of the Prometheus at `url`. */
function queries(url: string): Pick<RunningPrometheus, 'query' | 'labelValues' | 'targets'> {
  return {
    query: async (expr, time) => {
      const params = { query: expr, ...(time === undefined ? {} : { time: time.toFixed(3) }) };
      const data = await api<QueryData>(url, '/api/v1/query', params);
      if (data.resultType !== 'vector') throw new Error(`${expr}: a ${data.resultType}, not a vector`);
      return data.result.map((r) => ({ metric: r.metric, value: promNumber(r.value[1]) }));
    },
    labelValues: (label, match) =>
      api<string[]>(url, `/api/v1/label/${encodeURIComponent(label)}/values`, { 'match[]': match }),
    targets: async () => {
      const data = await api<TargetsData>(url, '/api/v1/targets', {});
      const active = data.activeTargets.map((t) => ({
        scrapePool: t.scrapePool,
        scrapeUrl: t.scrapeUrl,
        labels: t.labels,
      }));
      return { active, dropped: data.droppedTargets.length };
    },
  };
}

export async function startPrometheus(
  binary: string,
  targets: ScrapeTarget[],
  options: PrometheusOptions = {},
): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'cascade-prometheus-'));
  const configFile = writeConfig(dir, targets, options);
  const port = await freePort();
  const child = spawn(
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
    });
  try {
    await waitReady(
      url,
      () => child.exitCode !== null,
      () => log,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, output: () => log, stop, ...queries(url) };
}
