/**
 * A plain folder of scores as an import adapter (docs/imports.md, "A plain folder of scores"):
 * score files (`.musicxml`, `.xml`, `.mxl`, any depth) and an optional `works.csv` with one row
 * per file. Pure: the importer reads the files and the table and hands them here; what comes out
 * goes through the one planning step every adapter shares (src/domain/corpus/plan.ts).
 *
 * Facts come from the row where it gives them, else from the file's own header (`work-title`,
 * `movement-title`, `creator`, `rights`), and the item says which came from the file, so the
 * editor knows what no table vouched for. A row that names an unknown column, a missing file, a
 * bad year (or any other value that cannot be read) is refused with its row and column named,
 * and nothing of it is submitted; the other rows go in. Files of one work (the same `work` value,
 * or, without rows, files of one folder with the same work title and composer that each name a
 * movement) become one work with its movements in order.
 */
import { catalogNumbersOfList, parseCatalogNumbers, type ParsedCatalogNumber } from '../catalog-numbers.ts';
import { slugify, sortNameOf } from '../review/proposal.ts';
import { fold } from '../text.ts';
import type { CsvTable } from './csv.ts';
import { movementNumber } from './musicxml-facts.ts';
import type { ImportFile, WorkFacts, WorkScore } from './plan.ts';
import { createHash } from 'node:crypto';

/** The columns of works.csv, in the documented order; every one but `file` may be left out. */
export const WORKS_CSV_COLUMNS = [
  'file',
  'title',
  'originalTitle',
  'composer',
  'composerBorn',
  'composerDied',
  'composerWikidata',
  'lyricist',
  'lyricistBorn',
  'lyricistDied',
  'firstPublished',
  'catalogNumber',
  'work',
  'movement',
  'movementTitle',
  'genre',
  'instruments',
  'license',
  'attribution',
  'sourceUrl',
] as const;
export type WorksCsvColumn = (typeof WORKS_CSV_COLUMNS)[number];

/** A refused row (or the header): its row number as a spreadsheet shows it (the header is row 1), the column, why. */
export interface RowError {
  row: number;
  column: string;
  detail: string;
}

/** An instrument of the published vocabulary (instruments.json), to read names and aliases as slugs. */
export interface InstrumentTerm {
  slug: string;
  name: string;
  aliases?: string[];
}

export interface FolderInput {
  batch: { id: string; title: string };
  /** Every score file of the folder, read. */
  files: ImportFile[];
  /** works.csv, parsed; null when the folder has none. */
  table: CsvTable | null;
  /** Where the folder's files come from (--source-url or the folder's SOURCE note), for rows without sourceUrl. */
  sourceUrl: string | null;
  /** The published instruments, to read instrument names as slugs; empty: names are sent as written. */
  instruments: InstrumentTerm[];
  /** The year "now" for checking years (a death year in the future is a mistake). */
  currentYear: number;
}

export type FolderWork = WorkFacts | { itemKey: string; skip: string; title: string; composer: string };

export interface FolderPlan {
  works: FolderWork[];
  /** Rows refused (and problems of the table itself), each with its row and column. */
  errors: RowError[];
}

type Row = Partial<Record<WorksCsvColumn, string>> & { row: number; file: string };

const LIFE_DATE = /^([0-9]{4})(?:-([0-9]{2})-([0-9]{2}))?$/;

/** "./songs\\a.xml" -> "songs/a.xml" (NFC). */
function normalizePath(p: string): string {
  return p
    .normalize('NFC')
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '');
}

