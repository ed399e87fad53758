/**
 * Proposal builders (pure): given the current front matter of the target work (parsed, plain
 * data) and a stored contribution, produce the new front matter, a new work, or a profile file.
 * Nothing here reads the disk; the service gives it what it needs (docs/review.md).
 *
 * Boundaries (docs/review.md, "Review-state boundaries"):
 *   - contributed assets land as `pending`, whatever the submitter claimed; only a NAMED human
 *     reviewer asserting a state through the admin API lands it higher (ReviewerAssertions);
 *   - files whose rights are not cleared land as `rights-review-required` with access
 *     `admin-only`, and no assertion lifts that: rights review is its own decision;
 *   - a profile never lands `approved` from a contribution (at most `candidate`, approver cleared).
 */
import { CLEARABLE_COMPOSITION_STATUSES } from '../rights-cleared.ts';
import type { PersonContent } from '../../schemas/person.ts';
import type { ContributedComposer } from '../../schemas/contribution.ts';
import { personSlug, type Evidence } from '../people.ts';
import { fold } from '../text.ts';
import type { ArrangementFacts, AssertableState, ReviewerAssertions } from '../../schemas/review.ts';
import type { AssetMeasurement } from '../../schemas/audio.ts';
import type { Static } from '@sinclair/typebox';
import type { Composer } from '../../schemas/work.ts';
import type { ContributionAsset, MusicContributionInput } from '../../schemas/contribution.ts';
import { MUSIC_ROLES, type CatalogReviewState } from '../../schemas/common.ts';
import { parseCatalogNumbers } from '../catalog-numbers.ts';
import { openFileTerms, yearOf, type AuthorFact, type PublicationFact } from '../territory-rights.ts';

export type Data = Record<string, unknown>;

/** A file fetched, verified and stored in the blob store during review. */
export interface VerifiedFile {
  sha256: string;
  byteLength: number;
  /** One line from the technical checks, for the asset's technicalChecks field. */
  technicalChecks: string | null;
  /** MP3/WAV: what the archive measured, with the declared values and their disagreements (docs/audio.md). */
  measured?: AssetMeasurement | null;
  /** Whether the archive's own technical checks passed on this copy (absent: not run). */
  checksPassed?: boolean;
}

/** A composer as the catalog records it (the Composer schema). */
export type ComposerFacts = Static<typeof Composer>;

export interface ContributionProposalInput {
  trackingCode: string;
  submission: MusicContributionInput;
  /** Front matter of works/<slug>/index.md as it is now, or null when there is no such work. */
  work: Data | null;
  /** SHA-256 of the current work file (null when it does not exist). */
  workFileSha256: string | null;
  /** SHA-256 of an existing asset of the work, by id (file assets hashed by the caller). */
  assetSha256: (id: number) => string | null;
  /** Verified copies by index into submission.assets; null where not (yet) verified. */
  verified: (VerifiedFile | null)[];
  assertions: ReviewerAssertions | null;
  /** Arrangement facts an editor set in review (each given field replaces the declaration). */
  editorFacts?: ArrangementFacts | null;
  /** Composers already in the catalog (a new work must name one: life dates decide its rights). */
  knownComposers: ComposerFacts[];
  /** A person record as main (or the batch's line) has it, by slug; null when there is none. */
  person?: (slug: string) => PersonContent | null;
  /** The editor who accepted the item (key label) and when: recorded with the facts it adds. */
  accepted?: { by: string; atUtc: string } | null;
  /** For rendering-profile: the fetched profile definition bytes; the current file, if any. */
  profileBytes?: Buffer | null;
  /** The year the per-territory rights are decided for (default: the current UTC year). */
  asOfYear?: number;
}

/** A person record a proposal adds or changes (people/<slug>.json). */
export interface PersonChange {
  slug: string;
  before: PersonContent | null;
  after: PersonContent;
}

export type ContentChange =
  | { kind: 'work'; slug: string; before: Data | null; after: Data; body: string; people?: PersonChange[] }
  | { kind: 'profile'; slug: string; content: string };

/** The proposal cannot be built as asked; `reasons` say why (shown on the review and in 409s). */
export class ProposalError extends Error {
  readonly reasons: string[];
  /** True when the reason is a moved target (stale baseSha256, vanished work): re-submit against the current record. */
  readonly stale: boolean;
  /** True when the change would leave the record as it is (a correction to the value it already has). */
  readonly noChange: boolean;
  constructor(reasons: string[], stale = false, noChange = false) {
    super(reasons.join(' '));
    this.reasons = reasons;
    this.stale = stale;
    this.noChange = noChange;
  }
}

