// K_CE_OVERRIDES, as Knative's SinkBinding injects it beside K_SINK: JSON
// `{"extensions": {"name": "value", ...}}`, each extension added to every
// CloudEvent sent to K_SINK. Pure: parsed once at start-up; a value that is
// not that shape is a configuration error (the process does not start), so a
// binding that was meant to tag events never silently does not.

/** Attributes of CloudEvents 1.0 itself: an override may not replace them (the run-end event's id must stay stable). */
const CORE = new Set(['specversion', 'id', 'source', 'type', 'subject', 'time', 'datacontenttype', 'dataschema', 'data', 'data_base64']);
const NAME = /^[a-z0-9]{1,20}$/;

export type Extensions = Record<string, string>;

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The extensions of K_CE_OVERRIDES (none when unset or empty), or why it is not usable. Other top-level keys are ignored, as Knative does. */
export function parseCeOverrides(raw: string | undefined): { ok: true; extensions: Extensions } | { ok: false; reason: string } {
  if (raw === undefined || raw.trim() === '') return { ok: true, extensions: {} };
  const bad = (why: string) => ({ ok: false as const, reason: `K_CE_OVERRIDES ${why}: expected {"extensions": {"name": "value"}}` });
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return bad('is not JSON');
  }
  if (!isObject(parsed)) return bad('is not a JSON object');
  const ext = parsed.extensions ?? {};
  if (!isObject(ext)) return bad('has "extensions" that is not an object');
  const extensions: Extensions = {};
  for (const [name, value] of Object.entries(ext)) {
    if (!NAME.test(name)) return bad(`names the extension "${name}", not 1-20 lower-case letters or digits`);
    if (CORE.has(name)) return bad(`names "${name}", a CloudEvents attribute, not an extension`);
    if (typeof value !== 'string') return bad(`gives the extension "${name}" a value that is not a string`);
    extensions[name] = value;
  }
  return { ok: true, extensions };
}