/** The rows of works.csv, each checked; a refused row is an error, never a row. */
function readRows(table: CsvTable, known: Set<string>, currentYear: number): { rows: Row[]; errors: RowError[] } {
  const errors: RowError[] = table.problems.map((p) => ({ row: p.line, column: '', detail: p.detail }));
  const columns = new Map<string, number>();
  const unknown: Array<{ name: string; index: number }> = [];
  table.header.forEach((name, index) => {
    if ((WORKS_CSV_COLUMNS as readonly string[]).includes(name)) {
      if (columns.has(name))
        errors.push({ row: 1, column: name, detail: 'is named twice in the header; the second is ignored' });
      else columns.set(name, index);
    } else unknown.push({ name, index });
  });
  if (!columns.has('file')) {
    errors.push({ row: 1, column: 'file', detail: 'is missing from the header: every row names its score file in it' });
    return { rows: [], errors };
  }
  const rows: Row[] = [];
  const seenFiles = new Map<string, number>();
  table.rows.forEach((record, i) => {
    const rowNumber = i + 2;
    const rowErrors: RowError[] = [];
    const bad = (column: string, detail: string) => rowErrors.push({ row: rowNumber, column, detail });
    for (const u of unknown)
      if ((record.cells[u.index] ?? '').trim() !== '')
        bad(
          u.name || `(column ${u.index + 1})`,
          `is not a column of works.csv (the columns are ${WORKS_CSV_COLUMNS.join(', ')})`,
        );
    if (record.cells.length > table.header.length && record.cells.slice(table.header.length).some((c) => c.trim()))
      bad(`(column ${table.header.length + 1})`, 'holds a value beyond the header’s columns');
    const get = (c: WorksCsvColumn) => {
      const at = columns.get(c);
      const v = at === undefined ? '' : (record.cells[at] ?? '').trim();
      return v === '' ? undefined : v;
    };
    const row: Row = { row: rowNumber, file: normalizePath(get('file') ?? '') };
    for (const c of WORKS_CSV_COLUMNS) if (c !== 'file' && get(c) !== undefined) row[c] = get(c);
    if (!row.file) bad('file', 'is empty: name the score file of this row');
    else if (!known.has(row.file))
      bad('file', `names "${row.file}", which is no score file (.musicxml, .xml, .mxl) in the folder`);
    else if (seenFiles.has(row.file))
      bad('file', `names "${row.file}", which row ${seenFiles.get(row.file)} names too`);
    for (const c of ['composerBorn', 'composerDied', 'lyricistBorn', 'lyricistDied'] as const) {
      const v = row[c];
      if (v === undefined || v.toLowerCase() === 'unknown') continue;
      const m = LIFE_DATE.exec(v);
      if (!m || Number(m[1]) > currentYear || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 12)))
        bad(c, `"${v}" is not a year (YYYY or YYYY-MM-DD, at most ${currentYear}, or "unknown")`);
    }
    for (const who of ['composer', 'lyricist'] as const) {
      const born = LIFE_DATE.exec(row[`${who}Born`] ?? '')?.[1];
      const died = LIFE_DATE.exec(row[`${who}Died`] ?? '')?.[1];
      if (born && died && Number(died) < Number(born))
        bad(`${who}Died`, `"${row[`${who}Died`]}" is before the birth year ${born}`);
    }
    const pub = row.firstPublished;
    if (pub !== undefined && !/^(unknown|unpublished)$/i.test(pub)) {
      const m = /^[0-9]{4}$/.exec(pub);
      if (!m || Number(pub) > currentYear)
        bad('firstPublished', `"${pub}" is not a year (YYYY, at most ${currentYear}, "unpublished" or "unknown")`);
    }
    if (row.composerWikidata !== undefined) {
      const q = /^(?:https?:\/\/(?:www\.)?wikidata\.org\/(?:wiki|entity)\/)?(Q[1-9][0-9]{0,11})$/.exec(
        row.composerWikidata,
      )?.[1];
      if (!q) bad('composerWikidata', `"${row.composerWikidata}" is not a Wikidata item (Q followed by digits)`);
      else row.composerWikidata = q;
    }
    if (row.sourceUrl !== undefined && httpsUrl(row.sourceUrl) === null)
      bad('sourceUrl', `"${row.sourceUrl.slice(0, 100)}" is not an HTTPS address`);
    if (row.movement !== undefined) {
      if (movementNumber(row.movement) === null)
        bad('movement', `"${row.movement}" is not a movement number (1, 2 ... or I, II ...)`);
      else if (row.work === undefined) bad('movement', 'needs a work value naming the work the movement belongs to');
    }
    for (const [c, max] of [
      ['title', 200],
      ['originalTitle', 200],
      ['composer', 160],
      ['lyricist', 160],
      ['movementTitle', 200],
      ['genre', 80],
      ['license', 160],
      ['attribution', 500],
      ['work', 200],
    ] as const)
      if ((row[c]?.length ?? 0) > max) bad(c, `is longer than ${max} characters`);
    if (rowErrors.length > 0) errors.push(...rowErrors);
    else {
      rows.push(row);
      seenFiles.set(row.file, rowNumber);
    }
  });
  return { rows, errors };
}

function httpsUrl(v: string | null | undefined): string | null {
  if (!v || !/^https:\/\/[^\s]+$/.test(v)) return null;
  try {
    return new URL(v).href;
  } catch {
    return null;
  }
}

