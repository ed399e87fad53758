/**
 * The resolve catalog: one build's work records and profiles, prepared once so each resolve only
 * compares integers. Everything that does not depend on the request (which formats are public,
 * the rights layers, review states, folded words, per-role lists) is computed here and kept in
 * typed-array columns indexed by arrangement: a catalog-wide resolve over 100,000 works walks
 * tens of thousands of arrangements, and plain integer arrays are what keeps that within
 * milliseconds and the index within a fraction of the records' own memory.
 * Pure. The build prepares it once and writes it beside the site (`encodeResolveCatalog`,
 * `<build>/index/resolve.idx`); the server loads those typed arrays (`decodeResolveCatalog`) and
 * reads full work records only for the few candidates an answer shows (`RecordSource`), so a
 * start or a swap parses no work and memory does not grow with the records.
 */
import { compositionCleared, editionState, recordingState } from '../rights-cleared.ts';
import { effectiveDurationSeconds, loopSeam, renderedView } from '../audio/arrangement.ts';
import { REVIEW_STATE_LABELS } from '../review-states.ts';
import type { ArrangementRecord, AssetRecord, WorkRecord } from '../../schemas/work.ts';
import type { InstrumentRecord } from '../../schemas/profile.ts';
import type { ProfileHead } from '../catalog-index/profiles.ts';
import { MUSIC_ROLES, type AssetKind, type MusicRole } from '../../schemas/common.ts';
import { fold, words } from '../text.ts';
import { composerNameForms } from '../works-query.ts';
import { KIND_BIT, MUSICXML_MASK, REVIEW_PREFERENCE, assetReviewPasses } from './formats.ts';
import { Vocabulary, catalogNumberWords, withoutQualifiers } from './text-match.ts';
import { encodeIndex, type DecodedIndex } from '../catalog-index/binary.ts';
import { Meaning, buildVocabulary, type MeaningTerm } from '../vocabulary/meaning.ts';
import { wordNet } from '../vocabulary/wordnet.ts';
import { SlugTable, decodeSlugTable, type WorkSlugs } from '../catalog-index/slug-table.ts';

export const ROLE_BIT: Record<MusicRole, number> = Object.fromEntries(MUSIC_ROLES.map((r, i) => [r, 1 << i])) as Record<
  MusicRole,
  number
>;

/** Rights-layer verdicts that do not depend on the request (column values). */
export const LAYER_FAIL = 0;
export const LAYER_PASS = 1;
export const LAYER_NOT_APPLICABLE = 2;

/** Bits of the `flags` column. */
export const FLAG_STATIC_READY = 1;
export const FLAG_PROFILES_APPROVED = 2;
export const FLAG_REVIEW_PASSES = 4;
export const FLAG_LOOPABLE = 8;
export const FLAG_TRIMMABLE = 16;
export const FLAG_COMPOSITION_PASSES = 32;
/** The arrangement's score was rendered with an exact 30 s / 60 s cut (docs/audio.md). */
export const FLAG_CUT_30 = 64;
export const FLAG_CUT_60 = 128;

/** Bits of the per-work `flags` column. */
export const WORK_HAS_PUBLIC_SCORE = 1;
export const WORK_COMPOSITION_PASSES = 2;
/** A MusicXML source score is held for rights review (the archive has it; a fact is missing, not a file). */
export const WORK_HAS_HELD_SCORE = 4;

/** One work of the catalog, as the search and the prepare analysis see it (a view over the columns). */
export interface PreparedWork {
  /** Position in catalog order (composer sort name, title, slug), as GET /api/v1/works lists. */
  order: number;
  slug: string;
  /** A public MusicXML source score exists (arrangements can be made and checked against it). */
  hasPublicScore: boolean;
  /** A MusicXML source score exists but is held for rights review (its record names the missing facts). */
  hasHeldScore: boolean;
  compositionPasses: boolean;
  /** Its arrangements are indexes first .. first + count - 1 (editorial rank order). */
  firstArrangement: number;
  arrangementCount: number;
}

/** Per work, by catalog order. */
export interface WorkColumns {
  /** Work ids (a layer's: its base's and its overlay's, tombstoned ones included; `slugs.count` counts the live ones). */
  count: number;
  /** Slugs by catalog order, and lookup by slug (a layer's finds live works only). */
  slugs: WorkSlugs;
  /** Position in slug order; the documented tie-break. */
  slugOrder: Int32Array;
  flags: Uint8Array;
  /** Arrangements of work w are firstArrangement[w] .. firstArrangement[w + 1] - 1. */
  firstArrangement: Int32Array;
}

/** The full record of the work at a catalog order (kept in memory, or read on demand by the server). */
export type RecordSource = (order: number) => WorkRecord;

/** Words of one text field per arrangement, and the arrangements per word (both compressed rows). */
export interface WordField {
  /** ids[start[i] .. start[i + 1]) are the vocabulary ids of arrangement i, ascending. */
  start: Int32Array;
  ids: Int32Array;
  /** postings[postingStart[v] .. postingStart[v + 1]) are the arrangements containing word v, ascending. */
  postingStart: Int32Array;
  postings: Int32Array;
}

/** Request-independent facts per arrangement, by arrangement index. */
export interface Columns {
  roleMask: Uint8Array;
  intendedBit: Uint8Array;
  /** Under narration: 2 for beds and ambient material, 0 for lead material, 1 otherwise. */
  narrationClass: Uint8Array;
  /** Kinds present as public assets with a download link. */
  usableMask: Uint16Array;
  /** Usable kinds whose chosen asset passes the asset review rule, and the asset rights rule. */
  reviewOkMask: Uint16Array;
  rightsOkMask: Uint16Array;
  flags: Uint8Array;
  edition: Uint8Array;
  recording: Uint8Array;
  duration: Int32Array;
  rank: Int32Array;
  id: Int32Array;
  slugOrder: Int32Array;
}

