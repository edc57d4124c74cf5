// Where a command writes, and what it knows of its surroundings: injected so
// that the commands run the same under a test as in a terminal.
import { createRequire } from 'node:module';
import { jsonPath } from './format/jsonpath.ts';
import { colourEnabled, palette, type Palette } from './format/colour.ts';

export interface Out {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Io {
  out: Out;
  err: Out;
  env: Record<string, string | undefined>;
  now: () => number;
}

export const processIo = (): Io => ({ out: process.stdout, err: process.stderr, env: process.env, now: Date.now });

/** Colours for stdout: on a terminal, unless NO_COLOR. */
export const outPalette = (io: Io): Palette => palette(colourEnabled(io.out.isTTY, io.env));

export const OUTPUT_FORMATS = ['json', 'yaml', 'wide', 'name', 'jsonpath=TEMPLATE'] as const;
/** -o's value: a format of OUTPUT_FORMATS, the jsonpath one as `jsonpath=` and its template. */
export type OutputFormat = 'json' | 'yaml' | 'wide' | 'name' | `jsonpath=${string}`;

/** Whether -o prints the object itself (json, yaml, jsonpath) rather than a table or names. */
export const printsObject = (format: OutputFormat | undefined): format is 'json' | 'yaml' | `jsonpath=${string}` =>
  format === 'json' || format === 'yaml' || Boolean(format?.startsWith('jsonpath='));

/** A copy without metadata.managedFields, which kubectl leaves out of -o json and -o yaml too (also in a List's items). */
export function withoutManagedFields(obj: unknown): unknown {
  return JSON.parse(JSON.stringify(obj, (key, value: unknown) => (key === 'managedFields' ? undefined : value)));
}

/** An object (or a List of them) as -o json, -o yaml or -o jsonpath=TEMPLATE print it. */
export function printObject(io: Io, format: 'json' | 'yaml' | `jsonpath=${string}`, obj: unknown): void {
  const plain = withoutManagedFields(obj);
  if (format === 'json') io.out.write(`${JSON.stringify(plain, null, 4)}\n`);
  else if (format === 'yaml') {
    // js-yaml is loaded by -o yaml alone: every other command is quicker without it.
    const { dump } = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');
    io.out.write(dump(plain, { noRefs: true, lineWidth: -1 }));
  } else io.out.write(jsonPath(format.slice('jsonpath='.length), plain));
}

/** -o name: `cascaderun.cascade.cascade.net/NAME`, as kubectl names a custom resource. */
export function printNames(io: Io, group: string, names: readonly (string | undefined)[]): void {
  printLines(
    io,
    names.map((n) => `cascaderun.${group}/${n ?? ''}`),
  );
}

export function printLines(io: Io, lines: readonly string[]): void {
  if (lines.length > 0) io.out.write(`${lines.join('\n')}\n`);
}

/** A CLI error: its message goes to stderr and the process exits with `code`. */
export class CliError extends Error {
  readonly code: number;
  constructor(message: string, code = 1) {
    super(message);
    this.code = code;
  }
}
