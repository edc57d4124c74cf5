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

export const OUTPUT_FORMATS = ['json', 'yaml', 'wide'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** An object (or a List of them) as -o json / -o yaml print it. */
export function printObject(io: Io, format: 'json' | 'yaml', obj: unknown): void {
  io.out.write(format === 'json' ? `${JSON.stringify(obj, null, 4)}\n` : dump(JSON.parse(JSON.stringify(obj)), { noRefs: true, lineWidth: -1 }));
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
