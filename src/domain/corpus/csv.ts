/**
 * Comma-separated tables as spreadsheets write them (RFC 4180): a header row, fields in double
 * quotes when they hold a comma, a quote ("" inside) or a line break, CRLF or LF line ends, a
 * UTF-8 byte-order mark ignored. Pure and bounded: at most `maxRows` rows and `maxField`
 * characters a field are read (a table is untrusted input), and what was cut is said.
 */

export interface CsvTable {
  header: string[];
  /** Each data row with its line number in the file (the header is line 1) and its cells. */
  rows: Array<{ line: number; cells: string[] }>;
  /** Problems of the text itself (an unclosed quote, a bound reached), with their line. */
  problems: Array<{ line: number; detail: string }>;
}

export const MAX_CSV_ROWS = 100_000;
export const MAX_CSV_FIELD = 10_000;

export function parseCsv(text: string, maxRows = MAX_CSV_ROWS, maxField = MAX_CSV_FIELD): CsvTable {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: Array<{ line: number; cells: string[] }> = [];
  const problems: CsvTable['problems'] = [];
  let line = 1;
  let startLine = 1;
  let cells: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  let cut = false;
  const push = (ch: string) => {
    if (field.length < maxField) field += ch;
    else cut = true;
  };
  const endField = () => {
    if (cut) problems.push({ line: startLine, detail: `a field is longer than ${maxField} characters; it was cut` });
    cells.push(field.normalize('NFC'));
    field = '';
    cut = false;
  };
  const endRecord = () => {
    endField();
    if (!(cells.length === 1 && cells[0] === '')) records.push({ line: startLine, cells });
    cells = [];
  };
  while (i < t.length) {
    if (records.length > maxRows + 1) break;
    const ch = t[i]!;
    if (quoted) {
      if (ch === '"') {
        if (t[i + 1] === '"') {
          push('"');
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      if (ch === '\n') line++;
      push(ch);
      i++;
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      endField();
      i++;
    } else if (ch === '\r' || ch === '\n') {
      endRecord();
      i += ch === '\r' && t[i + 1] === '\n' ? 2 : 1;
      line++;
      startLine = line;
    } else {
      push(ch);
      i++;
    }
  }
  if (quoted) problems.push({ line: startLine, detail: 'a quoted field is never closed (a missing ")' });
  if (i >= t.length && (field !== '' || cells.length > 0)) endRecord();
  if (records.length > maxRows + 1) {
    problems.push({
      line: records[maxRows + 1]!.line,
      detail: `the table has more than ${maxRows} rows; the rest was not read`,
    });
    records.length = maxRows + 1;
  }
  const [head, ...rows] = records;
  return { header: (head?.cells ?? []).map((h) => h.trim()), rows, problems };
}