/** Slugs of the published instruments by every name they are known by (folded), and "Violin I" read as "violin". */
function instrumentReader(terms: InstrumentTerm[]): (name: string) => string | null {
  const byName = new Map<string, string>();
  for (const t of terms) for (const n of [t.slug, t.name, ...(t.aliases ?? [])]) byName.set(fold(n), t.slug);
  return (name) => {
    const f = fold(name);
    return byName.get(f) ?? byName.get(f.replace(/\s+([ivx]+|[0-9]+)\.?$/, '')) ?? null;
  };
}

/** Rights of a file as its `<rights>` line or the license column says them. */
function rightsOf(license: string | undefined, rightsLine: string | null) {
  const text = license ?? rightsLine ?? '';
  if (/\b(cc0|cc-zero|public[ -]domain|pdm)\b/i.test(text))
    return {
      editionStatus: 'public-domain' as const,
      fileStatus: 'public-domain',
      license: license ?? (/cc0/i.test(text) ? 'CC0-1.0' : null),
    };
  if (license) return { editionStatus: 'licensed' as const, fileStatus: 'licensed', license };
  return { editionStatus: 'unknown' as const, fileStatus: 'unknown', license: null };
}

const ROMAN = ['', 'I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII'];
const romanOf = (n: number) => ROMAN[n] ?? String(n);

interface Unit {
  itemKey: string;
  /** The work's rows (several: its movements), or none when the facts come from the files alone. */
  rows: Row[];
  files: ImportFile[];
  /** The work's name in works.csv, when several rows share it. */
  work: string | null;
}

/** A stable item key from a name: its slug (at most 100 characters), with a digest when two would clash or it was cut. */
function itemKeys(names: string[]): string[] {
  const base = names.map((n) => slugify(n).slice(0, 100) || 'score');
  const count = new Map<string, number>();
  for (const b of base) count.set(b, (count.get(b) ?? 0) + 1);
  return base.map((b, i) =>
    (count.get(b) ?? 0) > 1 || slugify(names[i]!).length > 100
      ? `${b.slice(0, 90)}-${createHash('sha256').update(names[i]!).digest('hex').slice(0, 8)}`
      : b,
  );
}

/** The works of a folder: rows grouped by `work`, files without rows grouped by their own movement headers. */
function unitsOf(files: ImportFile[], rows: Row[], refusedFiles: Set<string>): Unit[] {
  const byPath = new Map(files.map((f) => [f.relPath, f]));
  const units: Array<Omit<Unit, 'itemKey'> & { name: string }> = [];
  const works = new Map<string, Row[]>();
  const named = new Set(rows.map((r) => r.file));
  for (const r of rows) {
    if (r.work !== undefined) works.set(fold(r.work), [...(works.get(fold(r.work)) ?? []), r]);
    else units.push({ name: r.file.replace(/\.[^./]+$/, ''), rows: [r], files: [byPath.get(r.file)!], work: null });
  }
  for (const group of works.values())
    units.push({
      name: `work ${group[0]!.work}`,
      rows: group,
      files: group.map((r) => byPath.get(r.file)!),
      work: group[0]!.work!,
    });
  // Files no row names (and no refused row named): one work each, or the movements of one work
  // when files of one folder share a work title and composer and each names its own movement.
  const loose = files.filter((f) => !named.has(f.relPath) && !refusedFiles.has(f.relPath));
  const sets = new Map<string, ImportFile[]>();
  for (const f of loose) {
    const dir = f.relPath.includes('/') ? f.relPath.slice(0, f.relPath.lastIndexOf('/')) : '';
    const key = `${dir}|${fold(f.facts.workTitle ?? '')}|${fold(f.facts.composer ?? '')}`;
    if (f.facts.workTitle && movementNumber(f.facts.movementNumber) !== null)
      sets.set(key, [...(sets.get(key) ?? []), f]);
  }
  const grouped = new Set<string>();
  for (const members of sets.values()) {
    const numbers = new Set(members.map((f) => movementNumber(f.facts.movementNumber)));
    if (members.length < 2 || numbers.size !== members.length) continue;
    for (const f of members) grouped.add(f.relPath);
    const first = members[0]!;
    const dir = first.relPath.includes('/') ? first.relPath.slice(0, first.relPath.lastIndexOf('/')) : '';
    units.push({
      name: `${dir} ${first.facts.workTitle}`.trim(),
      rows: [],
      files: members,
      work: first.facts.workTitle,
    });
  }
  for (const f of loose)
    if (!grouped.has(f.relPath))
      units.push({ name: f.relPath.replace(/\.[^./]+$/, ''), rows: [], files: [f], work: null });
  units.sort((a, b) =>
    a.files[0]!.relPath < b.files[0]!.relPath ? -1 : a.files[0]!.relPath > b.files[0]!.relPath ? 1 : 0,
  );
  const keys = itemKeys(units.map((u) => u.name));
  return units.map((u, i) => ({ itemKey: keys[i]!, rows: u.rows, files: u.files, work: u.work }));
}

