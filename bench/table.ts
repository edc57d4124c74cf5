// A plain text table for the terminal: a title row per section, figures
// right-aligned, numbers rounded to a sensible precision. Pure.

export type Cell = string | number | undefined | null;

export interface Section {
  title: string;
  head: string[];
  rows: Cell[][];
}

/** Numbers with up to 3 significant decimals: 1234 → "1234", 12.345 → "12.3", 0.01234 → "0.0123". */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100 || Number.isInteger(value)) return String(Math.round(value));
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(3).replace(/0+$/, '').replace(/\.$/, '');
}

export function formatCell(cell: Cell): string {
  if (cell === undefined || cell === null) return '–';
  return typeof cell === 'number' ? formatNumber(cell) : cell;
}

/** One section: title, header, a rule, rows; the first column left-aligned, the others right-aligned. */
export function formatSection(section: Section): string {
  const cells = [section.head, ...section.rows.map((r) => r.map(formatCell))];
  const columns = Math.max(...cells.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) =>
    widths
      .map((w, c) => (c === 0 ? (r[c] ?? '').padEnd(w) : (r[c] ?? '').padStart(w)))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [`== ${section.title}`, line(head!), rule, ...body.map(line)].join('\n');
}

export function formatTable(sections: readonly Section[]): string {
  return sections.map(formatSection).join('\n\n');
}