/** Zeroed columns for `n` arrangements, each of its own typed array kind. */
export function newColumns(n: number): Columns {
  return {
    roleMask: new Uint8Array(n),
    intendedBit: new Uint8Array(n),
    narrationClass: new Uint8Array(n),
    usableMask: new Uint16Array(n),
    reviewOkMask: new Uint16Array(n),
    rightsOkMask: new Uint16Array(n),
    flags: new Uint8Array(n),
    edition: new Uint8Array(n),
    recording: new Uint8Array(n),
    duration: new Int32Array(n),
    rank: new Int32Array(n),
    id: new Int32Array(n),
    slugOrder: new Int32Array(n),
  };
}

/** The arrangements that fit one role (intended or also suits). */
export interface RoleLists {
  /** In catalog order, split by FLAG_STATIC_READY (the second list can hold no ready arrangement). */
  staticReady: Int32Array;
  rest: Int32Array;
  /** Works with at least one of them. */
  works: number;
  /**
   * The same arrangements grouped by bound class, and within a class in tie-break order (editorial
   * rank, work slug, arrangement id): class c is order[classStart[c] .. classStart[c + 1]). A class
   * holds the arrangements that agree on every column `judge` reads except duration and words, so
   * one judgment of its first arrangement with the best duration and every query word matched is
   * an upper bound of the ranking key of all of them (`boundKey`). The catalog-wide scan
   * (resolve.ts) visits classes by that bound and stops a class at the first arrangement that
   * cannot outrank the tenth candidate kept: everything after it ranks lower still.
   */
  order: Int32Array;
  classStart: Int32Array;
}

/** A role's bound classes ranked for one request shape (resolve.ts): each class's bound key, and the classes by bound. */
export interface ClassBounds {
  bounds: Int32Array;
  byBound: Int32Array;
}

export interface ResolveCatalog {
  works: WorkColumns;
  /** By arrangement index: the catalog order of its work. */
  arrangementWork: Int32Array;
  arrangementCount: number;
  cols: Columns;
  /**
   * Arrangements that fit each role (intended or also suits), in catalog order, split by
   * FLAG_STATIC_READY: only the first list can hold ready arrangements, so a catalog-wide scan
   * reads the second only while it has fewer than ten ready candidates.
   */
  byRole: Map<MusicRole, RoleLists>;
  /** Profiles by slug (their heads: the catalog usage lists are not needed here). */
  profiles: Map<string, ProfileHead>;
  vocab: Vocabulary;
  /** The mood, style and instrumentation vocabulary with synonyms (requirement words are matched by meaning). */
  meaning: Meaning;
  style: WordField;
  instrumentation: WordField;
  mood: WordField;
  /** Per work (by `order`): title words (title, original title, catalog numbers, composer) and composer name forms, both ways. */
  title: WordField;
  composer: WordField;
  /**
   * Scratch for searches (resolve is synchronous, so one set suffices; see find.ts), and the
   * bound classes ranked per request shape (resolve.ts; bounded, cleared when full).
   */
  scratch: { workStamp: Int32Array; generation: number; bounds: Map<string, ClassBounds> };
  /** Every record by catalog order, when the catalog was built in memory (tests, benches); the server reads records on demand. */
  records?: WorkRecord[];
  /**
   * Present when this catalog is a base's with an overlay laid over it (catalog-layer.ts): ids at
   * and past `layer.baseWorks` / `layer.baseArrangements` are the overlay's, tombstoned base works
   * are skipped, and the overlay's words and bound classes are its own (`layer.over`).
   */
  layer?: ResolveLayer;
}

/** A base catalog with an overlay laid over it (made by catalog-layer.ts; defined here, where the catalog refers to it). */
export interface ResolveLayer {
  /** Ids below these are the base's. */
  baseWorks: number;
  baseArrangements: number;
  /** Per base work: 1 when tombstoned (removed, or changed and so in the overlay). */
  dead: Uint8Array;
  /** The overlay's works alone, numbered from 0 (its words, vocabulary and bound classes). */
  over: ResolveCatalog;
  /** Per overlay work: the last base id it sorts after in listing order (-1: before every one). */
  insertAfter: Int32Array;
  /** Per role, the live arrangements fitting it (the base's less the tombstoned, plus the overlay's). */
  liveByRole: Map<MusicRole, number>;
}

/** The slug table of a catalog that is not layered (a layered one's is not a table: catalog-layer.ts). */
export function slugTableOf(catalog: ResolveCatalog): SlugTable {
  const slugs = catalog.works.slugs;
  if (!(slugs instanceof SlugTable)) throw new Error('resolve: a layered catalog has no slug table of its own');
  return slugs;
}

/** The work at catalog order `order`. */
export function workAt(catalog: ResolveCatalog, order: number): PreparedWork {
  const w = catalog.works;
  const first = w.firstArrangement[order]!;
  return {
    order,
    slug: w.slugs.at(order),
    hasPublicScore: (w.flags[order]! & WORK_HAS_PUBLIC_SCORE) !== 0,
    hasHeldScore: (w.flags[order]! & WORK_HAS_HELD_SCORE) !== 0,
    compositionPasses: (w.flags[order]! & WORK_COMPOSITION_PASSES) !== 0,
    firstArrangement: first,
    arrangementCount: w.firstArrangement[order + 1]! - first,
  };
}

