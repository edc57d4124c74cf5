// A reader of the plain block YAML that kubectl, kind and the local stack
// write as kubeconfigs: maps, lists, and one-line scalars. It exists for
// speed: js-yaml's load and first parse cost a short command about 40 ms.
// Anything past that subset makes it answer undefined, and the caller reads
// the text with js-yaml: anchors, tags, block scalars, flow collections with
// content, escapes in double quotes, tabs, several documents, comments after
// a value. Pure.

interface Line {
  indent: number;
  text: string;
}

/** Thrown inside the reader when the text leaves the subset; never escapes it. */
class NotPlain extends Error {}

const KEY = /^([A-Za-z0-9_.\/-]+|"[^"\\]*"|'[^']*'):(?: (.*))?$/;
const NUMBER = /^[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

function lines(text: string): Line[] {
  const out: Line[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const body = raw.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    if (raw.includes('\t') || body === '---' || body === '...' || body.startsWith('%')) throw new NotPlain();
    out.push({ indent: raw.length - body.length, text: body.trimEnd() });
  }
  return out;
}

function quoted(text: string): string {
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new NotPlain();
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (!/^"[^"\\]*"$/.test(text)) throw new NotPlain();
  return text.slice(1, -1);
}

function scalar(text: string): unknown {
  if (text.startsWith("'") || text.startsWith('"')) return quoted(text);
  if (text === '{}') return {};
  if (text === '[]') return [];
  return plain(text);
}

function plain(text: string): unknown {
  // Indicators that start something else than a plain scalar, and comments after a value.
  if (/^(?:[[\]{}&*!|>%@`,?#]|-(?: |$))/.test(text) || text.includes(' #') || text.includes(': ')) throw new NotPlain();
  if (text === '' || text === '~' || /^(?:null|Null|NULL)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (NUMBER.test(text)) return Number(text);
  // Octal, hexadecimal, .inf, dates and the like: js-yaml's types decide them.
  if (/^[-+]?[.0-9]/.test(text)) throw new NotPlain();
  return text;
}

const unquote = (key: string) => (/^["']/.test(key) ? key.slice(1, -1) : key);

class Reader {
  private i = 0;
  private readonly ls: Line[];

  constructor(ls: Line[]) {
    this.ls = ls;
  }

  done(): boolean {
    return this.i >= this.ls.length;
  }

  /** The node whose lines start at the current one, all at `indent`. */
  node(indent: number): unknown {
    const first = this.ls[this.i]!;
    if (first.indent !== indent) throw new NotPlain();
    return first.text === '-' || first.text.startsWith('- ') ? this.list(indent) : this.map(indent);
  }

  private list(indent: number): unknown[] {
    const out: unknown[] = [];
    for (
      let l = this.ls[this.i];
      l?.indent === indent && (l.text === '-' || l.text.startsWith('- '));
      l = this.ls[this.i]
    ) {
      const rest = l.text.slice(2);
      if (KEY.test(rest)) {
        // "- key: value": a map whose first line is the item's; its keys line up after "- ".
        this.ls[this.i] = { indent: indent + 2, text: rest };
        out.push(this.map(indent + 2));
      } else {
        this.i++;
        out.push(scalar(rest));
      }
    }
    return out;
  }

  private map(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let l = this.ls[this.i]; l?.indent === indent && !l.text.startsWith('- '); l = this.ls[this.i]) {
      const m = KEY.exec(l.text);
      if (!m) throw new NotPlain();
      const key = unquote(m[1]!);
      if (key in out) throw new NotPlain();
      this.i++;
      out[key] = m[2] === undefined || m[2] === '' ? this.nested(indent) : scalar(m[2]);
    }
    return out;
  }

  /** The value of a key with nothing after its colon: the deeper lines, a list at the key's own indent, or null. */
  private nested(indent: number): unknown {
    const next = this.ls[this.i];
    if (next && next.indent > indent) return this.node(next.indent);
    if (next?.indent === indent && (next.text === '-' || next.text.startsWith('- '))) return this.list(indent);
    return null;
  }
}

/** The document `text` holds, or undefined when it leaves the plain block subset. */
export function parseBlockYaml(text: string): unknown {
  try {
    const ls = lines(text);
    if (ls.length === 0) return null;
    const r = new Reader(ls);
    const doc = r.node(ls[0]!.indent);
    return r.done() ? doc : undefined;
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}
