/**
 * The OpenScore corpora (Lieder, String Quartets) as one import adapter (docs/imports.md): which
 * files make one work, and what the corpus knows of each work, handed to the one planning step
 * every adapter shares (src/domain/corpus/plan.ts). Pure: the importer reads the files and tables
 * and hands them here.
 *
 * Facts of the layout (../shared/corpora/README.md): a file joins its metadata by the number in
 * its name (`lc<id>.mxl`, `sq<id>.mxl`) = the `id` column of data/scores.tsv, never by the
 * `path` column (stale for some rows); some files are not listed at all, and then their
 * composer is found by the folder they are in (composers.tsv `path`) or the file's own
 * `<creator type="composer">`. The corpus gives composers' life years, not lyricists', and no
 * publication or composition dates, so those rights facts stay missing and are named.
 *
 * Movements: a few quartets are kept as one file per movement (Mozart's K. 464, Emilie Mayer's
 * Op. 14): scores.tsv lists each file under the set's own name, and each file names its movement
 * (`<movement-number>` in Roman numerals, `<movement-title>`). Files of one set that carry the
 * set's name are the movements of one work, never works of their own (nor duplicates).
 */
import { parseCatalogNumbers } from '../catalog-numbers.ts';
import { slugify, sortNameOf } from '../review/proposal.ts';
import { fold } from '../text.ts';
import type { ImportFile, WorkFacts, WorkScore } from './plan.ts';
import { movementNumber } from './musicxml-facts.ts';

export type Row = Record<string, string>;

export interface CorpusKind {
  /** "lieder" or "quartets": decides genre, instruments and whether the works have words. */
  kind: 'lieder' | 'quartets';
  /** File name prefix before the id: "lc" or "sq". */
  prefix: string;
  /** The batch id, e.g. "openscore-lieder". */
  batchId: string;
  /** How the corpus is credited, e.g. "OpenScore Lieder corpus (CC0)". */
  credit: string;
}

const KINDS: CorpusKind[] = [
  { kind: 'lieder', prefix: 'lc', batchId: 'openscore-lieder', credit: 'OpenScore Lieder corpus (CC0)' },
  {
    kind: 'quartets',
    prefix: 'sq',
    batchId: 'openscore-string-quartets',
    credit: 'OpenScore String Quartets corpus (CC0)',
  },
];

/** The corpus a folder holds, from the prefix of its score files; null when neither. */
export function corpusKindOf(fileNames: string[]): CorpusKind | null {
  for (const k of KINDS) if (fileNames.some((n) => new RegExp(`^${k.prefix}[0-9]+\\.mxl$`).test(n))) return k;
  return null;
}

/** The id in a score file's name ("lc5016466.mxl" -> "5016466"), or null. */
export function idOfFileName(kind: CorpusKind, name: string): string | null {
  const m = new RegExp(`^${kind.prefix}([0-9]{1,12})\\.mxl$`).exec(name.normalize('NFC'));
  return m ? m[1]! : null;
}

export interface CorpusTables {
  composers: Row[];
  scores: Row[];
  sets: Row[];
}

export interface CorpusIndex {
  scoreById: Map<string, Row>;
  setById: Map<string, Row>;
  composerById: Map<string, Row>;
  composerByPath: Map<string, Row>;
  composerByName: Map<string, Row>;
}

export function indexTables(t: CorpusTables): CorpusIndex {
  return {
    scoreById: new Map(t.scores.map((r) => [r.id!, r])),
    setById: new Map(t.sets.map((r) => [r.id!, r])),
    composerById: new Map(t.composers.map((r) => [r.id!, r])),
    composerByPath: new Map(t.composers.map((r) => [(r.path ?? '').normalize('NFC'), r])),
    composerByName: new Map(t.composers.map((r) => [fold(r.name ?? ''), r])),
  };
}