/** The catalog order of the work with this slug, or -1. */
export function orderOfSlug(catalog: ResolveCatalog, slug: string): number {
  return catalog.works.slugs.indexOf(slug);
}

/** The records a catalog built in memory holds; the server passes its own on-demand source. */
export function inMemoryRecords(catalog: ResolveCatalog): RecordSource {
  const records = catalog.records;
  if (!records) throw new Error('resolve: this catalog holds no records; pass a record source');
  return (order) => records[order]!;
}

/** Arrangement `i` and its work's record. */
export function arrangementAt(
  catalog: ResolveCatalog,
  records: RecordSource,
  i: number,
): { work: WorkRecord; arrangement: ArrangementRecord } {
  const order = catalog.arrangementWork[i]!;
  const work = records(order);
  const arrangement = work.arrangements[i - catalog.works.firstArrangement[order]!];
  if (!arrangement)
    throw new Error(
      `resolve: record ${work.slug} does not match the resolve index (arrangement ${i}); rebuild the site`,
    );
  return { work, arrangement };
}

/** A usable asset is what a caller can reuse: public, with a download link. */
export function isUsable(asset: AssetRecord): boolean {
  return asset.access === 'public' && asset.links.download !== null;
}

/** Asset rights: not unknown or under rights review, and licensed unless public domain. */
export function assetRightsPass(asset: AssetRecord): boolean {
  const status = fold(asset.rightsStatus);
  if (status === '' || status === 'unknown' || status.includes('rights-review')) return false;
  return status === 'public-domain' || asset.license !== null;
}

/**
 * The audio the archive rendered from an arrangement's score, as the file resolve can offer for
 * `mp3` (docs/audio.md, "Rendered from the score"): the score asset's id, rights and links, the
 * rendered master MP3's digest and link, and the rendered audio's review state (human-listening-
 * approved only when a person approved exactly this audio). `renderedAudio` marks it as rendered.
 */
export function renderedMp3Asset(a: ArrangementRecord): AssetRecord | null {
  const view = renderedView(a.assets);
  if (!view) return null;
  const score = a.assets.find((x) => x.id === view.assetId)!;
  if (!isUsable(score)) return null;
  const mp3 = view.master.mp3;
  return {
    ...score,
    kind: 'mp3',
    title: `${score.title} (rendered audio)`,
    mediaType: 'audio/mpeg',
    sha256: mp3.sha256,
    byteLength: mp3.byteLength,
    reviewState: view.audio.reviewState,
    reviewStatus: REVIEW_STATE_LABELS[view.audio.reviewState],
    technicalChecks: null,
    excerpt: null,
    measured: null,
    renderedAudio: view.audio,
    links: { download: mp3.url, sourcePage: score.links.sourcePage },
  };
}

/**
 * The asset used for each usable kind: the best review state, then the lowest id. For `mp3`, the
 * audio rendered from the arrangement's score stands in when no contributed MP3 has a better or
 * equal review state (a contributed recording first).
 */
export function usableAssets(a: ArrangementRecord): Map<AssetKind, AssetRecord> {
  const byKind = new Map<AssetKind, AssetRecord>();
  for (const asset of a.assets) {
    if (!isUsable(asset)) continue;
    const current = byKind.get(asset.kind);
    if (
      !current ||
      REVIEW_PREFERENCE[asset.reviewState] < REVIEW_PREFERENCE[current.reviewState] ||
      (REVIEW_PREFERENCE[asset.reviewState] === REVIEW_PREFERENCE[current.reviewState] && asset.id < current.id)
    ) {
      byKind.set(asset.kind, asset);
    }
  }
  const rendered = renderedMp3Asset(a);
  const mp3 = byKind.get('mp3');
  if (rendered && (!mp3 || REVIEW_PREFERENCE[rendered.reviewState] < REVIEW_PREFERENCE[mp3.reviewState]))
    byKind.set('mp3', rendered);
  return byKind;
}

const TERRITORIES = ['US', 'EU', 'CA'] as const;

/** The composition layer: permission documented, or public domain in every territory. */
export function compositionCheck(record: WorkRecord): { passes: boolean; detail: string } {
  const c = record.rights.composition;
  const t = record.rights.territories;
  const notPd = TERRITORIES.filter((k) => t[k].status !== 'public-domain');
  const territoryWords = TERRITORIES.map((k) => `${k}: ${t[k].status}`).join(', ');
  // The rule itself is src/domain/rights-cleared.ts; the branches below only choose the words.
  const cleared = compositionCleared(
    c.status,
    TERRITORIES.map((k) => t[k].status),
  );
  if (cleared && c.status === 'permission-documented') {
    return {
      passes: true,
      detail: `Composition: permission documented (${c.note}). Territories: ${territoryWords}; carry the territory notes forward.`,
    };
  }
  if (cleared) {
    const world = record.rights.worldwide;
    return {
      passes: true,
      detail: `Composition: public domain in the US, the EU and Canada (${c.note}).${world ? ` Worldwide: ${world.status === 'public-domain' ? 'public domain in every country.' : world.note}` : ''}`,
    };
  }
  if (c.status === 'public-domain') {
    const which = notPd.map((k) => `${k} ${t[k].status} (${t[k].note})`).join('; ');
    return {
      passes: false,
      detail: `Composition is marked public domain, but not in every territory: ${which}. Not cleared until the territory status is settled.`,
    };
  }
  return {
    passes: false,
    detail: `Composition rights are ${c.status} (${c.note}); reuse needs public domain or documented permission.`,
  };
}