// A declared composition status that can be cleared (src/domain/rights-cleared.ts): the proposal
// writes the declared status into every territory, so this is the rule resolve applies.
const CLEARED_COMPOSITION = new Set<string>(CLEARABLE_COMPOSITION_STATUSES);
const UNCLEARED_FILE = new Set(['unknown', 'rights-review-required', 'not-public-domain']);

const DEFAULT_MEDIA_TYPES: Record<string, string> = {
  musicxml: 'application/vnd.recordare.musicxml+xml',
  mxl: 'application/vnd.recordare.musicxml',
  midi: 'audio/midi',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  'score-pdf': 'application/pdf',
  'score-image': 'image/png',
  artwork: 'image/png',
  manifest: 'application/json',
  video: 'video/mp4',
  'source-page': 'text/html',
};

/** "stale" message, or null when the base matches (or none was given). */
export function checkBaseSha256(base: string | null | undefined, current: string | null, what: string): string | null {
  if (!base) return null;
  if (current === null) return `target.baseSha256 names a version of ${what}, which does not exist now.`;
  if (base.toLowerCase() !== current.toLowerCase()) {
    return `target.baseSha256 is stale: ${what} changed since the contribution was prepared (base ${base.toLowerCase()}, now ${current.toLowerCase()}). Re-submit against the current record.`;
  }
  return null;
}

function allAssets(work: Data): Data[] {
  const sources = (work.sourceAssets as Data[] | undefined) ?? [];
  const arrangements = (work.arrangements as Data[] | undefined) ?? [];
  return [...sources, ...arrangements.flatMap((a) => (a.assets as Data[] | undefined) ?? [])];
}

/** The next free asset id within the work (ids are unique across source and arrangement assets). */
export function nextAssetId(work: Data | null): number {
  if (!work) return 1;
  return allAssets(work).reduce((max, a) => Math.max(max, Number(a.id) || 0), 0) + 1;
}

function nextId(items: Data[], key = 'id'): number {
  return items.reduce((max, a) => Math.max(max, Number(a[key]) || 0), 0) + 1;
}

/** Whether this file's rights let it be public: a cleared composition and a declared file status. */
export function rightsCleared(submission: MusicContributionInput, asset: ContributionAsset): boolean {
  return CLEARED_COMPOSITION.has(submission.rights.compositionStatus) && !UNCLEARED_FILE.has(asset.rightsStatus);
}

/**
 * The review state a contributed asset lands in (see the file comment): rights first; then what
 * a named reviewer asserted; else `technical-pass` when the archive's own technical checks passed
 * on the verified copy (the archive's check, never a human review); else
 * `pending`. What the submitter declared never decides it.
 */
export function landedState(
  submission: MusicContributionInput,
  index: number,
  assertions: ReviewerAssertions | null,
  verified: VerifiedFile | null = null,
): CatalogReviewState {
  const asset = submission.assets[index]!;
  if (heldForRights(submission, asset)) return technicalState(index, assertions, verified);
  if (!rightsCleared(submission, asset)) return 'rights-review-required';
  return technicalState(index, assertions, verified);
}

/** What a named reviewer asserted for the file, else what the archive's own checks showed. */
function technicalState(
  index: number,
  assertions: ReviewerAssertions | null,
  verified: VerifiedFile | null,
): CatalogReviewState {
  const asserted = assertions?.assets[index];
  if (asserted) return asserted;
  return verified?.checksPassed === true ? 'technical-pass' : 'pending';
}

/**
 * Whether a contributed file lands held for rights review (`heldForRights`): its own rights are
 * cleared and its terms open, so only the work's composition can keep it from the public; the
 * build publishes it with its technical state once the recorded facts clear the composition
 * (src/domain/people.ts), and holds it again should a corrected fact undo that.
 */
export function heldForRights(submission: MusicContributionInput, asset: ContributionAsset): boolean {
  if (UNCLEARED_FILE.has(asset.rightsStatus)) return false;
  return openFileTerms({
    license: asset.license ?? submission.rights.license ?? null,
    rightsStatus: asset.rightsStatus,
  });
}

/** The asset's technicalChecks text: the archive's one-line summary, marked as the archive's own check. */
function archiveCheckNote(v: VerifiedFile | null): string | null {
  if (!v?.technicalChecks) return null;
  const note =
    v.checksPassed === true
      ? `Archive technical check passed (automated, not human review): ${v.technicalChecks}`
      : v.technicalChecks;
  return note.slice(0, 2000);
}

