// What the docs quote in backticks, and whether the code has it. Four kinds:
// a line the code logs or prints, a metric name, an environment variable and
// a repository path. This module is pure: text in, quotes and findings out.
// scripts/docs-quotes.test.ts runs it over README.md and docs/.
import { posix } from 'node:path';

export type QuoteKind = 'log line' | 'metric' | 'env var' | 'path';
export const KINDS: readonly QuoteKind[] = ['log line', 'metric', 'env var', 'path'];

export interface Quote {
  kind: QuoteKind;
  /** What is looked for: a line as quoted, a metric or variable name, a path. */
  text: string;
  line: number;
}

interface Span {
  text: string;
  line: number;
  /** The header of the table column the span is in, lower-cased. */
  column?: string;
}

/** Each inline code span outside code blocks, with its line and its table column's header. */
export function codeSpans(markdown: string): Span[] {
  const spans: Span[] = [];
  let fenced = false;
  let header: string[] | undefined;
  markdown.split('\n').forEach((raw, i) => {
    const fence = /^\s*```/.test(raw);
    if (fence) fenced = !fenced;
    if (fenced || fence) return;
    const row = raw.trimStart().startsWith('|');
    const cells = row ? raw.split(/(?<!\\)\|/).slice(1, -1) : [raw];
    if (!row) header = undefined;
    else header ??= cells.map((c) => c.trim().toLowerCase());
    cells.forEach((cell, c) => {
      const column = row ? header?.[c] : undefined;
      for (const m of cell.matchAll(/`([^`]+)`/g))
        spans.push({ text: m[1]!, line: i + 1, ...(column === undefined ? {} : { column }) });
    });
  });
  return spans;
}

const SNAKE = /^([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(\{[^}]*\})?$/;
/** Names only a metric takes: Cascade's prefix, Knative's, or a unit suffix of Prometheus. */
const METRIC_SHAPE = /^(cascade|kn)_|_(total|seconds|bytes)$/;
/** A variable: upper case with an underscore, or `$NAME`. */
const ENV = /^\$?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)$|^\$([A-Z][A-Z0-9]+)$/;
/** A command that sets a variable first: `NAME=value command`. */
const ASSIGNMENT = /^([A-Z][A-Z0-9_]*)=/;
const PATH = /^(?:\.\/)?[\w.-]+(?:\/[\w.-]+)*\/?$/;
/** Commands: what a reader types, not what a program prints. */
const COMMAND =
  /^(npm|npx|node|kubectl|kubectl-cascade|curl|time|bash|sh|go|git|kustomize|promtool|ctr|kn|func|docker|podman|sudo|source|flock|patch|gcc|ko|apt-get|host\.sh)\b/;
/** Where a quoted line shows a value the program fills in: `<...>`, `...`, or a word in capitals such as X, NS or PHASE. */
const PLACEHOLDER = /<[^<>]*>|\.\.\.|…|\b[A-Z][A-Z0-9_]*(?=s?\b)/g;