/** A score file found in the corpus: its path under scores/ (NFC), id, digest and header facts. */
export interface CorpusFile extends ImportFile {
  id: string;
}

/** One work of the corpus: one score file, or the movement files of one set. */
export interface CorpusUnit {
  /** "lc5016466" for one file; "sqset5108515" for the movements of a set. */
  itemKey: string;
  /** Score ids, in id order. */
  ids: string[];
  setId: string | null;
}

/** Whether a listed score is a movement file: it carries its set's own name (the set's other files do too). */
function movementSetOf(index: CorpusIndex, id: string): string | null {
  const score = index.scoreById.get(id);
  const set = score ? index.setById.get(score.set_id ?? '') : undefined;
  return score && set && fold(score.name ?? '') !== '' && fold(score.name ?? '') === fold(set.name ?? '')
    ? set.id!
    : null;
}

/**
 * The corpus's works from its score files (ids found in file names): the files of one set that
 * carry the set's name are one work (its movements) when there are two or more of them; every
 * other file is a work of its own. In order of each work's first id.
 */
export function corpusUnits(kind: CorpusKind, index: CorpusIndex, ids: string[]): CorpusUnit[] {
  const bySet = new Map<string, string[]>();
  for (const id of ids) {
    const set = movementSetOf(index, id);
    if (set) bySet.set(set, [...(bySet.get(set) ?? []), id]);
  }
  const units: CorpusUnit[] = [];
  const grouped = new Set<string>();
  for (const [setId, members] of bySet) {
    if (members.length < 2) continue;
    const sorted = [...members].sort((a, b) => Number(a) - Number(b));
    for (const id of sorted) grouped.add(id);
    units.push({ itemKey: `${kind.prefix}set${setId}`, ids: sorted, setId });
  }
  for (const id of ids) if (!grouped.has(id)) units.push({ itemKey: `${kind.prefix}${id}`, ids: [id], setId: null });
  return units.sort((a, b) => Number(a.ids[0]) - Number(b.ids[0]));
}

/**
 * How many works of the whole index carry each composer-and-title pair: a set's movement rows
 * count once. A slug is the composer and title, plus the item key when the corpus holds the pair
 * twice (decided from the whole index, so a run's choice of items never changes a slug).
 */
export function titlePairCounts(index: CorpusIndex): Map<string, number> {
  const works = new Map<string, Set<string>>();
  for (const row of index.scoreById.values()) {
    const set = index.setById.get(row.set_id ?? '');
    const composer = index.composerById.get(set?.composer_id ?? '')?.name ?? '';
    const key = `${fold(composer)}|${fold(row.name ?? '')}`;
    const work = movementSetOf(index, row.id!) ?? `score ${row.id}`;
    works.set(key, (works.get(key) ?? new Set()).add(work));
  }
  return new Map([...works].map(([k, v]) => [k, v.size]));
}

/** The slug a work takes (see titlePairCounts). */
export function corpusSlug(
  pairs: Map<string, number>,
  unit: CorpusUnit,
  index: CorpusIndex,
  composer: string,
  title: string,
): string {
  const listed = unit.ids.every((id) => index.scoreById.has(id));
  const once = (pairs.get(`${fold(composer)}|${fold(title)}`) ?? 0) <= 1;
  return slugify(listed && once ? `${composer} ${title}` : `${composer} ${title} ${unit.itemKey}`);
}

export interface CorpusOptions {
  /** The corpus's repository page (its SOURCE note), the evidence of last resort. */
  corpusUrl: string;
  /** Pairs of the whole index (titlePairCounts), for the slug. */
  pairs: Map<string, number>;
}

const yearText = (v: string | undefined): string => (/^[0-9]{4}$/.test(v?.trim() ?? '') ? v!.trim() : 'unknown');
/** An HTTPS address as a URI (non-ASCII letters percent-encoded: "Category:Rückert" is not a URI as written). */
const https = (v: string | undefined | null): string | null => {
  if (!v || !/^https:\/\/[^\s]+$/.test(v)) return null;
  try {
    return new URL(v).href;
  } catch {
    return null;
  }
};

