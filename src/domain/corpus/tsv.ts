/** Tab-separated tables as the OpenScore corpora keep them (header row, no quoting). Pure. */

export const MAX_TSV_ROWS = 100_000;

/** Rows as objects keyed by the header; at most MAX_TSV_ROWS rows are read (a bound on untrusted input). */
export function parseTsv(text: string, maxRows = MAX_TSV_ROWS): Record<string, string>[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = (lines[0] ?? '').split('\t').map((h) => h.trim());
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(1, maxRows + 1)) {
    if (line.trim() === '') continue;
    const cells = line.split('\t');
    const row: Record<string, string> = {};
    header.forEach((h, i) => (row[h] = (cells[i] ?? '').normalize('NFC').trim()));
    rows.push(row);
  }
  return rows;
}
