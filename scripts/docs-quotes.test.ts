// The docs quote the code exactly. Every line, metric name, environment
// variable and repository path that README.md or docs/ puts in backticks is
// in the code or in the tree; scripts/docs-quotes.ts tells the kinds apart.
// The code is every file but the docs and the tests. Its scripts are read
// without their comments, so a comment is no proof that the code prints it.
//
// What this cannot catch: a quote outside backticks; a line of fewer than
// three lower-case words in a row; a line whose pieces the code holds but
// never prints together; a metric the code names but never exports.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { load } from 'js-yaml';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  codeSpans,
  finding,
  fragments,
  isLogLine,
  KINDS,
  missing,
  namesIn,
  printerOf,
  quotesOf,
  stateMetricNames,
  type Code,
  type Quote,
  type QuoteKind,
} from './docs-quotes.ts';

const root = join(import.meta.dirname, '..');
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'build', '.cascade', 'results']);
/** `npm run dist`'s output (scripts/dist.ts), git-ignored. */
const DIST = join(root, 'dist');
const SCRIPT = /\.(ts|mts|js|mjs|cjs)$/;
const BINARY = /\.(png|jpe?g|gif|ico|woff2?|tgz|gz)$/;

/**
 * Quotes of what Cascade does not make, each with its maker. Keep it short:
 * a quote of Cascade's belongs in the code, or out of the docs.
 */
const NOT_CASCADES: { kind: QuoteKind; text: string; maker: string }[] = [
  { kind: 'log line', text: 'pending request queue full', maker: "Knative queue-proxy's 503 body" },
  { kind: 'metric', text: 'kn_serving_invocation_duration_seconds', maker: "Knative queue-proxy's own metric" },
  { kind: 'metric', text: 'kn_serving_queue_depth', maker: "Knative queue-proxy's own metric" },
  { kind: 'metric', text: 'http_server_request_duration_seconds', maker: "Knative queue-proxy's own metric" },
  { kind: 'env var', text: 'CAP_SYS_RESOURCE', maker: 'Linux: a capability that looks like a variable' },
];

/** At least this many quotes of each kind, all pages together, so that the check cannot pass on finding none. */
const AT_LEAST: Record<QuoteKind, number> = { 'log line': 25, metric: 28, 'env var': 80, path: 150 };

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) || path === DIST ? [] : filesUnder(path);
    return [relative(root, path)];
  });
}

/** A script's text without its comments; its strings stay as written. */
function withoutComments(path: string, text: string): string {
  const kind = /\.(js|mjs|cjs)$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  return ts.createPrinter({ removeComments: true }).printFile(file);
}

const files = filesUnder(root);
const pages = files.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')));
const isCode = (f: string) =>
  !f.endsWith('.md') &&
  !f.startsWith('docs/') &&
  !f.startsWith('test/') &&
  !f.endsWith('.test.ts') &&
  f !== 'package-lock.json' &&
  // the check's own patterns
  f !== 'scripts/docs-quotes.ts' &&
  !BINARY.test(f);
const codeText = files
  .filter(isCode)
  .map((f) => {
    const text = readFileSync(join(root, f), 'utf8');
    return SCRIPT.test(f) ? withoutComments(f, text) : text;
  })
  .join('\n');
const stateMetrics = stateMetricNames(
  load(readFileSync(join(root, 'knative/monitoring/kube-state-metrics-cascaderuns.yaml'), 'utf8')),
);
const code: Code = {
  printer: printerOf(codeText),
  names: new Set([...namesIn(codeText), ...stateMetrics]),
  tree: new Set(
    files.flatMap((f) => {
      const parts = f.split('/');
      const folders = parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
      return [f, ...folders, ...folders.map((d) => `${d}/`)];
    }),
  ),
};
const topLevel = new Set(files.map((f) => f.split('/')[0]!));
const notCascades = (q: Quote) => NOT_CASCADES.some((n) => n.kind === q.kind && n.text === q.text);
const quotes = pages.flatMap((page) =>
  quotesOf(readFileSync(join(root, page), 'utf8'), topLevel).map((quote) => ({ page, quote })),
);

describe('quotesOf', () => {
  const top = new Set(['shared', 'knative', 'docs']);
  const kinds = (md: string) => quotesOf(md, top).map((q) => [q.kind, q.text]);

  it('finds the four kinds in backticks, outside code blocks', () => {
    const md = [
      'It logs `watch lost: listing or opening it again` and counts `cascade_transitions_total{kind}`.',
      'Set `CASCADE_RATE_LIMIT`, or run `BENCH_ONLY=cli npm run bench` with `$KUBECONFIG`; see `shared/kube/`.',
      '```sh',
      'echo `NOT_THIS_ONE`',
      '```',
    ].join('\n');
    expect(kinds(md)).toEqual([
      ['log line', 'watch lost: listing or opening it again'],
      ['metric', 'cascade_transitions_total'],
      ['env var', 'CASCADE_RATE_LIMIT'],
      ['env var', 'BENCH_ONLY'],
      ['env var', 'KUBECONFIG'],
      ['path', 'shared/kube/'],
    ]);
  });

  it("takes a metric table's first column as metrics, whatever their shape", () => {
    const md = '| metric | what |\n| --- | --- |\n| `response_status{status}` | replies |\n\n`app_name` is no metric.';
    expect(kinds(md)).toEqual([['metric', 'response_status']]);
  });

  it('leaves out commands, manifests and paths of other repositories', () => {
    for (const span of ['kubectl apply -k knative/', 'time bash local/node/build.sh', 'concurrencyPolicy: Forbid'])
      expect(isLogLine(span)).toBe(false);
    expect(kinds('`knative/client` and `cluster/` are not ours: `knative/broker.yaml` is.')).toEqual([
      ['path', 'knative/client'],
      ['path', 'knative/broker.yaml'],
    ]);
    expect(codeSpans('| a | b |\n| --- | --- |\n| `x` | `y` |')).toEqual([
      { text: 'x', line: 3, column: 'a' },
      { text: 'y', line: 3, column: 'b' },
    ]);
  });
});

