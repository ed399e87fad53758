/**
 * The two kinds of folder `npm run import` takes (docs/imports.md), read from disk into the same
 * shape: the works the folder holds, each able to say its facts (src/domain/corpus/plan.ts's
 * WorkFacts) once its files are read. The OpenScore corpora (scores/ with lc<id>.mxl or
 * sq<id>.mxl, data/*.tsv) read each work's files only when the work is chosen; a plain folder of
 * scores (with an optional works.csv) is read whole first, since a file without a row joins the
 * movements of its work by what its own header says.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { musicXmlFacts } from '../../src/domain/corpus/musicxml-facts.ts';
import { parseTsv } from '../../src/domain/corpus/tsv.ts';
import { parseCsv } from '../../src/domain/corpus/csv.ts';
import {
  corpusKindOf,
  corpusUnits,
  corpusWork,
  idOfFileName,
  indexTables,
  titlePairCounts,
  type CorpusFile,
} from '../../src/domain/corpus/openscore.ts';
import { folderWorks, type InstrumentTerm, type RowError } from '../../src/domain/corpus/folder.ts';
import type { ImportFile, WorkFacts } from '../../src/domain/corpus/plan.ts';
import { musicXmlText, scoreKindOfName } from '../../src/domain/score-files.ts';
import { slugify } from '../../src/domain/review/proposal.ts';
import { scoreFilesUnder, type ScoreWalk } from './score-walk.ts';

/** What a work says once read: its facts, or why it cannot be planned (with what is known of it). */
export type LoadedWork = WorkFacts | { skip: string; itemKey: string; title: string; composer: string };

/** One work of the folder, before its files are read. */
export interface SourceWork {
  itemKey: string;
  /** Names `--only` may pick it by (its item key, score ids, file paths). */
  names: string[];
  /** Its score files, relative to `root`. */
  files: string[];
  load(): Promise<LoadedWork>;
}

export interface ImportSource {
  kind: 'openscore' | 'folder';
  batchId: string;
  title: string;
  /** The folder score files are read from (for staging them). */
  root: string;
  works: SourceWork[];
  /** Score files found in the folder. */
  fileCount: number;
  /** Lines the report adds (files not in the corpus index, the walk's bound). */
  notes: Record<string, number | boolean>;
  /** Refused rows of works.csv (row and column named). */
  rowErrors: RowError[];
}

/** A score file read: digest, size, kind and header facts (any encoding, compressed or not). */
export async function readScoreFile(root: string, rel: string): Promise<ImportFile> {
  const data = await fs.readFile(path.join(root, rel));
  const kind = scoreKindOfName(rel) ?? 'musicxml';
  return {
    relPath: rel,
    sha256: createHash('sha256').update(data).digest('hex'),
    byteLength: data.length,
    kind,
    facts: musicXmlFacts(musicXmlText(data, kind === 'mxl')),
  };
}

/** True when the folder is an OpenScore corpus (a scores/ folder with lc<id>.mxl or sq<id>.mxl files). */
export async function isOpenScoreFolder(folder: string): Promise<ScoreWalk | null> {
  const walk = await scoreFilesUnder(path.join(folder, 'scores')).catch(() => null);
  if (!walk) return null;
  return corpusKindOf(walk.files.map((f) => path.basename(f))) ? walk : null;
}

export async function openScoreSource(folder: string, walk: ScoreWalk): Promise<ImportSource> {
  const scoresDir = path.join(folder, 'scores');
  const kind = corpusKindOf(walk.files.map((f) => path.basename(f)))!;
  const read = async (name: string) =>
    parseTsv(await fs.readFile(path.join(folder, 'data', name), 'utf8').catch(() => ''));
  const index = indexTables({
    composers: await read('composers.tsv'),
    scores: await read('scores.tsv'),
    sets: await read('sets.tsv'),
  });
  // The SOURCE note names the corpus's repository ("repository: github.com/OpenScore/Lieder").
  const note = await fs.readFile(path.join(folder, 'SOURCE'), 'utf8').catch(() => '');
  const repo = /^repository:\s*(?:https:\/\/)?([^\s]+)/m.exec(note)?.[1];
  const corpusUrl = repo ? `https://${repo}` : 'https://github.com/OpenScore';
  // Files by id; the index's path column is never used to find them.
  const byId = new Map<string, string>();
  for (const rel of walk.files) {
    const id = idOfFileName(kind, path.basename(rel));
    if (id && !byId.has(id)) byId.set(id, rel);
  }
  const ids = [...byId.keys()].sort((a, b) => Number(a) - Number(b));
  const pairs = titlePairCounts(index);
  const works = corpusUnits(kind, index, ids).map((unit): SourceWork => ({
    itemKey: unit.itemKey,
    names: [unit.itemKey, ...unit.ids, ...unit.ids.map((id) => `${kind.prefix}${id}`)],
    files: unit.ids.map((id) => byId.get(id)!),
    load: async () => {
      const files: CorpusFile[] = [];
      for (const id of unit.ids) files.push({ ...(await readScoreFile(scoresDir, byId.get(id)!)), id });
      const work = corpusWork(kind, index, unit, files, { corpusUrl, pairs });
      return 'skip' in work ? { ...work, itemKey: unit.itemKey } : work;
    },
  }));
  return {
    kind: 'openscore',
    batchId: kind.batchId,
    title: `Import of the ${kind.credit}`,
    root: scoresDir,
    works,
    fileCount: byId.size,
    notes: { unlistedFiles: ids.filter((id) => !index.scoreById.has(id)).length },
    rowErrors: [],
  };
}