/** Whether a span reads as a line a program prints: three lower-case words in a row once the placeholders are out. */
export function isLogLine(span: string): boolean {
  if (COMMAND.test(span) || ASSIGNMENT.test(span)) return false;
  return /(?:^|[\s(])[a-z']+ [a-z']+ [a-z']+(?=$|[\s.,:;)?])/.test(span.replace(PLACEHOLDER, '·'));
}

/** The quotes of one span: a span may be a metric, a variable, a path or a line. */
function kindsOf(span: Span, topLevel: ReadonlySet<string>): [QuoteKind, string][] {
  const { text, column } = span;
  const out: [QuoteKind, string][] = [];
  const snake = SNAKE.exec(text);
  if (snake && (METRIC_SHAPE.test(snake[1]!) || snake[2] !== undefined || column === 'metric'))
    out.push(['metric', snake[1]!]);
  const env = ENV.exec(text) ?? ASSIGNMENT.exec(text);
  if (env) out.push(['env var', (env[1] ?? env[2])!]);
  const path = text.replace(/^\.\//, '');
  if (PATH.test(text) && path.includes('/') && topLevel.has(path.split('/')[0]!)) out.push(['path', text]);
  if (isLogLine(text)) out.push(['log line', text]);
  return out;
}

/**
 * The quotes of a page, each once. `topLevel` holds the repository's
 * top-level entries: a path is a span that starts with one of them.
 */
export function quotesOf(markdown: string, topLevel: ReadonlySet<string>): Quote[] {
  const seen = new Set<string>();
  const out: Quote[] = [];
  for (const span of codeSpans(markdown)) {
    for (const [kind, text] of kindsOf(span, topLevel)) {
      if (seen.has(`${kind}:${text}`)) continue;
      seen.add(`${kind}:${text}`);
      out.push({ kind, text, line: span.line });
    }
  }
  return out;
}

/** The literal pieces of a quoted line, cut at its placeholders; a piece of fewer than 4 letters or digits says too little. */
export function fragments(line: string): string[] {
  return line
    .split(PLACEHOLDER)
    .map((f) => f.replace(/^[\s\])}.,:;]+|[\s[({.,:;]+$/g, ''))
    .filter((f) => (f.match(/[A-Za-z0-9]/g) ?? []).length >= 4);
}

/** Where a string piece of the code starts: a quote, or the end of an interpolation. */
const STARTS = ['`', "'", '"', '}'];
/** A value the code fills in: one word, or a list of capitalised names such as the phases. */
const VALUE = /^(?:\S*|[A-Z0-9][\w-]*(?:,? [A-Z0-9][\w-]*)*)$/;
const isWord = (c: string | undefined) => c !== undefined && /[A-Za-z0-9]/.test(c);

/** Tells whether a code text prints a piece of a quoted line. */
export interface Printer {
  prints(piece: string): boolean;
}

/**
 * A Printer of `code`. A piece is printed when the code holds it verbatim.
 * Or the code's `${` follows the piece's start, which ends between words.
 * A value fills the interpolation, and the code prints the rest right after one.
 */
export function printerOf(code: string): Printer {
  const found = new Map<string, boolean>();
  const has = (s: string, atStart: boolean): boolean => {
    const key = `${atStart ? 1 : 0}${s}`;
    let hit = found.get(key);
    if (hit === undefined) {
      hit = atStart ? STARTS.some((q) => code.includes(q + s)) : code.includes(s);
      found.set(key, hit);
    }
    return hit;
  };
  /** Whether a value starts at `cut`, and the code prints what follows it. */
  const valueThenRest = (piece: string, cut: number): boolean => {
    for (let end = cut; end <= piece.length; end++) {
      if (end > cut && end < piece.length && isWord(piece[end])) continue;
      if (!VALUE.test(piece.slice(cut, end))) continue;
      const rest = piece.slice(end);
      if (rest.trim() === '') return cut > 0;
      if (rest.length < piece.length && prints(rest, true)) return true;
    }
    return false;
  };
  const prints = (piece: string, atStart: boolean): boolean => {
    if (has(piece, atStart)) return true;
    for (let cut = 0; cut < piece.length; cut++) {
      const start = piece.slice(0, cut);
      const opens = cut === 0 || (!isWord(piece[cut - 1]) && /[A-Za-z0-9]/.test(start) && has(`${start}\${`, atStart));
      if (opens && valueThenRest(piece, cut)) return true;
    }
    return false;
  };
  return { prints: (piece) => prints(piece, false) };
}

/** Every word-like name in a code text: identifiers, variables and metric names. */
export function namesIn(code: string): Set<string> {
  return new Set(code.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
}

/** The metric names a kube-state-metrics CustomResourceState configuration makes: `<metricNamePrefix>_<name>`. */
export function stateMetricNames(config: unknown): string[] {
  type Resource = { metricNamePrefix?: string; metrics?: { name?: string }[] };
  const resources = (config as { spec?: { resources?: Resource[] } } | undefined)?.spec?.resources ?? [];
  return resources.flatMap((r) => (r.metrics ?? []).map((m) => `${r.metricNamePrefix}_${m.name}`));
}

/** What the check reads: the code's text, the names it holds, and the tree's files and folders. */
export interface Code {
  printer: Printer;
  names: ReadonlySet<string>;
  /** Every file and folder, by its path from the root; folders with and without a trailing slash. */
  tree: ReadonlySet<string>;
}

/** Why the code lacks a quote of page `page`; undefined when it has it. */
export function missing(quote: Quote, page: string, code: Code): string | undefined {
  switch (quote.kind) {
    case 'path': {
      const from = [posix.normalize(quote.text), posix.join(posix.dirname(page), quote.text)];
      return from.some((p) => code.tree.has(p)) ? undefined : 'no such file or folder in the repository';
    }
    case 'log line': {
      const absent = fragments(quote.text).filter((f) => !code.printer.prints(f));
      return absent.length === 0 ? undefined : `no code prints ${absent.map((f) => JSON.stringify(f)).join(', ')}`;
    }
    default:
      return code.names.has(quote.text) ? undefined : `no code names ${quote.text}`;
  }
}

/** One finding, as a failure names it: the page and line, the quote, and what is missing. */
export const finding = (page: string, q: Quote, why: string) => `${page}:${q.line} ${q.kind} \`${q.text}\`: ${why}`;
