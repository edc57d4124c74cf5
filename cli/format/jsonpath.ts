// `-o jsonpath=TEMPLATE`, the subset of kubectl's JSONPath that scripts use:
// text with `{...}` expressions; paths of `.field`, `['field']`, `[n]`,
// `[a:b]`, `[*]`, `.*`, `..field` and filters `[?(@.path OP value)]`;
// `{range PATH}...{end}`; string literals such as `{"\n"}`.
// Several results of one path are joined by a space, as kubectl joins them.

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'all' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'deep'; name: string }
  | { kind: 'filter'; path: Step[]; op?: string; value?: unknown };

type Node =
  { kind: 'text'; text: string } | { kind: 'path'; steps: Step[] } | { kind: 'range'; steps: Step[]; body: Node[] };

export class JsonPathError extends Error {}

const FIELD = /^[A-Za-z0-9_-]+/;

/** The first step of `s` and how many characters it takes. */
function nextStep(s: string, src: string): [Step, number] {
  if (s.startsWith('..')) {
    const m = FIELD.exec(s.slice(2));
    if (!m) throw new JsonPathError(`unrecognized identifier in ${src}`);
    return [{ kind: 'deep', name: m[0] }, 2 + m[0].length];
  }
  if (s.startsWith('.*')) return [{ kind: 'all' }, 2];
  if (s.startsWith('.')) {
    const m = FIELD.exec(s.slice(1));
    if (!m) throw new JsonPathError(`unrecognized identifier in ${src}`);
    return [{ kind: 'field', name: m[0] }, 1 + m[0].length];
  }
  if (s.startsWith('[')) {
    const close = closingBracket(s);
    return [parseBracket(s.slice(1, close).trim(), src), close + 1];
  }
  throw new JsonPathError(`unrecognized character in ${src} at ${s}`);
}

/** The steps of a path such as `.items[*].metadata.name` (a leading `$` or `@`, or `.` alone, is the current object). */
function parsePath(src: string): Step[] {
  const steps: Step[] = [];
  let s = src.trim().replace(/^[$@]/, '');
  if (s === '.') return steps;
  while (s.length > 0) {
    const [step, taken] = nextStep(s, src);
    steps.push(step);
    s = s.slice(taken);
  }
  return steps;
}

function closingBracket(s: string): number {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) quote = c === quote ? '' : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  throw new JsonPathError(`unclosed [ in ${s}`);
}

const literal = (v: string): unknown =>
  /^(['"]).*\1$/s.test(v) ? v.slice(1, -1) : v === 'true' || v === 'false' ? v === 'true' : Number(v);

function parseBracket(inner: string, src: string): Step {
  if (inner === '*') return { kind: 'all' };
  if (/^(['"]).*\1$/s.test(inner)) return { kind: 'field', name: inner.slice(1, -1) };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const slice = /^(-?\d*):(-?\d*)$/.exec(inner);
  if (slice)
    return {
      kind: 'slice',
      start: slice[1] ? Number(slice[1]) : undefined,
      end: slice[2] ? Number(slice[2]) : undefined,
    };
  const filter = /^\?\((@[^=!<>]*?)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$/s.exec(inner);
  if (filter)
    return {
      kind: 'filter',
      path: parsePath(filter[1]!),
      op: filter[2],
      value: filter[3] === undefined ? undefined : literal(filter[3].trim()),
    };
  throw new JsonPathError(`unrecognized bracket [${inner}] in ${src}`);
}

/** The literal of `{"..."}`, with \n, \t and \" read as in JSON. */
function stringLiteral(expr: string): string | undefined {
  if (!/^".*"$/s.test(expr)) return undefined;
  try {
    return JSON.parse(expr) as string;
  } catch {
    throw new JsonPathError(`invalid string literal ${expr}`);
  }
}

/** The template as nodes; a `{range}` without `{end}`, or an `{end}` without `{range}`, is an error. */
export function parseTemplate(template: string): Node[] {
  const root: Node[] = [];
  const stack: Node[][] = [root];
  const top = () => stack.at(-1)!;
  const re = /\{((?:[^{}"]|"(?:[^"\\]|\\.)*")*)\}/g;
  let last = 0;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    if (m.index > last) top().push({ kind: 'text', text: template.slice(last, m.index) });
    last = m.index + m[0].length;
    const expr = m[1]!.trim();
    const text = stringLiteral(expr);
    if (text !== undefined) top().push({ kind: 'text', text });
    else if (expr === 'end') {
      if (stack.length === 1) throw new JsonPathError('not in range, nothing to end');
      stack.pop();
    } else if (expr.startsWith('range ')) {
      const node: Node = { kind: 'range', steps: parsePath(expr.slice(6)), body: [] };
      top().push(node);
      stack.push(node.body);
    } else top().push({ kind: 'path', steps: parsePath(expr) });
  }
  if (last < template.length) root.push({ kind: 'text', text: template.slice(last) });
  if (/\{/.test(template.replace(re, ''))) throw new JsonPathError('unclosed action: a { needs its }');
  if (stack.length > 1) throw new JsonPathError('unclosed range: a {range} needs its {end}');
  return root;
}

const children = (v: unknown): unknown[] =>
  Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : [];

function field(v: unknown, name: string): unknown[] {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return [];
  const got = (v as Record<string, unknown>)[name];
  return got === undefined ? [] : [got];
}

function deep(v: unknown, name: string): unknown[] {
  return [...field(v, name), ...children(v).flatMap((c) => deep(c, name))];
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return Number(a) < Number(b);
    case '>':
      return Number(a) > Number(b);
    case '<=':
      return Number(a) <= Number(b);
    default:
      return Number(a) >= Number(b);
  }
}

function apply(v: unknown, step: Step): unknown[] {
  switch (step.kind) {
    case 'field':
      return field(v, step.name);
    case 'all':
      return children(v);
    case 'deep':
      return deep(v, step.name);
    case 'index': {
      if (!Array.isArray(v)) return [];
      const got: unknown = v.at(step.index);
      return got === undefined ? [] : [got];
    }
    case 'slice':
      return Array.isArray(v) ? v.slice(step.start, step.end) : [];
    case 'filter':
      return children(v).filter((c) => {
        const found = evaluate(c, step.path);
        return step.op === undefined ? found.length > 0 : found.some((x) => compare(x, step.op!, step.value));
      });
  }
}

function evaluate(v: unknown, steps: Step[]): unknown[] {
  return steps.reduce<unknown[]>((vs, step) => vs.flatMap((x) => apply(x, step)), [v]);
}

const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function render(nodes: Node[], v: unknown): string {
  return nodes
    .map((n) => {
      if (n.kind === 'text') return n.text;
      if (n.kind === 'path') return evaluate(v, n.steps).map(show).join(' ');
      return evaluate(v, n.steps)
        .flatMap((item) => (n.kind === 'range' && Array.isArray(item) ? item : [item]))
        .map((item) => render(n.body, item))
        .join('');
    })
    .join('');
}

/** The template applied to `obj`, as `kubectl -o jsonpath=TEMPLATE` prints it (no newline added). */
export function jsonPath(template: string, obj: unknown): string {
  return render(parseTemplate(template), obj);
}