export interface FolderOptions {
  batchId: string | null;
  title: string | null;
  sourceUrl: string | null;
  instruments: InstrumentTerm[];
  currentYear: number;
}

/** A batch id from the folder's name ("My Scores" -> "folder-my-scores"). */
export function defaultBatchId(folder: string): string {
  return `folder-${slugify(path.basename(folder)) || 'scores'}`.slice(0, 80).replace(/-+$/, '');
}

/** The folder's SOURCE note's address ("url: https://..." or "repository: github.com/..."), if any. */
async function sourceNoteUrl(folder: string): Promise<string | null> {
  const note = await fs.readFile(path.join(folder, 'SOURCE'), 'utf8').catch(() => '');
  const m = /^(?:url|source|repository):\s*(\S+)/im.exec(note)?.[1];
  if (!m) return null;
  return m.startsWith('https://') ? m : m.startsWith('http') ? null : `https://${m}`;
}

export const WORKS_CSV = 'works.csv';
/** works.csv larger than this is refused whole (a table of 100,000 rows is a few MB). */
const MAX_CSV_BYTES = 64 * 1024 * 1024;

export async function folderSource(folder: string, options: FolderOptions): Promise<ImportSource> {
  const walk = await scoreFilesUnder(folder);
  const csvPath = path.join(folder, WORKS_CSV);
  const csvStat = await fs.stat(csvPath).catch(() => null);
  if (csvStat && csvStat.size > MAX_CSV_BYTES)
    throw new Error(`${WORKS_CSV} is larger than ${MAX_CSV_BYTES} bytes; split the folder`);
  const table = csvStat ? parseCsv(await fs.readFile(csvPath, 'utf8')) : null;
  const files: ImportFile[] = [];
  const unreadable: Array<{ rel: string; reason: string }> = [];
  for (const rel of walk.files) {
    try {
      files.push(await readScoreFile(folder, rel));
    } catch (err) {
      unreadable.push({ rel, reason: (err as Error).message });
    }
  }
  const batchId = options.batchId ?? defaultBatchId(folder);
  const title = options.title ?? `Import of the folder ${path.basename(folder)}`;
  const plan = folderWorks({
    batch: { id: batchId, title },
    files,
    table,
    sourceUrl: options.sourceUrl ?? (await sourceNoteUrl(folder)),
    instruments: options.instruments,
    currentYear: options.currentYear,
  });
  const works: SourceWork[] = plan.works.map((w) => {
    const rels = 'skip' in w ? [] : w.scores.map((s) => s.file.relPath);
    return { itemKey: w.itemKey, names: [w.itemKey, ...rels], files: rels, load: async () => w };
  });
  for (const u of unreadable) {
    const itemKey = `unreadable-${slugify(u.rel).slice(0, 80)}`;
    works.push({
      itemKey,
      names: [itemKey, u.rel],
      files: [],
      load: async () => ({
        skip: `the file cannot be read: ${u.reason}`.slice(0, 500),
        itemKey,
        title: u.rel,
        composer: '',
      }),
    });
  }
  return {
    kind: 'folder',
    batchId,
    title,
    root: folder,
    works,
    fileCount: walk.files.length,
    notes: { ...(walk.truncated ? { walkTruncated: true } : {}), worksCsv: table !== null },
    rowErrors: plan.errors,
  };
}