function contributedAsset(input: ContributionProposalInput, index: number, id: number): Data {
  const s = input.submission;
  const a = s.assets[index]!;
  const v = input.verified[index] ?? null;
  const state = landedState(s, index, input.assertions, v);
  const held = heldForRights(s, a);
  const source: Data = v ? { blob: v.sha256, byteLength: v.byteLength } : { url: a.downloadUrl ?? a.sourcePageUrl };
  return {
    id,
    kind: a.kind,
    title: a.title,
    ...source,
    sourcePageUrl: a.sourcePageUrl,
    mediaType: a.mediaType ?? DEFAULT_MEDIA_TYPES[a.kind] ?? 'application/octet-stream',
    sha256: v?.sha256 ?? a.sha256?.toLowerCase() ?? null,
    ...(v ? {} : { byteLength: null }),
    rightsStatus: a.rightsStatus,
    license: a.license ?? s.rights.license ?? null,
    attribution: a.attribution ?? s.rights.attribution ?? null,
    reviewState: state,
    access: state === 'rights-review-required' ? 'admin-only' : 'public',
    technicalChecks: archiveCheckNote(v),
    ...(v?.measured ? { measured: v.measured } : {}),
    ...(held ? { heldForRights: true } : {}),
  };
}

/**
 * Add the contribution's assets to a work. A score of one movement keeps its `movement` only when
 * the work lists that movement (a new work lists the ones it was sent with; a merged source score
 * of a work without movements is a score of the whole work).
 */
function addAssets(input: ContributionProposalInput, work: Data | null, movements: Data[] = []): Data[] {
  let id = nextAssetId(work);
  const listed = new Set(movements.map((m) => m.number));
  return input.submission.assets.map(({ movement }, i) => {
    const asset = contributedAsset(input, i, id++);
    return movement !== undefined && listed.has(movement) ? { ...asset, movement } : asset;
  });
}

/** The arrangement `id` of `after` (a copy of the work); a contribution naming one the work lacks is refused. */
function arrangementOf(after: Data, slug: string, id: number): Data {
  const target = ((after.arrangements as Data[] | undefined) ?? []).find((a) => a.id === id);
  if (!target) throw new ProposalError([`Work "${slug}" has no arrangement ${id}.`], true);
  return target;
}

/** A new work's movements in order; each score's movement must be one of them (else the reasons say which). */
function movementsOfNewWork(s: MusicContributionInput): Data[] {
  const list = [...(s.work?.movements ?? [])].sort((a, b) => a.number - b.number);
  const reasons: string[] = [];
  list.forEach((m, i) => {
    if (i > 0 && list[i - 1]!.number === m.number) reasons.push(`work.movements lists movement ${m.number} twice.`);
  });
  const numbers = new Set(list.map((m) => m.number));
  s.assets.forEach((a, i) => {
    if (a.movement !== undefined && !numbers.has(a.movement))
      reasons.push(`assets[${i}].movement is ${a.movement}, which work.movements does not list.`);
  });
  if (reasons.length > 0) throw new ProposalError(reasons);
  return list.map((m) => ({ number: m.number, title: m.title }));
}

const clone = <T>(v: T): T => structuredClone(v);

function requireWork(input: ContributionProposalInput): { slug: string; work: Data } {
  const slug = input.submission.target?.workSlug ?? null;
  if (!slug)
    throw new ProposalError([
      `operation "${input.submission.operation}" needs target.workSlug naming an existing work.`,
    ]);
  if (!input.work)
    throw new ProposalError([`The target work "${slug}" does not exist (it may have been removed or renamed).`], true);
  return { slug, work: input.work };
}

function baseCheckOfWork(input: ContributionProposalInput, slug: string): void {
  const t = input.submission.target;
  if (!t?.baseSha256) return;
  const stale =
    t.assetId != null && input.submission.operation === 'score-revision'
      ? checkBaseSha256(t.baseSha256, input.assetSha256(t.assetId), `asset ${t.assetId} of ${slug}`)
      : checkBaseSha256(t.baseSha256, input.workFileSha256, `works/${slug}/index.md`);
  if (stale) throw new ProposalError([stale], true);
}

function parseDuration(text: string | null | undefined): { duration: string; seconds: number } | null {
  const m = /^([0-9]{1,3}):([0-5][0-9])$/.exec(text ?? '');
  if (!m) return null;
  const seconds = Number(m[1]) * 60 + Number(m[2]);
  return seconds >= 1 ? { duration: `${Number(m[1])}:${m[2]}`, seconds } : null;
}

function declaredNote(input: ContributionProposalInput, layer: string): string {
  return `${layer} as declared by the contributor (${input.trackingCode}; territory ${input.submission.rights.territory}) and accepted in review.`;
}

/**
 * The slug a new work would take: the one it names (`target.workSlug`), else the composer's name
 * and the title. The proposal builder reads main at this slug, so a new work never lands over a
 * work that exists by then (an apply re-checks it against main as it is at apply time); null when
 * the submission is no new work or has no title yet.
 */