/** A work-level value of a work's rows: the first row's that gives it; a later row giving another is an error. */
function agreed(unit: Unit, column: WorksCsvColumn, errors: RowError[], refused: Set<number>): string | undefined {
  let value: string | undefined;
  let from = 0;
  for (const r of unit.rows) {
    const v = r[column];
    if (v === undefined) continue;
    if (value === undefined) {
      value = v;
      from = r.row;
    } else if (fold(v) !== fold(value) && !refused.has(r.row)) {
      errors.push({
        row: r.row,
        column,
        detail: `"${v.slice(0, 80)}" differs from row ${from} of the same work ("${value.slice(0, 80)}")`,
      });
      refused.add(r.row);
    }
  }
  return value;
}

/** The works of a plain folder, each with its facts or why it cannot be planned, and the refused rows. */
export function folderWorks(input: FolderInput): FolderPlan {
  const known = new Set(input.files.map((f) => f.relPath));
  const { rows, errors } = input.table ? readRows(input.table, known, input.currentYear) : { rows: [], errors: [] };
  // A file named by a refused row is not imported from its own facts either: nothing of the row goes in.
  const refusedFiles = new Set<string>();
  if (input.table) {
    const fileColumn = input.table.header.indexOf('file');
    const refusedRows = new Set(errors.map((e) => e.row));
    input.table.rows.forEach((r, i) => {
      if (refusedRows.has(i + 2) && fileColumn >= 0) refusedFiles.add(normalizePath(r.cells[fileColumn] ?? ''));
    });
  }
  const instrument = instrumentReader(input.instruments);
  const units = unitsOf(input.files, rows, refusedFiles);
  const refused = new Set<number>();
  const planned = units.map((unit) => ({ unit, facts: unitFacts(unit, input, errors, refused, instrument) }));
  // Rows refused while a work was put together (movements that disagree) leave their work.
  const works: FolderWork[] = planned.map(({ unit, facts }) =>
    unit.rows.some((r) => refused.has(r.row))
      ? unitFacts(
          {
            ...unit,
            rows: unit.rows.filter((r) => !refused.has(r.row)),
            files: unit.files.filter((f) => !unit.rows.some((r) => refused.has(r.row) && r.file === f.relPath)),
          },
          input,
          [],
          new Set(),
          instrument,
        )
      : facts,
  );
  // Slugs: composer and title, plus the item key when the folder holds that pair twice.
  const pairs = new Map<string, number>();
  for (const w of works)
    if (!('skip' in w))
      pairs.set(
        `${fold(w.composer.name)}|${fold(w.title)}`,
        (pairs.get(`${fold(w.composer.name)}|${fold(w.title)}`) ?? 0) + 1,
      );
  for (const w of works)
    if (!('skip' in w) && (pairs.get(`${fold(w.composer.name)}|${fold(w.title)}`) ?? 0) > 1)
      w.slug = slugify(`${w.composer.name} ${w.title} ${w.itemKey}`);
  return { works: works.filter((w) => !('skip' in w) || w.skip !== ''), errors: errors.sort((a, b) => a.row - b.row) };
}