function composerRowOf(index: CorpusIndex, file: CorpusFile, score: Row | null): Row | null {
  const set = score ? index.setById.get(score.set_id ?? '') : undefined;
  const byId = set ? index.composerById.get(set.composer_id ?? '') : undefined;
  if (byId) return byId;
  // Not listed (or listed without a set): the folder the file is in, then the file's own creator.
  const folder = file.relPath.split('/')[0] ?? '';
  const byPath =
    index.composerByPath.get(folder) ??
    [...index.composerByPath.entries()].find(([p]) => p && folder.startsWith(p))?.[1];
  if (byPath) return byPath;
  return file.facts.composer ? (index.composerByName.get(fold(file.facts.composer)) ?? null) : null;
}

/** "Schubert,_Franz" -> "Schubert, Franz"; "Barnard,_Charlotte_Alington_-_aka_Claribel" -> "Barnard, Charlotte Alington". */
function sortNameFromPath(path: string | undefined, name: string): string {
  const p = (path ?? '')
    .replace(/_-_aka_.*$/, '')
    .replace(/_/g, ' ')
    .trim();
  return p.includes(',') ? p : name;
}

/** "https://imslp.org/wiki/Category:Eichendorff,_Joseph_von" -> "Eichendorff, Joseph von" (IMSLP writes people's sort names). */
export function imslpCategoryName(url: string): string | null {
  const m = /\/wiki\/Category:([^?#]+)$/.exec(url);
  if (!m) return null;
  let name: string;
  try {
    name = decodeURIComponent(m[1]!).replace(/_/g, ' ').trim();
  } catch {
    return null;
  }
  return name.includes(',') && name.length <= 160 ? name.normalize('NFC') : null;
}

const IMSLP_SCAN = /https:\/\/imslp\.org\/wiki\/Special:ReverseLookup\/[0-9]{1,9}(?![0-9])/;

function imslpScanUrl(imslp: string | undefined): string | null {
  const m = /^#?([0-9]{1,9})$/.exec(imslp?.trim() ?? '');
  return m ? `https://imslp.org/wiki/Special:ReverseLookup/${m[1]}` : null;
}

/** The genre the importer proposes for a string quartet (not in the published vocabulary yet). */
export const STRING_QUARTET = {
  name: 'String quartet',
  broader: 'Chamber music',
  scopeNote: 'A work for two violins, viola and cello.',
} as const;

/** The movements of a set's files in order: their own numbers when each has a distinct one, else their id order. */
function movementsOf(files: CorpusFile[]): Array<{ file: CorpusFile; number: number; title: string }> {
  const numbered = files.map((file) => ({ file, number: movementNumber(file.facts.movementNumber) }));
  const distinct = new Set(numbered.map((m) => m.number));
  const own = numbered.every((m) => m.number !== null) && distinct.size === numbered.length;
  const ordered = own
    ? [...numbered].sort((a, b) => a.number! - b.number!)
    : [...numbered].sort((a, b) => Number(a.file.id) - Number(b.file.id));
  return ordered.map((m, i) => ({
    file: m.file,
    number: own ? m.number! : i + 1,
    title: (m.file.facts.movementTitle ?? `Movement ${i + 1}`).slice(0, 200),
  }));
}

/**
 * What the corpus knows of one work (a unit of corpusUnits with its files read): for the planning
 * step (src/domain/corpus/plan.ts), or the reason it cannot be planned.
 */
export function corpusWork(
  kind: CorpusKind,
  index: CorpusIndex,
  unit: CorpusUnit,
  files: CorpusFile[],
  options: CorpusOptions,
): WorkFacts | { skip: string; title: string; composer: string } {
  const file = files[0]!;
  const score = index.scoreById.get(file.id) ?? null;
  const set = score ? (index.setById.get(score.set_id ?? '') ?? null) : null;
  const movements = unit.setId !== null ? movementsOf(files) : [];
  const c = composerRowOf(index, file, score);
  const composerName = c?.name || file.facts.composer || '';
  const title = (
    (movements.length > 0 ? set?.name : null) ||
    score?.name ||
    (kind.kind === 'lieder'
      ? file.facts.movementTitle || file.facts.workTitle
      : file.facts.workTitle || file.facts.movementTitle) ||
    ''
  ).slice(0, 200);
  if (!title)
    return {
      skip: 'the file names no title and the index does not list it',
      title: file.relPath,
      composer: composerName,
    };
  if (!composerName)
    return { skip: 'no composer: neither the index, the folder nor the file names one', title, composer: '' };
  const lyricistName = kind.kind === 'lieder' && file.facts.lyricist ? file.facts.lyricist.slice(0, 160).trim() : null;

  // A song's place in its set ("Winterreise, D.911", No. 5) gives its catalog number when its own title has none.
  const own = parseCatalogNumbers(title);
  const setName = set?.name ?? (kind.kind === 'lieder' ? file.facts.workTitle : null) ?? '';
  const setNumbers = kind.kind === 'lieder' && own.length === 0 ? parseCatalogNumbers(setName) : [];
  const movement =
    file.facts.movementNumber && /^[0-9]{1,3}$/.test(file.facts.movementNumber) ? file.facts.movementNumber : null;
  const catalogNumbers =
    own.length > 0
      ? own
      : setNumbers.length > 0 && movement
        ? [{ catalog: setNumbers[0]!.catalog, number: `${setNumbers[0]!.number} No. ${movement}` }]
        : [];
  const workNumber = catalogNumbers[0] ? `${catalogNumbers[0].catalog} ${catalogNumbers[0].number}`.slice(0, 80) : null;

  // The movements of a set are credited to the set's page; one score to its own. When scores.tsv
  // does not list the file (or lists it without its scan), the score's own header names the IMSLP
  // scan it was transcribed from: its <source>, or the credit OpenScore puts in its arranger line
  // ("Transcribed from the IMSLP file(s) at https://imslp.org/wiki/Special:ReverseLookup/321919").
  const fileSource = file.facts.source ? https(file.facts.source) : null;
  const fileScan =
    IMSLP_SCAN.exec(file.facts.source ?? '')?.[0] ?? IMSLP_SCAN.exec(file.facts.arranger ?? '')?.[0] ?? null;
  const page = https(movements.length > 0 ? set?.link : score?.link) ?? (fileScan ? null : fileSource) ?? null;
  const scan = imslpScanUrl(movements.length > 0 ? set?.imslp : score?.imslp) ?? fileScan;
  const lyricistUrl = https(score?.lyricist_url);
  const wikidata = c?.wikidata && /^Q[1-9][0-9]*$/.test(c.wikidata) ? c.wikidata : null;
  const composerEvidence = [
    wikidata ? `https://www.wikidata.org/wiki/${wikidata}` : null,
    https(c?.wikipedia),
    https(c?.imslp),
  ].filter((u): u is string => u !== null);
  const sourcePage = page ?? scan ?? composerEvidence[0] ?? options.corpusUrl;
  const credit = [
    kind.credit,
    page ? `MuseScore page ${page}` : null,
    scan ? `transcribed from IMSLP scan ${scan}` : null,
  ]
    .filter(Boolean)
    .join('; ');
  const where = setName && setName !== title ? `${movement ? `No. ${movement} of ` : 'From '}"${setName}"` : null;
  const summary = [
    kind.kind === 'lieder' ? 'Song for voice and piano' : 'String quartet',
    ` by ${composerName}`,
    lyricistName ? `, words by ${lyricistName}` : '',
    where ? `. ${where}` : '',
    movements.length > 0 ? `. In ${movements.length} movements` : '',
    '.',
  ].join('');

  const scores: WorkScore[] =
    movements.length > 0
      ? movements.map((m) => ({
          file: m.file,
          title: `Movement ${m.number}: ${m.title} (compressed MusicXML)`,
          sourcePageUrl: https(index.scoreById.get(m.file.id)?.link) ?? sourcePage,
          movement: m.number,
        }))
      : [{ file, title: `${title} (full score, compressed MusicXML)`, sourcePageUrl: sourcePage, movement: null }];
  return {
    batch: { id: kind.batchId, title: `Import of the ${kind.credit}` },
    itemKey: unit.itemKey,
    slug: corpusSlug(options.pairs, unit, index, composerName, title),
    title,
    originalTitle: title,
    // Always the composer's facts. One the corpus's composers.tsv does not list (Roger Quilter in
    // the Lieder) comes with unknown life dates and the corpus page that names the composer, so
    // the rights say the death year is missing instead of the apply refusing the work.
    composer: {
      name: composerName,
      sortName: sortNameFromPath(c?.path ?? file.relPath.split('/')[0], composerName),
      born: yearText(c?.born),
      died: c ? yearText(c.died) : 'unknown',
      wikidataId: wikidata,
      evidenceUrls: composerEvidence.length > 0 ? composerEvidence : [page ?? scan ?? options.corpusUrl],
      evidenceNote:
        c !== null
          ? `The corpus's composers.tsv (${kind.credit}) gives the composer's dates and Wikidata id, with these pages.`
          : `The corpus names the composer on this page; its composers.tsv does not list them, so their dates are unknown.`,
    },
    // The corpus names the poet and links their IMSLP category (the evidence of who they are), and
    // gives no dates: the lyricist's record starts with them unknown until an editor records them.
    lyricist: lyricistName
      ? {
          name: lyricistName,
          born: 'unknown',
          died: 'unknown',
          wikidataId: null,
          ...(lyricistUrl
            ? {
                sortName: imslpCategoryName(lyricistUrl) ?? sortNameOf(lyricistName),
                evidenceUrls: [lyricistUrl],
                evidenceNote: `The corpus's scores.tsv links the poet's IMSLP category page (${kind.credit}).`,
              }
            : {}),
        }
      : null,
    hasLyrics: kind.kind === 'lieder',
    firstPublished: null,
    year: 'unknown',
    catalogNumbers,
    workNumber,
    genre: kind.kind === 'lieder' ? 'Lied' : STRING_QUARTET.name,
    // The published vocabulary files quartets as "Chamber piece"; the importer proposes the
    // narrower term, which lands only when an editor approves it.
    ...(kind.kind === 'quartets' ? { newTerms: { genre: { ...STRING_QUARTET } } } : {}),
    instruments: kind.kind === 'lieder' ? ['voice', 'piano'] : ['violin', 'viola', 'cello'],
    instrumentation: kind.kind === 'lieder' ? 'voice and piano' : 'string quartet (two violins, viola, cello)',
    summary,
    rights: {
      editionStatus: 'public-domain',
      fileStatus: 'public-domain',
      license: 'CC0-1.0',
      attribution: credit,
      evidenceUrls: [page, scan, lyricistUrl, ...composerEvidence, options.corpusUrl].filter(
        (u): u is string => u !== null,
      ),
    },
    scores,
    movements: movements.map((m) => ({ number: m.number, title: m.title })),
    sourcePages: scan ? [{ title: 'IMSLP scan the score was transcribed from', url: scan }] : [],
    changeSummary:
      movements.length > 0
        ? `New work from the ${kind.credit}: ${movements.length} movements, scores ${files.map((f) => `${f.id} (${f.relPath})`).join(', ')}.`
        : `New work from the ${kind.credit}: score ${file.id} (${file.relPath}).`,
    factsFrom: 'corpus-index',
    provenance: null,
  };
}