export function newWorkSlug(s: Pick<MusicContributionInput, 'operation' | 'target' | 'work'>): string | null {
  if (s.operation !== 'new-work') return null;
  if (s.target?.workSlug) return s.target.workSlug;
  const title = s.work?.title?.trim();
  return title ? slugify(`${s.work?.composer ?? ''} ${title}`) : null;
}

/**
 * A slug from a name and title: letters keep their usual Latin spelling (accents dropped, "ß" ->
 * "ss", "æ" -> "ae", "ø" -> "o", "œ" -> "oe", "þ" -> "th": the folding search uses,
 * src/domain/text.ts), everything else becomes "-". Only new slugs are made here: a work's slug is
 * stored in its file and never made again (renaming one would break its links).
 */
export function slugify(text: string): string {
  return fold(text.normalize('NFKC'))
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 160)
    .replace(/-+$/, '');
}

function findComposer(known: ComposerFacts[], name: string): ComposerFacts | null {
  const key = name.trim().toLowerCase();
  return known.find((c) => c.name.toLowerCase() === key || c.aliases.some((a) => a.toLowerCase() === key)) ?? null;
}

/** "Hugo Wolf" -> "Wolf, Hugo" (the last word first); a single word stays as it is. */
export function sortNameOf(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) return name.trim();
  const last = parts.pop()!;
  return `${last}, ${parts.join(' ')}`;
}

const nowUtc = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The stamp an accepted fact carries: who accepted it (key label), when, and through which item. */
function acceptance(input: ContributionProposalInput): Pick<Evidence, 'acceptedBy' | 'acceptedAtUtc' | 'via'> {
  return {
    acceptedBy: input.accepted?.by ?? null,
    acceptedAtUtc: input.accepted?.atUtc ?? nowUtc(),
    via: input.trackingCode,
  };
}

/**
 * The person a new work names, as a slug: one the catalog already has (by name or alias, or the
 * record at the slug the name gives, written with the same name), else a new record made from the
 * facts the contribution brings (`change`). A person already recorded is never changed by a new
 * work: their facts change through correction reports.
 */
function personOfNewWork(
  input: ContributionProposalInput,
  name: string,
  facts: ContributedComposer | null,
  role: 'composer' | 'lyricist',
): { slug: string; change: PersonChange | null } | null {
  const known = role === 'composer' ? findComposer(input.knownComposers, name) : null;
  if (known?.slug) return { slug: known.slug, change: null };
  const sortName = facts?.sortName?.trim() || known?.sortName || sortNameOf(name);
  const base = personSlug(sortName);
  const born = facts?.born ?? 'unknown';
  const candidates = [base, `${base}-${/^[0-9]{4}/.test(born) ? born.slice(0, 4) : 'unknown'}`];
  for (const slug of candidates) {
    const there = input.person?.(slug) ?? null;
    if (there === null) {
      if (!facts && !known) return null;
      const f = facts ?? {
        name: known!.name,
        sortName: known!.sortName,
        born: known!.born,
        died: known!.died,
        aliases: known!.aliases,
        wikidataId: known!.wikidataId ?? null,
        evidenceUrls: known!.evidenceUrls ?? [],
      };
      const stamp = acceptance(input);
      // Evidence sent without dates supports the name (and Wikidata id) only: a date recorded later brings its own.
      const dated = f.born !== 'unknown' || f.died !== 'unknown';
      const evidence: Evidence[] = (f.evidenceUrls ?? []).map((url) => ({
        url,
        note: `${f.evidenceNote ? `${f.evidenceNote.trim().replace(/\.?$/, '.')} ` : ''}Sent with the ${role}'s facts by ${input.submission.submittedBy.name} (${input.trackingCode}) and accepted in review.`.slice(
          0,
          500,
        ),
        ...(dated ? {} : { facts: f.wikidataId ? ['name', 'wikidataId'] : ['name'] }),
        ...stamp,
      }));
      const after: PersonContent = {
        slug,
        name: f.name.trim(),
        sortName,
        aliases: [...(f.aliases ?? [])],
        born: f.born,
        died: f.died,
        wikidataId: f.wikidataId ?? null,
        worksPublishedBy: null,
        evidence,
      };
      return { slug, change: { slug, before: null, after } };
    }
    if (fold(there.name) === fold(name) || there.aliases.some((a) => fold(a) === fold(name)))
      return { slug, change: null };
  }
  throw new ProposalError([
    `The ${role} "${name}" would take the person record people/${base}.json, which names someone else; send the ${role}'s sortName so the archive can tell them apart.`,
  ]);
}

/**
 * The person slugs a contribution's proposal may read (its composer and lyricist under the slugs
 * their names give, and with the birth year), so they can be read before it is built.
 */
