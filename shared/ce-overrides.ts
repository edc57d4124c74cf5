// K_CE_OVERRIDES, as Knative's SinkBinding injects it beside K_SINK: JSON
// `{"extensions": {"name": "value", ...}}`, each extension added to every
// CloudEvent sent to K_SINK. Pure: parsed once at start-up.
//
// Cascade takes every binding Knative's webhook admits, so a pod never
// crash-loops on a SinkBinding the cluster accepted:
// | name Knative admits             | what Cascade does                                     |
// |---------------------------------|-------------------------------------------------------|
// | 1-20 lower-case letters, digits | sends it as it is                                     |
// | upper-case letters              | lower-cases it, as the CloudEvents SDKs do; warns     |
// | longer than 20 characters       | sends it: the spec says SHOULD NOT, not MUST NOT; warns |
// | a CloudEvents attribute (`id`)  | leaves it out, as the Go SDK refuses it; warns        |
// | two names equal once lower-cased| keeps the first; warns                                |
// Text that is not that JSON shape is a configuration error, as in Knative's
// own adapters: SinkBinding never writes it, only a hand-set variable can.

/** Attributes of CloudEvents 1.0 itself: an override may not replace them (the run-end event's id must stay stable). */
const CORE = new Set([
  'specversion',
  'id',
  'source',
  'type',
  'subject',
  'time',
  'datacontenttype',
  'dataschema',
  'data',
  'data_base64',
]);
/** What Knative's webhook admits (knative.dev/pkg apis/duck/v1 validateExtensionName): ASCII letters and digits. */
const ADMITTED = /^[A-Za-z0-9]+$/;
/** The CloudEvents spec's advice on length. */
const SPEC_LENGTH = 20;

export type Extensions = Record<string, string>;

export type CeOverrides = { ok: true; extensions: Extensions; warnings: string[] } | { ok: false; reason: string };

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** One admitted name and string value: where it goes in `extensions`, and why it changed or was left out. */
function take(extensions: Extensions, given: string, value: string): string[] {
  const name = given.toLowerCase();
  if (CORE.has(name)) return [`"${given}" is a CloudEvents attribute, not an extension: left out`];
  if (name in extensions) return [`"${given}" is "${name}" once lower-cased, given already: left out`];
  extensions[name] = value;
  const warnings: string[] = [];
  if (name !== given) warnings.push(`the extension "${given}" is sent as "${name}": CloudEvents names are lower-case`);
  if (name.length > SPEC_LENGTH)
    warnings.push(
      `the extension "${name}" is longer than the ${SPEC_LENGTH} characters CloudEvents advises: some receivers may drop it`,
    );
  return warnings;
}

/** The extensions of K_CE_OVERRIDES (none when unset or empty) with what was changed or left out, or why it is not usable. Other top-level keys are ignored, as Knative does. */
export function parseCeOverrides(raw: string | undefined): CeOverrides {
  if (raw === undefined || raw.trim() === '') return { ok: true, extensions: {}, warnings: [] };
  const bad = (why: string) => ({
    ok: false as const,
    reason: `K_CE_OVERRIDES ${why}: expected {"extensions": {"name": "value"}}`,
  });
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
  const warnings: string[] = [];
  for (const [given, value] of Object.entries(ext)) {
    if (!ADMITTED.test(given)) return bad(`names the extension "${given}", not ASCII letters and digits`);
    if (typeof value !== 'string') return bad(`gives the extension "${given}" a value that is not a string`);
    warnings.push(...take(extensions, given, value).map((why) => `K_CE_OVERRIDES: ${why}`));
  }
  return { ok: true, extensions, warnings };
}
