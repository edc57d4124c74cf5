// Tables as kubectl prints them: upper-case headers, columns left-aligned and
// separated by three spaces, no trailing blanks. Pure.

/** Visible width of a cell: ANSI colour codes take no room. */
export function visibleWidth(text: string): number {
  return [...text.replaceAll(/\x1b\[[0-9;]*m/g, '')].length;
}

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [headers.map((h) => h.toUpperCase()), ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => visibleWidth(r[i] ?? ''))));
  return all.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visibleWidth(cell) + 3)))
      .join('')
      .trimEnd(),
  );
}