export function peopleSlugsOf(s: MusicContributionInput): string[] {
  if (s.operation !== 'new-work' || !s.work) return [];
  const w = s.work;
  const out: string[] = [];
  const add = (
    name: string | null | undefined,
    sortName: string | null | undefined,
    born: string | null | undefined,
  ) => {
    if (!name) return;
    const base = personSlug(sortName?.trim() || sortNameOf(name));
    out.push(base, `${base}-${born && /^[0-9]{4}/.test(born) ? born.slice(0, 4) : 'unknown'}`);
  };
  add(w.composer, w.composerFacts?.sortName, w.composerFacts?.born);
  const l = w.lyricistFacts ?? w.lyricist ?? null;
  add(l?.name, (l as ContributedComposer | null)?.sortName, l?.born);
  return [...new Set(out)];
}

/** The authors whose death years decide the composition's rights: the composer, and the lyricist of a work with words. */
export function authorsOf(
  composer: { name: string; died: string },
  lyricist: { name: string; died?: string } | null,
  hasLyrics: boolean,
): AuthorFact[] {
  const authors: AuthorFact[] = [{ role: 'composer', name: composer.name, died: yearOf(composer.died) }];
  if (lyricist) authors.push({ role: 'lyricist', name: lyricist.name, died: yearOf(lyricist.died) });
  else if (hasLyrics) authors.push({ role: 'lyricist', name: null, died: null });
  return authors;
}

/** "1815" -> 1815, "no later than 1900" -> { noLaterThan: 1900 }, "unpublished" -> 'unpublished', anything else -> null. */
export function firstPublishedFact(text: string | null | undefined): PublicationFact {
  const t = text?.trim().toLowerCase() ?? '';
  if (t === 'unpublished') return 'unpublished';
  const bound = /^(?:no later than|by|not after)\s+([0-9]{4})$/.exec(t);
  if (bound) return { noLaterThan: Number(bound[1]) };
  return yearOf(text);
}

/** The new work's first publication as a fact with evidence: the one sent with its evidence, else the declared year with the declaration's evidence. */
function publicationOfNewWork(input: ContributionProposalInput): Data | null {
  const s = input.submission;
  const w = s.work ?? {};
  const stamp = acceptance(input);
  if (w.firstPublishedFact) {
    const f = w.firstPublishedFact;
    return {
      bound: f.bound,
      year: f.year,
      evidence: f.evidence.map((e) => ({ url: e.url, note: e.note, ...stamp })),
    };
  }
  const fact = firstPublishedFact(w.firstPublished);
  if (fact === null) return null;
  const evidence = s.rights.evidenceUrls.slice(0, 3).map((url) => ({
    url,
    note: `Declared by the contributor (${input.trackingCode}) with the evidence of the rights declaration.`,
    ...stamp,
  }));
  if (fact === 'unpublished') return { bound: 'unpublished', year: null, evidence };
  if (typeof fact === 'number') return { bound: 'exact', year: fact, evidence };
  return { bound: 'no-later-than', year: fact.noLaterThan, evidence };
}

/** The lyricist's facts: those sent with evidence, else the lyricist as named with the declaration's evidence for any date given. */
function lyricistFactsOf(input: ContributionProposalInput): ContributedComposer | null {
  const w = input.submission.work ?? {};
  if (w.lyricistFacts) return w.lyricistFacts;
  const l = w.lyricist;
  if (!l) return null;
  const dated = (l.born ?? 'unknown') !== 'unknown' || (l.died ?? 'unknown') !== 'unknown';
  return {
    name: l.name,
    born: l.born ?? 'unknown',
    died: l.died ?? 'unknown',
    wikidataId: l.wikidataId ?? null,
    evidenceUrls: dated
      ? input.submission.rights.evidenceUrls.slice(0, 3)
      : l.wikidataId
        ? [`https://www.wikidata.org/wiki/${l.wikidataId}`]
        : [],
  } as ContributedComposer;
}

