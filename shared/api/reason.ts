// How a reason (a reply's `error`, an outcome's reason) carries what a caller
// sent: one line, bounded in length. Values are quoted JSON-style and cut, so
// a value with a newline, a quote or 10 000 characters stays one readable
// token; `oneLine` is the guard every reply goes through, whatever built the
// reason (valibot, the Kubernetes API, fastify).

/** At most this many characters of a value are shown in a reason. */
export const VALUE_MAX = 64;
/** A reason as a reply carries it is at most this many characters. */
export const REASON_MAX = 300;
/**
 * ...and at most this many bytes once JSON-encoded in UTF-8, so that an
 * `{"error": ...}` body stays far below the 768 bytes whose base64 fills
 * Knative's knativeerrordata (a larger body makes its dispatcher panic).
 */
export const REASON_MAX_BYTES = 400;

const ELLIPSIS = '…';
// C0 and C1 controls (DEL included), the Unicode line and paragraph
// separators, and a surrogate that is not half of a pair (with the `u` flag a
// pair is one code point, so the surrogate range matches only lone halves).
const BREAKING = /[\p{Cc}\u2028\u2029\uD800-\uDFFF]/gu;

function escape(ch: string): string {
  const json = JSON.stringify(ch).slice(1, -1);
  return json.length > 1 ? json : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** The first `max` UTF-16 units of `text`, never splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return text.slice(0, end);
}

/**
 * A value as a reason shows it: JSON-quoted (quotes, backslashes and every
 * control or line-breaking character escaped) and cut to `max` characters, an
 * ellipsis after the closing quote saying that it was cut.
 */
export function quote(value: unknown, max = VALUE_MAX): string {
  const text = typeof value === 'string' ? value : String(value);
  const shown = cut(text, max);
  return `${JSON.stringify(shown).replace(BREAKING, escape)}${shown.length < text.length ? ELLIPSIS : ''}`;
}

/** The bytes `piece` takes inside a JSON string in UTF-8: `"` and `\\` are escaped, the rest as is. */
function jsonBytes(piece: string): number {
  let n = 0;
  for (const ch of piece) n += ch === '"' || ch === '\\' ? 2 : Buffer.byteLength(ch);
  return n;
}

const ELLIPSIS_BYTES = Buffer.byteLength(ELLIPSIS);

/**
 * A reason made safe for a reply: every control or line-breaking character
 * written as its JSON escape, cut to at most `max` characters and
 * REASON_MAX_BYTES bytes as a JSON string (an ellipsis last when cut). Reads
 * only as much of `reason` as it keeps.
 */
export function oneLine(reason: string, max = REASON_MAX): string {
  let out = '';
  let bytes = 0;
  let fits = 0; // length of `out` at the last piece that leaves room for the ellipsis
  for (const ch of reason) {
    const piece = ch.replace(BREAKING, escape);
    const cost = jsonBytes(piece);
    if (out.length + piece.length > max || bytes + cost > REASON_MAX_BYTES) return `${out.slice(0, fits)}${ELLIPSIS}`;
    out += piece;
    bytes += cost;
    if (out.length <= max - 1 && bytes <= REASON_MAX_BYTES - ELLIPSIS_BYTES) fits = out.length;
  }
  return out;
}