describe('missing', () => {
  const source = [
    "log.warn({ path }, 'watch lost: listing or opening it again');",
    'throw new CliError(`cascaderun/${name} is ${phase}: only a finished run is deleted`);',
    'io.err.write(`error: ${describeError(error)}\\n`);',
    'throw new CliError(`--phase ${phase}: not a phase (one of ${PHASES.join(", ")})`);',
    'const m = new Gauge({ name: "cascade_counters_writer" }); const v = env.CASCADE_METRICS_PORT;',
  ].join('\n');
  const fake: Code = {
    printer: printerOf(source),
    names: namesIn(source),
    tree: new Set(['shared', 'shared/', 'shared/kube', 'shared/kube/', 'docs/contract.md']),
  };
  const why = (kind: QuoteKind, text: string, page = 'docs/x.md') => missing({ kind, text, line: 1 }, page, fake);

  it('finds a line the code prints, its placeholders filled in and its pieces joined where the code interpolates', () => {
    expect(fragments('error: cascaderun/X is P: only a finished run is deleted')).toEqual([
      'error: cascaderun/',
      'only a finished run is deleted',
    ]);
    expect(why('log line', 'watch lost: listing or opening it again')).toBeUndefined();
    expect(why('log line', 'error: cascaderun/X is P: only a finished run is deleted')).toBeUndefined();
    expect(why('log line', 'error: --phase X: not a phase (one of Queued, Pending, Running)')).toBeUndefined();
  });

  it('names the pieces of a line that the code no longer prints', () => {
    expect(why('log line', 'watch lost: opening it again')).toBe('no code prints "watch lost: opening it again"');
    expect(why('log line', 'error: cascaderun/X is P: only a banana is deleted')).toBe(
      'no code prints "only a banana is deleted"',
    );
  });

  it('finds names and paths, a path from the root or from the page', () => {
    expect(why('metric', 'cascade_counters_writer')).toBeUndefined();
    expect(why('env var', 'CASCADE_METRICS_PORT')).toBeUndefined();
    expect(why('env var', 'CASCADE_METRICS_PORTS')).toBe('no code names CASCADE_METRICS_PORTS');
    expect(why('path', 'shared/kube/')).toBeUndefined();
    expect(why('path', 'contract.md', 'docs/architecture.md')).toBeUndefined();
    expect(why('path', 'knative/serving/')).toBe('no such file or folder in the repository');
  });

  it('reports the page, the line, the quote and what is missing', () => {
    const q: Quote = { kind: 'log line', text: 'watch lost: opening it again', line: 309 };
    expect(finding('docs/operations.md', q, missing(q, 'docs/operations.md', fake)!)).toBe(
      'docs/operations.md:309 log line `watch lost: opening it again`: no code prints "watch lost: opening it again"',
    );
  });

  it("names the metrics of kube-state-metrics's configuration", () => {
    const config = { spec: { resources: [{ metricNamePrefix: 'cascade_cascaderun', metrics: [{ name: 'info' }] }] } };
    expect(stateMetricNames(config)).toEqual(['cascade_cascaderun_info']);
  });
});

describe('README.md and docs/', () => {
  it('quote enough of each kind for the check to mean something', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/contract.md');
    const found = Object.fromEntries(KINDS.map((k) => [k, quotes.filter(({ quote }) => quote.kind === k).length]));
    for (const kind of KINDS) expect(found[kind], kind).toBeGreaterThanOrEqual(AT_LEAST[kind]);
  });

  it('quote only lines, metrics, variables and paths the code and the tree have', () => {
    const problems = quotes.flatMap(({ page, quote }) => {
      const why = notCascades(quote) ? undefined : missing(quote, page, code);
      return why === undefined ? [] : [finding(page, quote, why)];
    });
    expect(problems).toEqual([]);
  });

  it("keep the list of others' quotes short and current: each is quoted, and the code lacks it", () => {
    const stale = NOT_CASCADES.filter(
      (n) =>
        !quotes.some(({ quote }) => quote.kind === n.kind && quote.text === n.text) ||
        missing({ kind: n.kind, text: n.text, line: 0 }, '', code) === undefined,
    );
    expect(stale).toEqual([]);
  });
});
