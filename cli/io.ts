// Where a command writes, and what it knows of its surroundings: injected so
// that the commands run the same under a test as in a terminal.
import { dump } from 'js-yaml';
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

export const OUTPUT_FORMATS = ['json', 'yaml', 'wide', 'name'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A copy without metadata.managedFields, which kubectl leaves out of -o json and -o yaml too (also in a List's items). */
export function withoutManagedFields(obj: unknown): unknown {
  return JSON.parse(JSON.stringify(obj, (key, value: unknown) => (key === 'managedFields' ? undefined : value)));
}

/** An object (or a List of them) as -o json / -o yaml print it. */
export function printObject(io: Io, format: 'json' | 'yaml', obj: unknown): void {
  const plain = withoutManagedFields(obj);
  io.out.write(
    format === 'json' ? `${JSON.stringify(plain, null, 4)}\n` : dump(plain, { noRefs: true, lineWidth: -1 }),
  );
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
