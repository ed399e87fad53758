/**
 * The OpenScore corpora (Lieder, String Quartets) turned into new-work contributions. Pure: the
 * importer reads the files and tables and hands them here.
 *
 * Facts of the layout (../shared/corpora/README.md): a file joins its metadata by the number in
 * its name (`lc<id>.mxl`, `sq<id>.mxl`) = the `id` column of data/scores.tsv, never by the
 * `path` column (stale for some rows); some files are not listed at all, and then their
 * composer is found by the folder they are in (composers.tsv `path`) or the file's own
 * `<creator type="composer">`. The corpus gives composers' life years, not lyricists', and no
 * publication or composition dates, so those rights facts stay missing and are named.
 */
import type { MusicContributionInput } from '../../schemas/contribution.ts';
import { CONTRIBUTION_SCHEMA_VERSION } from '../../schemas/contribution.ts';
import { parseCatalogNumbers, type ParsedCatalogNumber } from '../catalog-numbers.ts';
import { fold } from '../text.ts';
import { notPublicDomainReason, territoryRights, type AuthorFact, type TerritoryRights } from '../territory-rights.ts';
import type { MusicXmlFacts } from './musicxml-facts.ts';

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
export interface CorpusFile {
  relPath: string;
  id: string;
  sha256: string;
  byteLength: number;
  facts: MusicXmlFacts;
}

/** What a work is known by, for finding probable duplicates (same composer; same title or catalog number). */
export interface DuplicateKey {
  /** A work slug in the catalog, or "batch item <id>". */
  label: string;
  composer: string;
  title: string;
  catalog: string[];
}

export function duplicateKey(
  label: string,
  composer: string,
  titles: string[],
  catalog: ParsedCatalogNumber[],
): DuplicateKey & { titles: string[] } {
  const t = titles.map((x) => fold(x)).filter(Boolean);
  return {
    label,
    composer: fold(composer),
    title: t[0] ?? '',
    titles: t,
    catalog: catalog.map((n) => fold(`${n.catalog} ${n.number}`).replace(/\s+/g, ' ')),
  };
}

/** The first known work that is probably the same: same composer and a shared title or catalog number. */
export function findDuplicate(
  key: DuplicateKey & { titles: string[] },
  known: Iterable<DuplicateKey & { titles: string[] }>,
): string | null {
  for (const k of known) {
    if (k.composer !== key.composer) continue;
    if (k.titles.some((t) => key.titles.includes(t))) return k.label;
    if (k.catalog.some((c) => key.catalog.includes(c))) return k.label;
  }
  return null;
}

export type ItemPlan =
  | {
      kind: 'submit';
      itemKey: string;
      title: string;
      composer: string;
      body: MusicContributionInput;
      rights: TerritoryRights;
      duplicate: DuplicateKey & { titles: string[] };
    }
  | { kind: 'skip'; itemKey: string; title: string; composer: string; reason: string };