/** An edition or recording layer as the index stores it, by the one rule (src/domain/rights-cleared.ts). */
function layerCheck(state: 'cleared' | 'not-applicable' | 'not-cleared'): number {
  return state === 'cleared' ? LAYER_PASS : state === 'not-applicable' ? LAYER_NOT_APPLICABLE : LAYER_FAIL;
}

/**
 * The request-independent readiness of one arrangement: THE rule. Resolve's index columns
 * (buildResolveCatalog) and every reuse summary (recordingClearedForReuse: the JSON record's
 * `reuse`, the Markdown record and the HTML "Reuse at a glance") are computed with it, so they
 * cannot disagree. `staticReady`: no request can make the arrangement ready
 * when it is false (composition, listening approval, edition and recording layers).
 */
export function arrangementReadiness(
  compositionPasses: boolean,
  a: ArrangementRecord,
): { reviewPasses: boolean; edition: number; recording: number; staticReady: boolean } {
  const edition = layerCheck(editionState(a.rights.edition.status, a.rights.license));
  const recording = layerCheck(recordingState(a.rights.recording.status, a.rights.license));
  // Listening approval: the arrangement's, or a person's approval of exactly the audio rendered
  // from its score (a rendered arrangement a person approved; never one held for rights review).
  const reviewPasses =
    a.reviewState === 'human-listening-approved' ||
    (a.reviewState !== 'rights-review-required' && renderedView(a.assets)?.approved === true);
  return {
    reviewPasses,
    edition,
    recording,
    staticReady: compositionPasses && reviewPasses && edition !== LAYER_FAIL && recording !== LAYER_FAIL,
  };
}

/** One file's readiness, the same rule for the index's kind bits and the summaries: public with a link, review state cleared for its kind, rights cleared. */
export function assetReadiness(asset: AssetRecord): { usable: boolean; review: boolean; rights: boolean } {
  return {
    usable: isUsable(asset),
    review: assetReviewPasses(asset.kind, asset.reviewState),
    rights: assetRightsPass(asset),
  };
}

/**
 * Whether a recording (an audible file) of an arrangement is cleared for reuse by the rule
 * resolve applies to a `reuse` answer asking for its format: the arrangement is statically ready
 * (arrangementReadiness) and the file is (assetReadiness).
 */
export function recordingClearedForReuse(
  record: WorkRecord,
  arrangement: ArrangementRecord,
  asset: AssetRecord,
): boolean {
  const f = assetReadiness(asset);
  return (
    arrangementReadiness(compositionCheck(record).passes, arrangement).staticReady && f.usable && f.review && f.rights
  );
}

/** The recordings (MP3) of a work and how many of them are cleared for reuse: the summary every rendering shows. */
export function reuseSummary(record: Pick<WorkRecord, 'rights' | 'arrangements'>): {
  recordings: number;
  recordingsCleared: number;
} {
  const recordings = record.arrangements.flatMap((a) =>
    a.assets.filter((x) => x.kind === 'mp3').map((x) => ({ a, x })),
  );
  return {
    recordings: recordings.length,
    recordingsCleared: recordings.filter(({ a, x }) => recordingClearedForReuse(record as WorkRecord, a, x)).length,
  };
}

/** `words`, memoized: styles, moods, genres and periods repeat across a catalog. */
function memoWords(): (text: string) => string[] {
  const cache = new Map<string, string[]>();
  return (text) => {
    let w = cache.get(text);
    if (!w) {
      w = words(text);
      cache.set(text, w);
    }
    return w;
  };
}

/** Compressed rows from per-item word lists (vocabulary ids), plus the inverted postings. */
function compress(vocab: Vocabulary, lists: string[][]): WordField {
  const start = new Int32Array(lists.length + 1);
  const perItem: number[][] = [];
  let total = 0;
  for (let i = 0; i < lists.length; i++) {
    const ids = vocab.idsOf(lists[i]!);
    perItem.push(ids);
    total += ids.length;
    start[i + 1] = total;
  }
  const ids = new Int32Array(total);
  perItem.forEach((l, i) => ids.set(l, start[i]!));
  const { postingStart, postings } = invert(vocab.words.length, lists.length, start, ids);
  return { start, ids, postingStart, postings };
}

/** Postings (items per word id) from compressed rows (word ids per item); items come out ascending. */
export function invert(
  vocabSize: number,
  items: number,
  start: Int32Array,
  ids: Int32Array,
): { postingStart: Int32Array; postings: Int32Array } {
  const counts = new Int32Array(vocabSize + 1);
  for (let k = 0; k < ids.length; k++) counts[ids[k]! + 1]!++;
  for (let v = 0; v < vocabSize; v++) counts[v + 1]! += counts[v]!;
  const postingStart = Int32Array.from(counts);
  const fill = Int32Array.from(counts);
  const postings = new Int32Array(ids.length);
  for (let i = 0; i < items; i++) for (let k = start[i]!; k < start[i + 1]!; k++) postings[fill[ids[k]!]!++] = i;
  return { postingStart, postings };
}

/**
 * One arrangement as the resolve catalog holds it: its request-independent column values (every
 * column but `slugOrder`, which ranks its work among the catalog's slugs) and the words of its
 * text fields, already widened by meaning.
 */
export interface ArrangementRow {
  roleMask: number;
  intendedBit: number;
  narrationClass: number;
  usableMask: number;
  reviewOkMask: number;
  rightsOkMask: number;
  flags: number;
  edition: number;
  recording: number;
  duration: number;
  rank: number;
  id: number;
  style: string[];
  instrumentation: string[];
  mood: string[];
}