function newWork(input: ContributionProposalInput): ContentChange {
  const s = input.submission;
  const w = s.work ?? {};
  const title = w.title?.trim();
  if (!title) throw new ProposalError(['operation "new-work" needs work.title.']);
  const slug = newWorkSlug(s)!;
  if (input.work)
    throw new ProposalError(
      [
        `A work with the slug "${slug}" already exists; nothing was changed. Propose a metadata-revision of it instead, or add this score to it as another source (operation "source-score").`,
      ],
      true,
    );
  if (!w.composer) throw new ProposalError(['operation "new-work" needs work.composer.']);
  const cf = w.composerFacts ?? null;
  if (cf && cf.name.trim().toLowerCase() !== w.composer.trim().toLowerCase())
    throw new ProposalError([
      `work.composerFacts names "${cf.name}" but work.composer is "${w.composer}"; they must be the same composer.`,
    ]);
  const composer = personOfNewWork(input, w.composer, cf, 'composer');
  if (!composer)
    throw new ProposalError([
      `The composer "${w.composer}" is not in the catalog yet; a new work needs the composer's life dates (they decide the rights). Send them in work.composerFacts with evidence, or an editor adds the composer first.`,
    ]);
  const lf = lyricistFactsOf(input);
  const lyricist = lf ? personOfNewWork(input, lf.name, lf, 'lyricist') : null;
  const r = s.rights;
  const publication = publicationOfNewWork(input);
  const movements = movementsOfNewWork(s);
  const catalogNumbers = w.catalogNumbers?.length
    ? clone(w.catalogNumbers)
    : parseCatalogNumbers(`${title} ${w.workNumber ?? ''}`);
  const after: Data = {
    slug,
    title,
    originalTitle: w.originalTitle ?? null,
    aliases: [...(w.aliases ?? [])],
    composer: composer.slug,
    ...(lyricist ? { lyricist: lyricist.slug } : w.hasLyrics === true ? { hasLyrics: true } : {}),
    period: w.period ?? '',
    genre: w.genre ?? '',
    year: w.year?.trim() || 'unknown',
    ...(publication ? { firstPublished: publication } : {}),
    workNumber: w.workNumber ?? null,
    catalogNumbers,
    summary: w.summary ?? '',
    key: null,
    instrumentation: w.instrumentation ?? '',
    instruments: [...new Set((w.instruments ?? []).map((i) => slugify(i)).filter((i) => i.length > 0))],
    rightsNote:
      `Edition and recording rights as declared by the contributor (${input.trackingCode}) and accepted in review; each file's own review state and access level still apply.`.slice(
        0,
        2000,
      ),
    rights: {
      // Facts decide the composition (derived at build time); only documented permission is an editor's decision.
      ...(r.compositionStatus === 'permission-documented'
        ? { composition: { status: 'permission-documented', note: declaredNote(input, 'Permission') } }
        : {}),
      edition: { status: r.editionStatus ?? 'unknown', note: declaredNote(input, 'Edition status') },
      recording: { status: r.recordingStatus ?? 'not-applicable', note: declaredNote(input, 'Recording status') },
      license: r.license ?? null,
      attribution: r.attribution ?? null,
      // When the rights were checked: the declaration's date, else when an editor accepted them (never a default).
      checkedAtUtc: r.checkedAtUtc ?? input.accepted?.atUtc ?? nowUtc(),
      evidenceUrls: [...r.evidenceUrls],
    },
    ...(movements.length > 0 ? { movements } : {}),
    sourceAssets: [],
    arrangements: [],
    comments: [],
    videos: [],
  };
  after.sourceAssets = addAssets(input, null, movements);
  const people = [composer.change, lyricist?.change ?? null].filter((c): c is PersonChange => c !== null);
  return {
    kind: 'work',
    slug,
    before: null,
    after,
    body: narrativeOf(s),
    ...(people.length > 0 ? { people } : {}),
  };
}

/** A new work's narrative: its summary (a change summary may name files and paths, which are not about the work). */
function narrativeOf(s: MusicContributionInput): string {
  const summary = s.work?.summary?.trim();
  if (summary) return summary;
  return s.changeSummary.replace(/\s*\([^()]*\/[^()]*\)/g, '').trim();
}

function metadataRevision(input: ContributionProposalInput): ContentChange {
  const { slug, work } = requireWork(input);
  baseCheckOfWork(input, slug);
  const w = input.submission.work;
  if (!w) throw new ProposalError(['operation "metadata-revision" needs the revised fields in "work".']);
  const after = clone(work);
  const fields = ['title', 'originalTitle', 'period', 'genre', 'year', 'workNumber', 'summary'] as const;
  let changed = 0;
  for (const f of fields) {
    const v = w[f];
    if (v === undefined || v === null) continue;
    if (after[f] !== v) changed++;
    after[f] = v;
  }
  if (w.aliases !== undefined && JSON.stringify(after.aliases ?? []) !== JSON.stringify(w.aliases)) {
    after.aliases = [...w.aliases];
    changed++;
  }
  if (w.composer) {
    const slug = typeof after.composer === 'string' ? after.composer : null;
    const person = slug ? (input.person?.(slug) ?? null) : null;
    if (person && fold(person.name) !== fold(w.composer))
      throw new ProposalError([
        `The composer is the person record people/${slug}.json ("${person.name}"): a revision of the work cannot rename them. Send a correction report (targetType "composer", fieldName "name") to correct the name everywhere.`,
      ]);
  }
  if (changed === 0)
    throw new ProposalError(['The revision changes nothing: every field in "work" already has the proposed value.']);
  return { kind: 'work', slug, before: work, after, body: '' };
}