export interface PlanOptions {
  asOfYear: number;
  /** The URL the importer staged the file under (see api/imports/staged-files.ts). */
  stagedUrl: (sha256: string) => string;
  /** The corpus's repository page (its SOURCE note), the evidence of last resort. */
  corpusUrl: string;
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

function composerRowOf(kind: CorpusKind, index: CorpusIndex, file: CorpusFile, score: Row | null): Row | null {
  const set = score ? index.setById.get(score.set_id ?? '') : undefined;
  const byId = set ? index.composerById.get(set.composer_id ?? '') : undefined;
  if (byId) return byId;
  // Not listed (or listed without a set): the folder the file is in, then the file's own creator.
  const folder = file.relPath.split('/')[0] ?? '';
  const byPath =
    index.composerByPath.get(folder) ??
    [...index.composerByPath.entries()].find(([p]) => p && folder.startsWith(p))?.[1];
  if (byPath) return byPath;
  void kind;
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

/** "Hugo Wolf" -> "Wolf, Hugo" (the last word first). */
function sortNameOfPerson(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) return name.trim();
  const last = parts.pop()!;
  return `${last}, ${parts.join(' ')}`;
}

const IMSLP_SCAN = /https:\/\/imslp\.org\/wiki\/Special:ReverseLookup\/[0-9]{1,9}(?![0-9])/;

function imslpScanUrl(imslp: string | undefined): string | null {
  const m = /^#?([0-9]{1,9})$/.exec(imslp?.trim() ?? '');
  return m ? `https://imslp.org/wiki/Special:ReverseLookup/${m[1]}` : null;
}

/** The contribution for one score file, or the reason it is skipped. */
/** The genre the importer proposes for a string quartet (not in the published vocabulary yet). */
export const STRING_QUARTET = {
  name: 'String quartet',
  broader: 'Chamber music',
  scopeNote: 'A work for two violins, viola and cello.',
} as const;

export function planItem(kind: CorpusKind, index: CorpusIndex, file: CorpusFile, options: PlanOptions): ItemPlan {
  const score = index.scoreById.get(file.id) ?? null;
  const set = score ? (index.setById.get(score.set_id ?? '') ?? null) : null;
  const c = composerRowOf(kind, index, file, score);
  const composerName = c?.name || file.facts.composer || '';
  const title = (
    score?.name ||
    (kind.kind === 'lieder'
      ? file.facts.movementTitle || file.facts.workTitle
      : file.facts.workTitle || file.facts.movementTitle) ||
    ''
  ).slice(0, 200);
  const itemKey = `${kind.prefix}${file.id}`;
  if (!title)
    return {
      kind: 'skip',
      itemKey,
      title: file.relPath,
      composer: composerName,
      reason: 'the file names no title and the index does not list it',
    };
  if (!composerName)
    return {
      kind: 'skip',
      itemKey,
      title,
      composer: '',
      reason: 'no composer: neither the index, the folder nor the file names one',
    };
  const lyricistName = kind.kind === 'lieder' && file.facts.lyricist ? file.facts.lyricist.slice(0, 160).trim() : null;
  const composerDied = c ? yearText(c.died) : 'unknown';
  const authors: AuthorFact[] = [
    { role: 'composer', name: composerName, died: composerDied === 'unknown' ? null : Number(composerDied) },
  ];
  if (kind.kind === 'lieder') authors.push({ role: 'lyricist', name: lyricistName, died: null });
  const facts = { authors, firstPublished: null, asOfYear: options.asOfYear };
  const rights = territoryRights(facts);
  const notFree = notPublicDomainReason(rights, facts);
  if (notFree) return { kind: 'skip', itemKey, title, composer: composerName, reason: notFree };

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

  // When scores.tsv does not list the file (or lists it without its scan), the score's own header
  // names the IMSLP scan it was transcribed from: its <source>, or the credit OpenScore puts in its
  // arranger line ("Transcribed from the IMSLP file(s) at https://imslp.org/wiki/Special:ReverseLookup/321919").
  const fileSource = file.facts.source ? https(file.facts.source) : null;
  const fileScan =
    IMSLP_SCAN.exec(file.facts.source ?? '')?.[0] ?? IMSLP_SCAN.exec(file.facts.arranger ?? '')?.[0] ?? null;
  const page = https(score?.link) ?? (fileScan ? null : fileSource) ?? null;
  const scan = imslpScanUrl(score?.imslp) ?? fileScan;
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
    '.',
  ]
    .join('')
    .slice(0, 300);