function unitFacts(
  unit: Unit,
  input: FolderInput,
  errors: RowError[],
  refused: Set<number>,
  instrument: (name: string) => string | null,
): FolderWork {
  if (unit.files.length === 0) return { itemKey: unit.itemKey, skip: '', title: '', composer: '' };
  const first = unit.files[0]!;
  const fromFile: string[] = [];
  const v = (c: WorksCsvColumn) => agreed(unit, c, errors, refused);

  // Movements: several files of one work, numbered by the rows (else the files' own numbers, else their order).
  const several = unit.files.length > 1;
  const numbered = unit.files.map((file, i) => {
    const row = unit.rows.find((r) => r.file === file.relPath);
    const number = movementNumber(row?.movement) ?? movementNumber(file.facts.movementNumber);
    return { file, row, number, order: i };
  });
  if (several) {
    const given = numbered.filter((m) => m.number !== null);
    if (given.length > 0 && given.length < numbered.length)
      for (const m of numbered)
        if (m.number === null && m.row && !refused.has(m.row.row)) {
          errors.push({
            row: m.row.row,
            column: 'movement',
            detail: `is empty, but other rows of work "${unit.work}" number their movements`,
          });
          refused.add(m.row.row);
        }
    const seen = new Map<number, number>();
    for (const m of numbered) {
      if (m.number === null) continue;
      const other = seen.get(m.number);
      if (other !== undefined && m.row && !refused.has(m.row.row)) {
        errors.push({
          row: m.row.row,
          column: 'movement',
          detail: `${m.number} is the number of another movement of work "${unit.work}" (row ${other})`,
        });
        refused.add(m.row.row);
      } else if (m.row) seen.set(m.number, m.row.row);
      else seen.set(m.number, 0);
    }
    if (given.length === 0) numbered.forEach((m, i) => (m.number = i + 1));
  }
  const movements = several
    ? [...numbered]
        .filter((m) => m.number !== null)
        .sort((a, b) => a.number! - b.number!)
        .map((m) => ({
          file: m.file,
          number: m.number!,
          title: (m.row?.movementTitle ?? m.file.facts.movementTitle ?? `Movement ${romanOf(m.number!)}`).slice(0, 200),
        }))
    : [];

  let title = v('title');
  if (!title && several && unit.work) title = unit.rows.length > 0 ? unit.work : (first.facts.workTitle ?? undefined);
  if (!title) {
    const fileTitle = several ? first.facts.workTitle : (first.facts.workTitle ?? first.facts.movementTitle);
    if (fileTitle) {
      title = fileTitle;
      fromFile.push(`title (${first.facts.workTitle ? 'work-title' : 'movement-title'})`);
    }
  }
  let composer = v('composer');
  if (!composer && first.facts.composer) {
    composer = first.facts.composer;
    fromFile.push('composer (creator)');
  }
  let lyricist = v('lyricist');
  if (!lyricist && first.facts.lyricist) {
    lyricist = first.facts.lyricist;
    fromFile.push('lyricist (creator)');
  }
  const license = v('license');
  let attribution = v('attribution');
  if (!attribution && first.facts.rights) {
    attribution = first.facts.rights;
    fromFile.push('rights statement (rights)');
  }
  const rights = rightsOf(license, license ? null : first.facts.rights);
  const rowSource = unit.rows.map((r) => r.sourceUrl).find((u) => u !== undefined);
  const sourceUrl = httpsUrl(rowSource) ?? httpsUrl(input.sourceUrl);
  const wikidata = v('composerWikidata') ?? null;
  const catalogText = v('catalogNumber');
  const catalogNumbers: ParsedCatalogNumber[] = catalogText
    ? catalogNumbersOfList(catalogText)
    : title
      ? parseCatalogNumbers(title)
      : [];
  const instrumentsText = v('instruments');
  const instruments = instrumentsText
    ? instrumentsText
        .split(instrumentsText.includes(';') ? ';' : ',')
        .map((n) => n.trim())
        .filter(Boolean)
        .map((n) => instrument(n) ?? n)
    : [
        ...new Set(
          unit.files
            .flatMap((f) => f.facts.partNames)
            .map((n) => instrument(n))
            .filter((s): s is string => s !== null),
        ),
      ];
  const genre = v('genre') ?? '';
  const firstPublished = v('firstPublished');
  const lifeDate = (x: string | undefined) => (x && LIFE_DATE.test(x) ? x : 'unknown');
  const composerName = (composer ?? '').slice(0, 160);
  const skip = (reason: string): FolderWork => ({
    itemKey: unit.itemKey,
    skip: reason,
    title: title ?? first.relPath,
    composer: composerName,
  });
  if (!title) return skip('no title: works.csv gives none and the file names none (work-title, movement-title)');
  if (!composerName) return skip('no composer: works.csv gives none and the file names none (creator)');
  if (!sourceUrl)
    return skip(
      'no source page: give the page the file comes from in the sourceUrl column, or --source-url for the folder',
    );
  const scores: WorkScore[] =
    movements.length > 0
      ? movements.map((m) => ({
          file: m.file,
          title: `Movement ${romanOf(m.number)}: ${m.title} (${m.file.kind === 'mxl' ? 'compressed MusicXML' : 'MusicXML'})`,
          sourcePageUrl: httpsUrl(unit.rows.find((r) => r.file === m.file.relPath)?.sourceUrl) ?? sourceUrl,
          movement: m.number,
        }))
      : [
          {
            file: first,
            title: `${title} (${first.kind === 'mxl' ? 'compressed MusicXML' : 'MusicXML'})`,
            sourcePageUrl: sourceUrl,
            movement: null,
          },
        ];
  // Where each fact was read, cited with the page the file comes from: the works.csv row and its
  // columns, or the score file's own header.
  const rowOf = (columns: WorksCsvColumn[]) =>
    unit.rows.find((r) => columns.some((c) => r[c] !== undefined && r[c]!.toLowerCase() !== 'unknown'));
  const cite = (columns: WorksCsvColumn[], fileField: string | null): string | undefined => {
    const r = rowOf(columns);
    const given = r ? columns.filter((c) => r[c] !== undefined && r[c]!.toLowerCase() !== 'unknown') : [];
    if (r) return `works.csv row ${r.row} (${given.join(', ')}) of ${input.batch.title}, for ${first.relPath}.`;
    return fileField ? `Read from the score file ${first.relPath} (${fileField}), not from a table.` : undefined;
  };
  const composerNote = cite(['composerBorn', 'composerDied', 'composerWikidata', 'composer'], 'creator composer');
  const lyricistNote = cite(['lyricistBorn', 'lyricistDied', 'lyricist'], 'creator lyricist');
  const publicationRow = rowOf(['firstPublished']);
  const evidence = [sourceUrl, wikidata ? `https://www.wikidata.org/wiki/${wikidata}` : null].filter(
    (u): u is string => u !== null,
  );
  return {
    batch: input.batch,
    itemKey: unit.itemKey,
    slug: slugify(`${composerName} ${title}`),
    title,
    originalTitle: v('originalTitle') ?? null,
    composer: {
      name: composerName,
      sortName: composerName.includes(',') ? composerName : sortNameOf(composerName),
      born: lifeDate(v('composerBorn')),
      died: lifeDate(v('composerDied')),
      wikidataId: wikidata,
      evidenceUrls: [...(wikidata ? [`https://www.wikidata.org/wiki/${wikidata}`] : []), sourceUrl],
      ...(composerNote ? { evidenceNote: composerNote } : {}),
    },
    // The lyricist's record cites the row (or the file) the lyricist and any dates were read from.
    lyricist: lyricist
      ? {
          name: lyricist.slice(0, 160),
          born: lifeDate(v('lyricistBorn')),
          died: lifeDate(v('lyricistDied')),
          wikidataId: null,
          evidenceUrls: [sourceUrl],
          ...(lyricistNote ? { evidenceNote: lyricistNote } : {}),
        }
      : null,
    hasLyrics: lyricist !== undefined,
    firstPublished: firstPublished && !/^unknown$/i.test(firstPublished) ? firstPublished.toLowerCase() : null,
    // The first publication is a fact whose evidence is the works.csv row that gives it.
    firstPublishedEvidence: publicationRow
      ? [
          {
            url: sourceUrl,
            note: `works.csv row ${publicationRow.row} (firstPublished "${publicationRow.firstPublished}") of ${input.batch.title}, for ${first.relPath}.`,
          },
        ]
      : [],
    year: 'unknown',
    catalogNumbers,
    workNumber: catalogNumbers[0] ? `${catalogNumbers[0].catalog} ${catalogNumbers[0].number}`.slice(0, 80) : null,
    genre,
    instruments,
    instrumentation: (instrumentsText ?? [...new Set(unit.files.flatMap((f) => f.facts.partNames))].join(', ')).slice(
      0,
      220,
    ),
    summary: `${genre || 'Work'} by ${composerName}${lyricist ? `, words by ${lyricist}` : ''}${movements.length > 0 ? `, in ${movements.length} movements` : ''}.`,
    rights: { ...rights, attribution: attribution ?? null, evidenceUrls: evidence },
    scores,
    movements: movements.map((m) => ({ number: m.number, title: m.title })),
    sourcePages: [],
    changeSummary: `New work from ${input.batch.title}: ${unit.files.map((f) => f.relPath).join(', ')}${unit.rows.length > 0 ? ` (works.csv row${unit.rows.length > 1 ? 's' : ''} ${unit.rows.map((r) => r.row).join(', ')})` : ''}.`,
    factsFrom: unit.rows.length > 0 ? 'works-csv' : 'score-file',
    provenance:
      fromFile.length > 0
        ? `Read from the score file itself, not from a table: ${fromFile.join(', ')}; check ${fromFile.length > 1 ? 'them' : 'it'} before accepting.`
        : null,
  };
}