function sourceScore(input: ContributionProposalInput): ContentChange {
  const { slug, work } = requireWork(input);
  baseCheckOfWork(input, slug);
  const s = input.submission;
  if (s.operation === 'score-revision') {
    const id = s.target?.assetId;
    if (id == null)
      throw new ProposalError(['operation "score-revision" needs target.assetId naming the source asset it revises.']);
    if (!((work.sourceAssets as Data[] | undefined) ?? []).some((a) => a.id === id)) {
      throw new ProposalError([`Work "${slug}" has no source asset ${id}.`], true);
    }
  }
  if (s.assets.length === 0) throw new ProposalError([`operation "${s.operation}" needs at least one asset.`]);
  const after = clone(work);
  after.sourceAssets = [
    ...((after.sourceAssets as Data[] | undefined) ?? []),
    ...addAssets(input, work, (work.movements as Data[] | undefined) ?? []),
  ];
  return { kind: 'work', slug, before: work, after, body: '' };
}

/**
 * What resolve ranks on, for the landed arrangement: the contributor's declaration, each field the
 * editor set in review replacing it. `reasons` gets what is wrong (sections).
 */
function arrangementFacts(
  input: ContributionProposalInput,
  reasons: string[],
): Required<Omit<ArrangementFacts, 'sections'>> & { sections: ArrangementFacts['sections'] } {
  const declared = input.submission.arrangement ?? null;
  const set = input.editorFacts ?? {};
  const pick = <K extends keyof ArrangementFacts>(k: K): ArrangementFacts[K] =>
    set[k] !== undefined ? set[k] : (declared?.[k] as ArrangementFacts[K] | undefined);
  const sections = pick('sections');
  for (const [i, x] of (sections ?? []).entries()) {
    if (!(x.endSeconds > x.startSeconds))
      reasons.push(
        `arrangement.sections[${i}] ("${x.label}") must end after it starts (${x.startSeconds} to ${x.endSeconds} s).`,
      );
    const prev = sections![i - 1];
    if (prev && x.startSeconds < prev.startSeconds)
      reasons.push(
        `arrangement.sections[${i}] ("${x.label}") starts before the section before it; list sections in order.`,
      );
  }
  const moods = [...new Set((pick('moods') ?? []).map((m) => m.trim()).filter(Boolean))];
  return {
    alsoSuits: [...(pick('alsoSuits') ?? [])],
    moods,
    loopable: pick('loopable') ?? false,
    trimmable: pick('trimmable') ?? false,
    sections,
  };
}

/** Files (and any declared or editor-set facts) added to an existing arrangement, named by target.arrangementId. */
function addToArrangement(
  input: ContributionProposalInput,
  slug: string,
  work: Data,
  arrangementId: number,
): ContentChange {
  const s = input.submission;
  const reasons: string[] = [];
  if (s.assets.length === 0)
    reasons.push(`operation "${s.operation}" with target.arrangementId needs at least one asset.`);
  const facts = arrangementFacts(input, reasons);
  if (reasons.length > 0) throw new ProposalError(reasons);
  const after = clone(work);
  const target = arrangementOf(after, slug, arrangementId);
  const declared = s.arrangement ?? null;
  const set = input.editorFacts ?? {};
  // Only what was declared or set changes; the arrangement's other fields stay as they are.
  for (const k of ['alsoSuits', 'moods', 'loopable', 'trimmable', 'sections'] as const) {
    if (set[k] !== undefined || declared?.[k] !== undefined) target[k] = clone(facts[k]);
  }
  // Files whose rights are not cleared land admin-only on their own; the arrangement keeps its state unless a reviewer asserted one.
  if (input.assertions?.arrangement) target.reviewState = input.assertions.arrangement;
  target.assets = [...((target.assets as Data[] | undefined) ?? []), ...addAssets(input, work)];
  return { kind: 'work', slug, before: work, after, body: '' };
}

