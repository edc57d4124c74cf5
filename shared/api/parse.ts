import * as v from 'valibot';

/** Outcome of validating untrusted data at an edge: never throws. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

type AnySchema = v.GenericSchema<unknown, unknown>;

/** `spec.modules[0].template` style path of an issue; `(root)` when empty. */
export function issuePath(issue: v.GenericIssue): string {
  let out = '';
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/** One line naming the path of the issue and what was wrong there. */
export function describeIssue(issue: v.GenericIssue): string {
  const missing = issue.input === undefined && (issue.path?.length ?? 0) > 0;
  const what = missing ? 'required field is missing' : issue.message;
  return `${issuePath(issue)}: ${what}`.replaceAll(/\s+/g, ' ');
}

/** `v.safeParse` folded into a {@link ParseResult} reporting the first issue. */
export function parseWith<S extends AnySchema>(schema: S, input: unknown): ParseResult<v.InferOutput<S>> {
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const [first] = result.issues;
  return { ok: false, reason: first === undefined ? 'invalid input' : describeIssue(first) };
}