/** What the resolve catalog holds about one work, from its record alone (its arrangements in record order). */
export interface ResolveWorkRow {
  slug: string;
  /** Catalog order key: composer sort name, title, slug (folded), as GET /api/v1/works lists. */
  sortKey: string;
  /** WORK_HAS_PUBLIC_SCORE | WORK_COMPOSITION_PASSES | WORK_HAS_HELD_SCORE. */
  flags: number;
  /** Title words (title, original title, aliases, work and catalog numbers, composer name forms). */
  title: string[];
  /** Composer name forms' words. */
  composer: string[];
  arrangements: ArrangementRow[];
}

/**
 * The resolve rows of works, given what the catalog shares (its profiles, instruments and
 * meaning vocabulary): THE per-work computation of the resolve catalog, so a catalog built whole
 * and a change indexed on its own (an overlay) cannot disagree about a work. Styles, genres,
 * moods and composers repeat across a catalog: the returned function memoizes them.
 */
export function resolveRowBuilder(
  profiles: Map<string, ProfileHead>,
  instruments: InstrumentRecord[],
  meaning: Meaning,
): (record: WorkRecord) => ResolveWorkRow {
  const memo = memoWords();
  // Field word lists repeat across a catalog: expanded once per distinct list.
  const expanded = new Map<string, string[]>();
  const widen = (list: string[]) => {
    const key = list.join(' ');
    let out = expanded.get(key);
    if (!out) {
      out = meaning.expand(list);
      expanded.set(key, out);
    }
    return out;
  };
  const foldedSortName = new Map<string, string>();
  // Composer name forms repeat across a composer's works; fold them once per composer.
  const composerCache = new Map<string, string[]>();
  return (record) => {
    let sortName = foldedSortName.get(record.composer.sortName);
    if (sortName === undefined) {
      sortName = fold(record.composer.sortName);
      foldedSortName.set(record.composer.sortName, sortName);
    }
    const c = record.composer;
    const composerKey = `${c.name}\u0000${c.sortName}\u0000${c.aliases.join('\u0000')}`;
    let composer = composerCache.get(composerKey);
    if (!composer) {
      composer = [...new Set(words(composerNameForms(c.name, c.sortName, c.aliases)))];
      composerCache.set(composerKey, composer);
    }
    const compositionPasses = compositionCheck(record).passes;
    const arrangements = record.arrangements.map((a): ArrangementRow => {
      let usable = 0;
      let reviewOk = 0;
      let rightsOk = 0;
      for (const [kind, asset] of usableAssets(a)) {
        const f = assetReadiness(asset);
        if (f.usable) usable |= KIND_BIT[kind];
        if (f.review) reviewOk |= KIND_BIT[kind];
        if (f.rights) rightsOk |= KIND_BIT[kind];
      }
      const { edition, recording, reviewPasses, staticReady } = arrangementReadiness(compositionPasses, a);
      const rendered = renderedView(a.assets);
      const r = a.intendedRole;
      const style = memo(a.style);
      // A parenthesized qualifier names no instrument ("Celesta (music-box voice)" is no voice).
      const instrumentation = [...memo(withoutQualifiers(a.instrumentation)), '', ...style];
      return {
        roleMask: [r, ...a.alsoSuits].reduce((m, role) => m | ROLE_BIT[role], 0),
        intendedBit: ROLE_BIT[r],
        narrationClass:
          r === 'music-bed' || r === 'music-ambient' ? 2 : r === 'music-lead' || r === 'music-sleep-lead' ? 0 : 1,
        usableMask: usable,
        reviewOkMask: reviewOk,
        rightsOkMask: rightsOk,
        flags:
          // No request can make an arrangement ready when one of these fails (see couldBeReady).
          (staticReady ? FLAG_STATIC_READY : 0) |
          (a.renderingProfileSlugs.every((s) => profiles.get(s)?.status === 'approved') ? FLAG_PROFILES_APPROVED : 0) |
          (reviewPasses ? FLAG_REVIEW_PASSES : 0) |
          // Loopable as marked, unless its rendered loop was measured with a gap at the seam.
          (a.loopable && loopSeam(a.assets).state !== 'gap' ? FLAG_LOOPABLE : 0) |
          (a.trimmable ? FLAG_TRIMMABLE : 0) |
          (compositionPasses ? FLAG_COMPOSITION_PASSES : 0) |
          (rendered?.cuts.has(30) ? FLAG_CUT_30 : 0) |
          (rendered?.cuts.has(60) ? FLAG_CUT_60 : 0),
        edition,
        recording,
        // Measured beats declared (docs/audio.md): the duration of its measured recording when there is one.
        duration: effectiveDurationSeconds(a.durationSeconds, a.assets),
        rank: a.rank,
        id: a.id,
        // '' separates a field's texts: no vocabulary phrase is read across two (meaning.ts tiers).
        style: widen([...style, '', ...memo(record.genre), '', ...memo(record.period), '', ...words(a.title)]),
        instrumentation: widen(instrumentation),
        mood: widen([...a.moods.flatMap((m) => ['', ...memo(m)]), '', ...style]),
      };
    });
    return {
      slug: record.slug,
      sortKey: `${sortName}\u0000${fold(record.title)}\u0000${record.slug}`,
      flags:
        (record.sourceAssets.some((a) => isUsable(a) && (KIND_BIT[a.kind] & MUSICXML_MASK) !== 0)
          ? WORK_HAS_PUBLIC_SCORE
          : 0) |
        (compositionPasses ? WORK_COMPOSITION_PASSES : 0) |
        (record.sourceAssets.some(
          (a) => (KIND_BIT[a.kind] & MUSICXML_MASK) !== 0 && a.reviewState === 'rights-review-required',
        )
          ? WORK_HAS_HELD_SCORE
          : 0),
      // Titles are mostly unique: folded directly.
      title: [
        ...words(record.title),
        ...words(record.originalTitle ?? ''),
        ...(record.aliases ?? []).flatMap((a) => words(a)),
        ...words(record.workNumber ?? ''),
        ...record.catalogNumbers.flatMap((n) => catalogNumberWords(n.catalog, n.number)),
        ...composer,
      ],
      composer,
      arrangements,
    };
  };
}