function arrangement(input: ContributionProposalInput, slug: string, work: Data): ContentChange {
  const s = input.submission;
  const arr = s.arrangement;
  const reasons: string[] = [];
  if (!arr)
    throw new ProposalError([
      'operation "arrangement" needs "arrangement" (or target.arrangementId naming an existing arrangement to add files to).',
    ]);
  const duration = parseDuration(arr.duration);
  if (!duration)
    reasons.push(`arrangement.duration must be m:ss, e.g. "3:05" (got ${JSON.stringify(arr.duration ?? null)}).`);
  const role = arr.intendedRole ?? s.channel?.intendedRole ?? null;
  if (!role || !(MUSIC_ROLES as readonly string[]).includes(role))
    reasons.push(`arrangement.intendedRole must be one of ${MUSIC_ROLES.join(', ')} (got ${JSON.stringify(role)}).`);
  if (s.assets.length === 0) reasons.push('operation "arrangement" needs at least one asset.');
  const facts = arrangementFacts(input, reasons);
  if (reasons.length > 0) throw new ProposalError(reasons);
  const after = clone(work);
  const arrangements = ((after.arrangements as Data[] | undefined) ?? []).slice();
  const uncleared = s.assets.some((a) => !rightsCleared(s, a));
  arrangements.push({
    id: nextId(arrangements),
    rank: nextId(arrangements, 'rank'),
    title: arr.title?.trim() || `${String(work.title)}: contributed arrangement`,
    style: arr.style ?? '',
    instrumentation: arr.instrumentation ?? '',
    duration: duration!.duration,
    durationSeconds: duration!.seconds,
    intendedRole: role,
    alsoSuits: facts.alsoSuits.filter((r) => r !== role),
    moods: facts.moods,
    loopable: facts.loopable,
    trimmable: facts.trimmable,
    ...(facts.sections?.length ? { sections: clone(facts.sections) } : {}),
    renderingProfileSlugs: [...arr.renderingProfileSlugs],
    reviewState: uncleared ? 'rights-review-required' : (input.assertions?.arrangement ?? 'pending'),
    rights: {
      edition: { status: s.rights.editionStatus ?? 'unknown', note: declaredNote(input, 'Edition status') },
      recording: { status: s.rights.recordingStatus ?? 'unknown', note: declaredNote(input, 'Recording status') },
      license: s.rights.license ?? null,
      attribution: s.rights.attribution ?? null,
    },
    notes: `Contributed as ${input.trackingCode}.`,
    assets: addAssets(input, work),
  });
  after.arrangements = arrangements;
  return { kind: 'work', slug, before: work, after, body: '' };
}

function performance(input: ContributionProposalInput, slug: string, work: Data): ContentChange {
  const s = input.submission;
  const arrangementId = s.target?.assetId;
  if (arrangementId == null)
    throw new ProposalError([
      'operation "performance" needs target.arrangementId (or, as before, target.assetId) naming the arrangement the recording performs.',
    ]);
  const after = clone(work);
  const target = arrangementOf(after, slug, arrangementId);
  if (s.assets.length === 0) throw new ProposalError(['operation "performance" needs at least one recording asset.']);
  target.assets = [...((target.assets as Data[] | undefined) ?? []), ...addAssets(input, work)];
  return { kind: 'work', slug, before: work, after, body: '' };
}

function renderingProfile(input: ContributionProposalInput): ContentChange {
  const bytes = input.profileBytes;
  if (!bytes)
    throw new ProposalError([
      'operation "rendering-profile" needs a "manifest" asset whose verified file is the profile definition (JSON).',
    ]);
  let data: Data;
  try {
    data = JSON.parse(bytes.toString('utf8')) as Data;
  } catch (err) {
    throw new ProposalError([`The profile definition is not valid JSON: ${(err as Error).message}`]);
  }
  const slug = typeof data.slug === 'string' ? data.slug : '';
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug))
    throw new ProposalError(['The profile definition needs a kebab-case "slug".']);
  // Never raise: a contributed profile is at most a candidate until an editor approves it in content.
  const boundary = (data.approvalBoundary ?? {}) as Data;
  if (data.status === 'approved' || boundary.approvedBy != null || boundary.approvedAtUtc != null) {
    const lowered = {
      ...data,
      status: data.status === 'approved' ? 'candidate' : data.status,
      approvalBoundary: { ...boundary, approvedBy: null, approvedAtUtc: null },
    };
    return { kind: 'profile', slug, content: `${JSON.stringify(lowered, null, 2)}\n` };
  }
  return { kind: 'profile', slug, content: bytes.toString('utf8') };
}

/** The content change a contribution proposes, or ProposalError with the reasons. */
export function buildContributionChange(input: ContributionProposalInput): ContentChange {
  switch (input.submission.operation) {
    case 'new-work':
      return newWork(input);
    case 'metadata-revision':
      return metadataRevision(input);
    case 'source-score':
    case 'score-revision':
      return sourceScore(input);
    case 'arrangement':
    case 'performance': {
      const { slug, work } = requireWork(input);
      baseCheckOfWork(input, slug);
      // Either one, naming target.arrangementId, adds its files to that arrangement.
      const id = input.submission.target?.arrangementId;
      if (id != null) return addToArrangement(input, slug, work, id);
      return input.submission.operation === 'arrangement'
        ? arrangement(input, slug, work)
        : performance(input, slug, work);
    }
    case 'rendering-profile':
      return renderingProfile(input);
  }
}