  const body: MusicContributionInput = {
    schemaVersion: CONTRIBUTION_SCHEMA_VERSION,
    operation: 'new-work',
    // Source id and content: a changed file is a new submission, the same file never twice.
    idempotencyKey: `import.${kind.batchId}.${itemKey}.${file.sha256.slice(0, 16)}`,
    submittedBy: { name: `Archive import (${kind.batchId})`, kind: 'AutomatedAgent', agentName: 'npm run import' },
    work: {
      title,
      originalTitle: title,
      composer: composerName,
      genre: kind.kind === 'lieder' ? 'Lied' : STRING_QUARTET.name,
      // The published vocabulary files quartets as "Chamber piece"; the importer proposes the
      // narrower term, which lands only when an editor approves it.
      ...(kind.kind === 'quartets' ? { newTerms: { genre: { ...STRING_QUARTET } } } : {}),
      year: 'unknown',
      workNumber,
      catalogNumbers,
      summary,
      instrumentation: kind.kind === 'lieder' ? 'voice and piano' : 'string quartet (two violins, viola, cello)',
      instruments: kind.kind === 'lieder' ? ['voice', 'piano'] : ['violin', 'viola', 'cello'],
      ...(kind.kind === 'lieder' ? { hasLyrics: true } : {}),
      ...(lyricistName ? { lyricist: { name: lyricistName, born: 'unknown', died: 'unknown', wikidataId: null } } : {}),
      // The lyricist's record: the corpus names the poet and links their IMSLP category, and gives no dates.
      ...(lyricistName && lyricistUrl
        ? {
            lyricistFacts: {
              name: lyricistName,
              sortName: imslpCategoryName(lyricistUrl) ?? sortNameOfPerson(lyricistName),
              born: 'unknown',
              died: 'unknown',
              wikidataId: null,
              evidenceUrls: [lyricistUrl],
            },
          }
        : {}),
      // Always the composer's facts: the archive adds a composer it does not know yet only with
      // them. One the corpus's composers.tsv does not list (Roger Quilter in the Lieder) comes with
      // unknown life dates and the corpus page that names the composer, so the rights say the death
      // year is missing instead of the apply refusing the work.
      composerFacts: {
        name: composerName,
        sortName: sortNameFromPath(c?.path ?? file.relPath.split('/')[0], composerName),
        born: yearText(c?.born),
        died: composerDied,
        wikidataId: wikidata,
        evidenceUrls: composerEvidence.length > 0 ? composerEvidence : [page ?? scan ?? options.corpusUrl],
      },
    },
    rights: {
      // Never more than the facts show: public domain only when every territory is decided.
      compositionStatus: rights.composition === 'public-domain' ? 'public-domain' : 'unknown',
      editionStatus: 'public-domain',
      recordingStatus: 'not-applicable',
      territory: 'US, EU, CA',
      license: 'CC0-1.0',
      attribution: credit.slice(0, 500),
      evidenceUrls: [page, scan, lyricistUrl, ...composerEvidence, options.corpusUrl]
        .filter((u): u is string => u !== null)
        .slice(0, 10),
    },
    assets: [
      {
        kind: 'mxl',
        title: `${title} (full score, compressed MusicXML)`.slice(0, 180),
        downloadUrl: options.stagedUrl(file.sha256),
        sourcePageUrl: sourcePage,
        sha256: file.sha256,
        mediaType: 'application/vnd.recordare.musicxml',
        rightsStatus: 'public-domain',
        license: 'CC0-1.0',
        attribution: credit.slice(0, 500),
        reviewState: 'pending',
      },
      ...(scan
        ? [
            {
              kind: 'source-page' as const,
              title: 'IMSLP scan the score was transcribed from',
              sourcePageUrl: scan,
              rightsStatus: 'catalog-page',
              reviewState: 'pending' as const,
            },
          ]
        : []),
    ],
    quality: {},
    changeSummary: `New work from the ${kind.credit}: score ${file.id} (${file.relPath}).`.slice(0, 2000),
    rationale:
      `Imported by the archive's importer. Rights by territory: US ${rights.US.status}, EU ${rights.EU.status}, CA ${rights.CA.status}${rights.missingFacts.length ? `; missing: ${rights.missingFacts.join('; ')}` : ''}.`.slice(
        0,
        2000,
      ),
    batch: { id: kind.batchId, title: `Import of the ${kind.credit}`, itemKey },
  };
  return {
    kind: 'submit',
    itemKey,
    title,
    composer: composerName,
    body,
    rights,
    duplicate: duplicateKey(`batch item ${itemKey}`, composerName, [title], catalogNumbers),
  };
}