/** The meaning vocabulary of a catalog: curated terms, its instruments, and its genres and periods. */
export function catalogMeaning(
  records: readonly WorkRecord[],
  instruments: InstrumentRecord[],
  options: { wordnet?: boolean } = {},
): Meaning {
  return meaningOf(
    { genres: distinctSorted(records.map((r) => r.genre)), periods: distinctSorted(records.map((r) => r.period)) },
    instruments,
    options,
  );
}

/** The catalog's distinct genres and periods, sorted: all its meaning vocabulary reads of its works. */
export interface GenresAndPeriods {
  genres: string[];
  periods: string[];
}

export const distinctSorted = (values: Iterable<string>): string[] =>
  [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The meaning vocabulary of a catalog with these genres and periods (`catalogMeaning` without the records). */
export function meaningOf(
  of: GenresAndPeriods,
  instruments: InstrumentRecord[],
  options: { wordnet?: boolean } = {},
): Meaning {
  return new Meaning(
    buildVocabulary(
      { instruments, genres: of.genres.map((name) => ({ name })), periods: of.periods },
      options.wordnet === false ? null : wordNet(),
    ),
  );
}

export function buildResolveCatalog(
  recordList: Iterable<WorkRecord>,
  profileList: ProfileHead[],
  instruments: InstrumentRecord[] = [],
  options: { wordnet?: boolean } = {},
): ResolveCatalog {
  const records = [...recordList];
  const profiles = new Map(profileList.map((p) => [p.slug, p]));
  const meaning = catalogMeaning(records, instruments, options);
  const rowOf = resolveRowBuilder(profiles, instruments, meaning);
  const sorted = records.map((record) => ({ record, row: rowOf(record) }));
  sorted.sort((a, b) => (a.row.sortKey < b.row.sortKey ? -1 : a.row.sortKey > b.row.sortKey ? 1 : 0));
  return {
    ...resolveCatalogOfRows(
      sorted.map((s) => s.row),
      profiles,
      meaning,
    ),
    records: sorted.map((s) => s.record),
  };
}

/**
 * The resolve catalog of works' rows (`resolveRowBuilder`, made with `meaning`), in sort key
 * order: what `buildResolveCatalog` makes of the records, without them (a build that reads its
 * records one at a time keeps only their rows).
 */
export function resolveCatalogOfRows(
  rows: readonly ResolveWorkRow[],
  profiles: Map<string, ProfileHead>,
  meaning: Meaning,
): ResolveCatalog {
  for (let k = 1; k < rows.length; k++)
    if (!(rows[k - 1]!.sortKey < rows[k]!.sortKey)) throw new Error(`resolve rows out of order at ${rows[k]!.slug}`);
  const slugs = rows.map((row) => row.slug);
  const slugTable = SlugTable.fromList(slugs);
  const slugOrder = new Int32Array(slugs.length);
  slugTable.bySlug.forEach((order, rank) => (slugOrder[order] = rank));
  const workFlags = new Uint8Array(slugs.length);
  const firstArrangement = new Int32Array(slugs.length + 1);

  const titleWords: string[][] = [];
  const composerWords: string[][] = [];
  const arrangementWorkList: number[] = [];
  const arrangementRows: ArrangementRow[] = [];
  const styleWords: string[][] = [];
  const instrumentationWords: string[][] = [];
  const moodWords: string[][] = [];
  rows.forEach((row, order) => {
    workFlags[order] = row.flags;
    firstArrangement[order] = arrangementRows.length;
    composerWords.push(row.composer);
    titleWords.push(row.title);
    for (const a of row.arrangements) {
      arrangementWorkList.push(order);
      arrangementRows.push(a);
      styleWords.push(a.style);
      instrumentationWords.push(a.instrumentation);
      moodWords.push(a.mood);
    }
  });
  firstArrangement[slugs.length] = arrangementRows.length;
  const arrangementWork = Int32Array.from(arrangementWorkList);

  const n = arrangementRows.length;
  const cols = newColumns(n);
  for (let i = 0; i < n; i++) {
    const a = arrangementRows[i]!;
    for (const name of ROW_COLUMNS) cols[name][i] = a[name];
    cols.slugOrder[i] = slugOrder[arrangementWork[i]!]!;
  }

  const all = new Set<string>();
  for (const lists of [titleWords, composerWords, styleWords, instrumentationWords, moodWords])
    for (const l of lists) for (const w of l) all.add(w);
  const vocab = new Vocabulary(all);
  return {
    works: { count: slugs.length, slugs: slugTable, slugOrder, flags: workFlags, firstArrangement },
    arrangementWork,
    arrangementCount: n,
    cols,
    byRole: roleListsOf(cols, arrangementWork, n),
    profiles,
    vocab,
    meaning,
    style: compress(vocab, styleWords),
    instrumentation: compress(vocab, instrumentationWords),
    mood: compress(vocab, moodWords),
    title: compress(vocab, titleWords),
    composer: compress(vocab, composerWords),
    scratch: newScratch(slugs.length),
  };
}

/**
 * Every role's lists over filled columns: its arrangements split by FLAG_STATIC_READY, its works
 * counted (arrangements come in work order, so as the work changes), and its bound classes.
 */
export function roleListsOf(cols: Columns, arrangementWork: Int32Array, n: number): Map<MusicRole, RoleLists> {
  const roles = MUSIC_ROLES.map((role) => ({
    role,
    bit: ROLE_BIT[role],
    staticReady: [] as number[],
    rest: [] as number[],
    works: 0,
    lastWork: -1,
  }));
  for (let i = 0; i < n; i++) {
    const mask = cols.roleMask[i]!;
    if (mask === 0) continue;
    const work = arrangementWork[i]!;
    const ready = (cols.flags[i]! & FLAG_STATIC_READY) !== 0;
    for (const lists of roles) {
      if ((mask & lists.bit) === 0) continue;
      (ready ? lists.staticReady : lists.rest).push(i);
      if (lists.lastWork !== work) {
        lists.works++;
        lists.lastWork = work;
      }
    }
  }
  let ties: Int32Array | undefined;
  return new Map(
    roles.map((l) => {
      ties ??= tieOrder(cols, n);
      const staticReady = Int32Array.from(l.staticReady);
      const rest = Int32Array.from(l.rest);
      return [l.role, { staticReady, rest, works: l.works, ...boundClasses(cols, staticReady, rest, ties) }];
    }),
  );
}

/** Bits of `flags` that only the duration check reads (not part of a bound class). */
const DURATION_FLAGS = FLAG_LOOPABLE | FLAG_TRIMMABLE | FLAG_CUT_30 | FLAG_CUT_60;

/** Positions must fit below this in a packed sort value (class * TIE_SPAN + position). */
const TIE_SPAN = 2 ** 24;

/**
 * Every arrangement's position in tie-break order (editorial rank, work slug, arrangement id),
 * computed once for all roles: a role's classes are then sorted as plain numbers.
 */
export function tieOrder(cols: Columns, n: number): Int32Array {
  const order = Int32Array.from({ length: n }, (_, i) => i);
  let maxRank = 0;
  let maxSlug = 0;
  let maxId = 0;
  let minimum = 0;
  for (let i = 0; i < n; i++) {
    maxRank = Math.max(maxRank, cols.rank[i]!);
    maxSlug = Math.max(maxSlug, cols.slugOrder[i]!);
    maxId = Math.max(maxId, cols.id[i]!);
    minimum = Math.min(minimum, cols.rank[i]!, cols.id[i]!);
  }
  const slugSpan = maxSlug + 1;
  const idSpan = maxId + 1;
  if (minimum < 0 || (maxRank + 1) * slugSpan * idSpan * (n + 1) >= Number.MAX_SAFE_INTEGER) {
    order.sort(
      (a, b) => cols.rank[a]! - cols.rank[b]! || cols.slugOrder[a]! - cols.slugOrder[b]! || cols.id[a]! - cols.id[b]!,
    );
    return order;
  }
  // The usual case: the three keys and the index packed into one number, sorted natively.
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i++)
    packed[i] = ((cols.rank[i]! * slugSpan + cols.slugOrder[i]!) * idSpan + cols.id[i]!) * (n + 1) + i;
  packed.sort();
  for (let k = 0; k < n; k++) order[k] = packed[k]! % (n + 1);
  return order;
}

