// `logs`: each line of a module's pod log, prefixed with its module. Pure.
import type { Palette } from '../format/colour.ts';

export function prefixLines(module: string, text: string, p: Palette): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => `${p.dim(`[${module}]`)} ${line}`);
}

/** A line carried across chunks of a followed stream: complete lines out, the rest kept. */
export function splitChunk(carry: string, chunk: string): { lines: string[]; carry: string } {
  const parts = (carry + chunk).split('\n');
  const rest = parts.pop() ?? '';
  return { lines: parts, carry: rest };
}
