// Two contradictions a program can catch in the docs and the code comments.
// A file named in a comment or a doc must exist. A measured figure must have
// one home: the pages in FIGURE_HOMES hold them, the others link there.
// This module is pure: text in, findings out. scripts/doc-refs.test.ts runs it
// over the repository.
import { posix } from 'node:path';

/**
 * What names a file: a path or a file name ending in one of the repository's
 * own extensions. Not `.js`: in this TypeScript repository a `.js` name is
 * compiled output, another package's file, or a product (Node.js).
 */
const FILE_MENTION =
  /(?<![\w@/.~$<*{-])(?:\.{1,2}\/)*(?:[\w-]+(?:\.[\w-]+)*\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|mts|mjs|cjs|md|ya?ml|json|sh)(?![\w/-])/g;
/** Addresses, not files of this repository. */
const URL = /\b[a-z][\w+.-]*:\/\/\S+/g;

/**
 * Mentions that name no file of the repository on purpose: what a build or a
 * tool writes, where the code runs, or another project's files.
 */
export const NOT_REPOSITORY_FILES: RegExp[] = [
  // written by `npm run build`, `npm run dist`, the bench, the local stack or semantic-release
  /^(\.\/)?build\//,
  /^(\.\/)?dist\//,
  /^(install|crds)\.yaml$/,
  /^(release|sbom\.cdx)\.json$/,
  /^(\.\/)?bench\/results\//,
  /^(\.\/)?\.cascade\//,
  /(^|\/)node_modules\//,
  /^(function|server)\.cjs$/,
  /^(build-info|pids|cluster)\.json$/,
  /^prometheus\.yml$/,
  /^CHANGELOG\.md$/,
  // another project's files: func's template, knative/specs, a Knative release, an OCI image layout
  /^src\/index\.ts$/,
  /^(data-plane|broker)\.md$/,
  /^(eventing-crds|eventing-core|mt-channel-broker|in-memory-channel)\.yaml$/,
  /^hack\/generate-yamls\.sh$/,
  /^index\.json$/,
  // a user's own files in examples
  /^(\.\/)?(scenario|config|run-requested)\.(json|yaml)$/,
  /^\.\/x\.ts$/,
];

/** Every file a text mentions, once, in order, with the line it is on. */
export function fileMentions(text: string): { name: string; line: number }[] {
  const seen = new Set<string>();
  const found: { name: string; line: number }[] = [];
  text.split('\n').forEach((raw, i) => {
    for (const m of raw.replace(URL, ' ').matchAll(FILE_MENTION)) {
      const name = m[0];
      if (seen.has(name) || NOT_REPOSITORY_FILES.some((r) => r.test(name))) continue;
      seen.add(name);
      found.push({ name, line: i + 1 });
    }
  });
  return found;
}

/**
 * Whether a mention names a file of the repository: from the repository's
 * root, from the mentioning file's folder, or as the tail of a path, as
 * `run/reconcile.ts` names shared/engine/run/reconcile.ts and a bare
 * `lockfile.test.ts` names scripts/lockfile.test.ts. Folders count
 * as files here: `docs/deploy/` is one.
 */
export function resolves(name: string, from: string, files: ReadonlySet<string>): boolean {
  const candidates = [posix.normalize(name), posix.join(posix.dirname(from), name)];
  if (candidates.some((c) => files.has(c))) return true;
  if (name.startsWith('.')) return false;
  for (const f of files) if (f.endsWith(`/${name}`)) return true;
  return false;
}

/**
 * Where measured figures are written, each figure in one of them; everywhere
 * else links there. A page, or a page's section by its heading's anchor.
 */
export const FIGURE_HOMES = [
  // Cascade's figures, with the date, the machine and the command of each
  'bench/README.md',
  // every earlier measurement, dated
  'bench/HISTORY.md',
  // how long each part of the local stack takes to build and start, beside how it is built
  'docs/local-stack.md',
];

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .replace(/^#+\s*/, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A number with a unit of time, size or rate: 121 ms, 2.5 s, 13 min, 527 MiB, 46/s. */
const FIGURE =
  /(?<![\w.-])\d[\d,]*(?:\.\d+)?(?:[–-]\d[\d,]*(?:\.\d+)?)? ?(?:ms|µs|s|min|h|KiB|MiB|GiB|KB|MB|GB|\/s)(?![\w/])/;
/** What says a block was measured: a date, or a word only a measurement uses. */
const MEASURED =
  /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}\b|\b(?:[Mm]easured|median|p50|p90|p99)\b/;

interface Block {
  line: number;
  lines: string[];
  /** The anchor of the heading the block is under; '' before the first. */
  section: string;
}

/** The blocks of a Markdown text: paragraphs, and tables with the paragraph before them; code blocks left out. */
export function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  let current: Block | undefined;
  let fenced = false;
  let section = '';
  const isTable = (l: string) => l.trimStart().startsWith('|');
  markdown.split('\n').forEach((l, i) => {
    const fence = /^\s*```/.test(l);
    if (fence) fenced = !fenced;
    if (!fenced && !fence && /^#{1,6} /.test(l)) section = anchorOf(l);
    if (fenced || fence || l.trim() === '' || /^#{1,6} /.test(l)) {
      if (current) out.push(current);
      current = undefined;
      return;
    }
    current ??= { line: i + 1, lines: [], section };
    current.lines.push(l);
  });
  if (current) out.push(current);
  // a table belongs with the paragraph that introduces it; the blank line between keeps the line numbers
  const merged: Block[] = [];
  for (const b of out) {
    const prev = merged.at(-1);
    const follows = prev && prev.section === b.section && prev.line + prev.lines.length + 1 === b.line;
    if (prev && follows && isTable(b.lines[0]!) && !isTable(prev.lines.at(-1)!)) prev.lines.push('', ...b.lines);
    else merged.push(b);
  }
  return merged;
}

/** A table whose introduction or header gives the unit of its cells: "in ms", "| time (s) |". */
const UNIT_OF_TABLE = /\bin (?:ms|µs|s|min|KiB|MiB|GiB|MB)\b|\((?:ms|µs|s|min|KiB|MiB|GiB|MB)\)/;

/**
 * The lines of a page that carry a measured figure outside its homes: a
 * number with a unit, or any number in a table whose unit is said once, in a
 * block that says it was measured. `page` is the page's path, for FIGURE_HOMES.
 */
export function strayFigures(page: string, markdown: string): { line: number; text: string }[] {
  if (FIGURE_HOMES.includes(page)) return [];
  return blocks(markdown).flatMap((b) => {
    const text = b.lines.join('\n');
    if (FIGURE_HOMES.includes(`${page}#${b.section}`) || !MEASURED.test(text)) return [];
    const unitTable = UNIT_OF_TABLE.test(text);
    return b.lines.flatMap((l, i) => {
      const figure = FIGURE.test(l) || (unitTable && l.trimStart().startsWith('|') && /\d/.test(l));
      return figure ? [{ line: b.line + i, text: l.trim() }] : [];
    });
  });
}