/**
 * Group a role's arrangements into bound classes (see RoleLists.order): same flags (but the
 * duration ones), intended role, narration class, usable, review and rights kind masks, edition
 * and recording layers; each class in tie-break order (`ties`, from tieOrder). Classes are
 * numbered by first appearance, so the result depends only on the columns. Done by the build
 * (and, for an index written before the order existed, once when it is loaded).
 */
export function boundClasses(
  cols: Columns,
  staticReady: Int32Array,
  rest: Int32Array,
  ties: Int32Array,
): { order: Int32Array; classStart: Int32Array } {
  const n = staticReady.length + rest.length;
  if (ties.length >= TIE_SPAN)
    throw new Error(`resolve index: ${ties.length} arrangements, at most ${TIE_SPAN - 1} supported`);
  const position = new Int32Array(ties.length);
  for (let k = 0; k < ties.length; k++) position[ties[k]!] = k;
  const ids = new Map<number, Map<number, number>>();
  let classes = 0;
  const packed = new Float64Array(n);
  const at = (k: number) => (k < staticReady.length ? staticReady[k]! : rest[k - staticReady.length]!);
  for (let k = 0; k < n; k++) {
    const i = at(k);
    const outer =
      (((cols.flags[i]! & ~DURATION_FLAGS) |
        (cols.intendedBit[i]! << 8) |
        (cols.narrationClass[i]! << 16) |
        (cols.edition[i]! << 18) |
        (cols.recording[i]! << 20)) >>>
        0) *
        65536 +
      cols.rightsOkMask[i]!;
    const inner = cols.usableMask[i]! * 65536 + cols.reviewOkMask[i]!;
    let byInner = ids.get(outer);
    if (!byInner) ids.set(outer, (byInner = new Map()));
    let c = byInner.get(inner);
    if (c === undefined) byInner.set(inner, (c = classes++));
    packed[k] = c * TIE_SPAN + position[i]!;
  }
  packed.sort();
  const order = new Int32Array(n);
  const classStart = new Int32Array(classes + 1);
  for (let k = 0; k < n; k++) {
    const v = packed[k]!;
    const c = Math.floor(v / TIE_SPAN);
    order[k] = ties[v - c * TIE_SPAN]!;
    classStart[c + 1]!++;
  }
  for (let c = 0; c < classes; c++) classStart[c + 1]! += classStart[c]!;
  return { order, classStart };
}

export function newScratch(works: number): ResolveCatalog['scratch'] {
  return { workStamp: new Int32Array(works), generation: 0, bounds: new Map() };
}

export const RESOLVE_INDEX_FORMAT = 4;
/** The per-arrangement columns an arrangement's row gives (every one but `slugOrder`, which ranks its work). */
export const ROW_COLUMNS = [
  'roleMask',
  'intendedBit',
  'narrationClass',
  'usableMask',
  'reviewOkMask',
  'rightsOkMask',
  'flags',
  'edition',
  'recording',
  'duration',
  'rank',
  'id',
] as const satisfies ReadonlyArray<keyof Columns & keyof ArrangementRow>;
const COLUMN_NAMES = [...ROW_COLUMNS, 'slugOrder'] as const;
const WORD_FIELDS = ['style', 'instrumentation', 'mood', 'title', 'composer'] as const;

/** The prepared catalog as index file bytes (records and profiles are not part of it). */
export function encodeResolveCatalog(catalog: ResolveCatalog): Buffer {
  if (catalog.layer || !(catalog.works.slugs instanceof SlugTable))
    throw new Error('resolve index: a layered catalog is not written; merge its overlay (mergeResolveCatalog)');
  const sections: Record<
    string,
    Int32Array | Uint32Array | Uint16Array | Uint8Array | string[] | { bytes: Uint8Array }
  > = {
    ...(catalog.works.slugs as SlugTable).sections(),
    workSlugOrder: catalog.works.slugOrder,
    workFlags: catalog.works.flags,
    firstArrangement: catalog.works.firstArrangement,
    arrangementWork: catalog.arrangementWork,
    vocab: catalog.vocab.words,
  };
  for (const name of COLUMN_NAMES) sections[`cols.${name}`] = catalog.cols[name];
  for (const [role, l] of catalog.byRole) {
    sections[`role.${role}.staticReady`] = l.staticReady;
    sections[`role.${role}.rest`] = l.rest;
    sections[`role.${role}.order`] = l.order;
    sections[`role.${role}.classStart`] = l.classStart;
  }
  for (const name of WORD_FIELDS) {
    const f = catalog[name];
    sections[`${name}.start`] = f.start;
    sections[`${name}.ids`] = f.ids;
    sections[`${name}.postingStart`] = f.postingStart;
    sections[`${name}.postings`] = f.postings;
  }
  const roleWorks = Object.fromEntries([...catalog.byRole].map(([role, l]) => [role, l.works]));
  return encodeIndex(
    {
      kind: 'resolve',
      version: RESOLVE_INDEX_FORMAT,
      works: catalog.works.count,
      arrangements: catalog.arrangementCount,
      roleWorks,
      vocabulary: catalog.meaning.terms,
    },
    sections,
  );
}

/** The prepared catalog from its index file and the build's profiles; records come from a RecordSource. */
export function decodeResolveCatalog(file: DecodedIndex, profileList: ProfileHead[]): ResolveCatalog {
  if (file.meta.kind !== 'resolve' || file.meta.version !== RESOLVE_INDEX_FORMAT) {
    throw new Error(
      `resolve index: kind ${String(file.meta.kind)} version ${String(file.meta.version)}, expected resolve version ${RESOLVE_INDEX_FORMAT} (rebuild the site)`,
    );
  }
  const count = file.meta.works as number;
  const arrangements = file.meta.arrangements as number;
  const roleWorks = file.meta.roleWorks as Record<string, number>;
  let ties: Int32Array | undefined;
  const cols = Object.fromEntries(
    COLUMN_NAMES.map((name) => {
      const kind =
        name === 'usableMask' || name === 'reviewOkMask' || name === 'rightsOkMask'
          ? 'u16'
          : name === 'duration' || name === 'rank' || name === 'id' || name === 'slugOrder'
            ? 'i32'
            : 'u8';
      return [
        name,
        kind === 'u16' ? file.u16(`cols.${name}`) : kind === 'i32' ? file.i32(`cols.${name}`) : file.u8(`cols.${name}`),
      ];
    }),
  ) as unknown as Columns;
  const field = (name: (typeof WORD_FIELDS)[number]): WordField => ({
    start: file.i32(`${name}.start`),
    ids: file.i32(`${name}.ids`),
    postingStart: file.i32(`${name}.postingStart`),
    postings: file.i32(`${name}.postings`),
  });
  return {
    works: {
      count,
      slugs: decodeSlugTable(file),
      slugOrder: file.i32('workSlugOrder'),
      flags: file.u8('workFlags'),
      firstArrangement: file.i32('firstArrangement'),
    },
    arrangementWork: file.i32('arrangementWork'),
    arrangementCount: arrangements,
    cols,
    byRole: new Map(
      MUSIC_ROLES.map((role) => {
        const staticReady = file.i32(`role.${role}.staticReady`);
        const rest = file.i32(`role.${role}.rest`);
        // An index written before the bound classes existed: derived here, once (milliseconds).
        const classes = file.has(`role.${role}.order`)
          ? { order: file.i32(`role.${role}.order`), classStart: file.i32(`role.${role}.classStart`) }
          : boundClasses(cols, staticReady, rest, (ties ??= tieOrder(cols, arrangements)));
        return [role, { staticReady, rest, works: roleWorks[role] ?? 0, ...classes }];
      }),
    ),
    profiles: new Map(profileList.map((p) => [p.slug, p])),
    vocab: Vocabulary.fromSorted(file.strings('vocab')),
    meaning: new Meaning(file.meta.vocabulary as MeaningTerm[]),
    style: field('style'),
    instrumentation: field('instrumentation'),
    mood: field('mood'),
    title: field('title'),
    composer: field('composer'),
    scratch: newScratch(count),
  };
}
