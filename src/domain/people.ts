/**
 * People as records (pure): a work file names its composer and lyricist by slug, and the loader
 * resolves it here into the work the rest of the archive reads (`WorkContent`): the people's facts
 * filled in from their records, the first-publication fact combined with the composer's bound,
 * and every rights conclusion derived by src/domain/territory-rights.ts for the as-of year. The
 * same resolution serves the build, the content lint, review proposals and the desk, so a
 * person's corrected death year changes every work that names them, and a stored conclusion that
 * contradicts the facts is refused (docs/rights.md).
 */
import type { PersonContent, PersonRecord, PersonRole, PersonSummary } from '../schemas/person.ts';
import type { AssetContent, WorkContent, WorkFile } from '../schemas/work.ts';
import type { FactEvidence, PersonFactField } from '../schemas/common.ts';
import type { Static } from '@sinclair/typebox';
import { editionState } from './rights-cleared.ts';
import { fold, nameSlug } from './text.ts';
import {
  deriveWorkRights,
  heldFileReleased,
  lastChecked,
  type DerivedWorkRights,
  type FactProvenance,
  type PersonRightsFacts,
  type WorkPublication,
} from './territory-rights.ts';

export type Evidence = Static<typeof FactEvidence>;

/** A finding of the resolution: a JSON pointer into the work file and the message. */
export interface ResolveProblem {
  pointer: string;
  message: string;
}

/** The evidence of a person that supports one field (evidence naming no fields supports all of them). */
export function evidenceFor(person: Pick<PersonContent, 'evidence'>, field: PersonFactField): Evidence[] {
  return person.evidence.filter((e) => e.facts === undefined || e.facts.includes(field));
}

/** Where a fact comes from: the most recently accepted of its evidence, else the first. */
export function provenanceOf(evidence: readonly Evidence[]): FactProvenance | null {
  if (evidence.length === 0) return null;
  let best = evidence[0]!;
  for (const e of evidence) if ((e.acceptedAtUtc ?? '') > (best.acceptedAtUtc ?? '')) best = e;
  return { evidenceUrl: best.url, acceptedBy: best.acceptedBy ?? null, acceptedAtUtc: best.acceptedAtUtc ?? null };
}

/** A person's facts as the rights rules read them. */
export function personRightsFacts(p: PersonContent): PersonRightsFacts {
  const bound = p.worksPublishedBy ?? null;
  return {
    name: p.name,
    died: p.died,
    diedEvidence: provenanceOf(evidenceFor(p, 'died')),
    worksPublishedBy: bound ? { year: bound.year, evidence: provenanceOf(bound.evidence) } : null,
  };
}

/** A work file's first-publication fact as the rights rules read it. */
export function workPublication(f: Pick<WorkFile, 'firstPublished'>): WorkPublication | null {
  const p = f.firstPublished ?? null;
  if (p === null) return null;
  return { bound: p.bound, year: p.year, evidence: provenanceOf(p.evidence) };
}

/** "1826", "no later than 1900", "unpublished", or null: the published record's words for the fact. */
export function publicationText(p: DerivedWorkRights['publication']): string | null {
  if (p === null) return null;
  if (p.bound === 'unpublished') return 'unpublished';
  if (p.year === null) return null;
  return p.bound === 'exact' ? String(p.year) : `no later than ${p.year}`;
}

/** The problems of a person record that the schema cannot see: file name, dates, evidence. */
export function checkPerson(
  p: PersonContent,
  expectedSlug: string,
  isRealDate: (d: string) => boolean,
): ResolveProblem[] {
  const out: ResolveProblem[] = [];
  if (p.slug !== expectedSlug)
    out.push({ pointer: '/slug', message: `must equal the file name "${expectedSlug}" (got "${p.slug}")` });
  for (const field of ['born', 'died'] as const) {
    const v = p[field];
    if (v === 'unknown') continue;
    if (!isRealDate(v)) out.push({ pointer: `/${field}`, message: `is not a real calendar date (got "${v}")` });
    else if (evidenceFor(p, field).length === 0)
      out.push({
        pointer: `/${field}`,
        message: `is recorded without evidence; add an entry to "evidence" (a page an editor can follow, and what it shows) that supports it, or write "unknown"`,
      });
  }
  if (isRealDate(p.born) && isRealDate(p.died) && p.died.slice(0, 4) < p.born.slice(0, 4))
    out.push({ pointer: '/died', message: `is before the birth date ${p.born}` });
  return out;
}

/** A stored composition status or territory status is a conclusion: it must be what the facts decide. */
function contradictions(f: WorkFile, derived: DerivedWorkRights): ResolveProblem[] {
  const out: ResolveProblem[] = [];
  const stored = f.rights.territories ?? {};
  for (const t of ['US', 'EU', 'CA'] as const) {
    const s = stored[t];
    if (!s) continue;
    const v = derived.territories[t];
    if (s.status === v.status || (s.status === 'unclear' && v.status === 'unknown')) continue;
    out.push({
      pointer: `/rights/territories/${t}/status`,
      message: `says "${s.status}", but the recorded facts decide "${v.status}" (${v.note}) Territory statuses are derived from the facts: remove it, or correct the facts.`,
    });
  }
  const c = f.rights.composition?.status;
  const byFacts = derived.territories.composition === 'public-domain' ? 'public-domain' : 'unknown';
  if ((c === 'public-domain' || c === 'unknown') && c !== byFacts)
    out.push({
      pointer: '/rights/composition/status',
      message: `says "${c}", but the recorded facts decide "${byFacts}" (${derived.compositionNote}) The composition status is derived from the facts: remove it, or correct the facts.`,
    });
  return out;
}

function publicationProblems(f: WorkFile, composer: PersonContent | null): ResolveProblem[] {
  const out: ResolveProblem[] = [];
  const p = f.firstPublished ?? null;
  if (p === null) return out;
  if (p.bound === 'unpublished' && p.year !== null)
    out.push({ pointer: '/firstPublished/year', message: 'must be null for an unpublished work' });
  if (p.bound !== 'unpublished' && p.year === null)
    out.push({ pointer: '/firstPublished/year', message: `is required with bound "${p.bound}"` });
  const bound = composer?.worksPublishedBy ?? null;
  if (bound && p.bound === 'exact' && p.year !== null && p.year > bound.year)
    out.push({
      pointer: '/firstPublished/year',
      message: `says first published in ${p.year}, but the composer's record (people/${composer!.slug}.json) says every work was published by ${bound.year}`,
    });
  if (bound && p.bound === 'unpublished')
    out.push({
      pointer: '/firstPublished/bound',
      message: `says unpublished, but the composer's record (people/${composer!.slug}.json) says every work was published by ${bound.year}`,
    });
  return out;
}

/** The Composer object of a resolved work (and of its record): the person's names and dates. */
function composerOf(p: PersonContent): WorkContent['composer'] {
  const urls = [...new Set(p.evidence.map((e) => e.url))].slice(0, 10);
  return {
    name: p.name,
    sortName: p.sortName,
    born: p.born,
    died: p.died,
    aliases: [...p.aliases],
    ...(p.wikidataId ? { wikidataId: p.wikidataId } : {}),
    ...(urls.length > 0 ? { evidenceUrls: urls } : {}),
    slug: p.slug,
  };
}

function lyricistOf(p: PersonContent): NonNullable<WorkContent['lyricist']> {
  return {
    name: p.name,
    born: p.born,
    died: p.died,
    ...(p.wikidataId ? { wikidataId: p.wikidataId } : {}),
    slug: p.slug,
  };
}

type AnyAsset = AssetContent;

/** A held file's published state: released with what its file says, or held. */
function resolveAsset<A extends AnyAsset>(a: A, derived: DerivedWorkRights, editionCleared: boolean): A {
  if (a.heldForRights !== true) return a;
  if (heldFileReleased(derived, editionCleared, { license: a.license, rightsStatus: a.rightsStatus })) return a;
  return { ...a, reviewState: 'rights-review-required', access: 'admin-only' };
}

export interface ResolvedWork {
  content: WorkContent;
  derived: DerivedWorkRights;
  problems: ResolveProblem[];
}

/**
 * Resolve a work file (checked against `WorkFile`, with its defaults) against the people records:
 * null content when a person it names has no record (the problem says which).
 */
export function resolveWork(
  f: WorkFile,
  people: ReadonlyMap<string, PersonContent>,
  asOfYear: number,
): { content: WorkContent | null; derived: DerivedWorkRights | null; problems: ResolveProblem[] } {
  const problems: ResolveProblem[] = [];
  const composer = people.get(f.composer) ?? null;
  if (!composer)
    problems.push({
      pointer: '/composer',
      message: `names the person "${f.composer}", who has no record (people/${f.composer}.json does not exist)`,
    });
  const lyricistSlug = f.lyricist ?? null;
  const lyricist = lyricistSlug !== null ? (people.get(lyricistSlug) ?? null) : null;
  if (lyricistSlug !== null && !lyricist)
    problems.push({
      pointer: '/lyricist',
      message: `names the person "${lyricistSlug}", who has no record (people/${lyricistSlug}.json does not exist)`,
    });
  problems.push(...publicationProblems(f, composer));
  if (!composer || (lyricistSlug !== null && !lyricist)) return { content: null, derived: null, problems };

  const stored = f.rights.composition ?? {};
  const decision =
    stored.status === 'permission-documented' || stored.status === 'not-applicable' ? stored.status : null;
  const derived = deriveWorkRights({
    composer: personRightsFacts(composer),
    lyricist: lyricist ? personRightsFacts(lyricist) : null,
    hasLyrics: f.hasLyrics === true,
    publication: workPublication(f),
    decision,
    asOfYear,
  });
  problems.push(...contradictions(f, derived));

  const editionCleared = editionState(f.rights.edition.status, f.rights.license) !== 'not-cleared';
  const territory = (t: 'US' | 'EU' | 'CA') => {
    const v = derived.territories[t];
    return {
      status: v.status,
      note: v.note.slice(0, 500),
      ...(v.missingFacts.length ? { missingFacts: v.missingFacts } : {}),
    };
  };
  const compositionNote =
    decision === 'permission-documented'
      ? (stored.note ?? derived.compositionNote)
      : stored.note
        ? `${derived.compositionNote} ${stored.note}`
        : derived.compositionNote;
  const publication = derived.publication;
  const evidenceOfPublication =
    publication === null
      ? []
      : publication.from === 'work'
        ? (f.firstPublished?.evidence ?? [])
        : (composer.worksPublishedBy?.evidence ?? []);
  const { composer: _c, lyricist: _l, firstPublished: _p, rightsNote, rights, ...rest } = f;
  void _c;
  void _l;
  void _p;
  const content: WorkContent = {
    ...rest,
    composer: composerOf(composer),
    ...(lyricist ? { lyricist: lyricistOf(lyricist) } : {}),
    ...(publication ? { firstPublished: publicationText(publication) } : {}),
    publication: publication
      ? { bound: publication.bound, year: publication.year, from: publication.from, evidence: evidenceOfPublication }
      : null,
    rightsNote: (rightsNote ? `${derived.summary} ${rightsNote}` : derived.summary).slice(0, 2000),
    rights: {
      composition: { status: derived.compositionStatus, note: compositionNote.slice(0, 1000) },
      edition: rights.edition,
      recording: rights.recording,
      territories: { US: territory('US'), EU: territory('EU'), CA: territory('CA') },
      license: rights.license,
      attribution: rights.attribution,
      checkedAtUtc: lastChecked(rights.checkedAtUtc, derived.decidedBy) ?? rights.checkedAtUtc,
      evidenceUrls: rights.evidenceUrls,
      asOfYear,
      decidedBy: derived.decidedBy,
      worldwide: derived.worldwide,
    },
    sourceAssets: f.sourceAssets.map((a) => resolveAsset(a, derived, editionCleared)),
    arrangements: f.arrangements.map((arr) => ({
      ...arr,
      assets: arr.assets.map((a) => resolveAsset(a, derived, editionCleared)),
    })),
  };
  return { content, derived, problems };
}

/** The people a resolved work names, with the role (composer first). */
export function peopleOfWork(c: Pick<WorkContent, 'composer' | 'lyricist'>): Array<{ slug: string; role: PersonRole }> {
  const out: Array<{ slug: string; role: PersonRole }> = [];
  if (c.composer.slug) out.push({ slug: c.composer.slug, role: 'composer' });
  if (c.lyricist?.slug) out.push({ slug: c.lyricist.slug, role: 'lyricist' });
  return out;
}

/** Life years as "1788–1857" ("?" where unknown). */
function lifeYears(born: string, died: string): string {
  const y = (d: string) => (/^[0-9]{4}/.test(d) ? d.slice(0, 4) : '?');
  return `${y(born)}–${y(died)}`;
}

/** A person's published record: their facts and evidence, and every work that names them (by title). */
export function buildPersonRecord(
  p: PersonContent,
  works: ReadonlyArray<{ slug: string; title: string; role: PersonRole }>,
  baseUrl: string,
): PersonRecord {
  const base = baseUrl.replace(/\/+$/, '');
  const enc = encodeURIComponent;
  const sorted = [...works].sort((a, b) => a.title.localeCompare(b.title) || a.slug.localeCompare(b.slug));
  return {
    slug: p.slug,
    name: p.name,
    sortName: p.sortName,
    aliases: [...p.aliases],
    born: p.born,
    died: p.died,
    lifeDates: lifeYears(p.born, p.died),
    wikidataId: p.wikidataId ?? null,
    worksPublishedBy: p.worksPublishedBy ?? null,
    evidence: p.evidence,
    roles: [...new Set(sorted.map((w) => w.role))].sort() as PersonRole[],
    works: sorted.map((w) => ({
      slug: w.slug,
      title: w.title,
      role: w.role,
      links: { self: `${base}/api/v1/works/${enc(w.slug)}`, html: `${base}/works/${enc(w.slug)}/` },
    })),
    links: {
      self: `${base}/api/v1/people/${enc(p.slug)}`,
      html: `${base}/people/${enc(p.slug)}/`,
      wikidata: p.wikidataId ? `https://www.wikidata.org/wiki/${p.wikidataId}` : null,
      corrections: `${base}/api/v1/correction-reports`,
    },
  };
}

/**
 * "Müller, Wilhelm" -> "muller-wilhelm": a person's slug from the sort name, by the rule the
 * composer pages' slugs always followed (src/lib/site/paths.ts), so /composers/<slug>/ and
 * /people/<slug>/ name the same person.
 */
export function personSlug(sortName: string): string {
  return nameSlug(sortName);
}

/** The text of people/<slug>.json as the archive writes it (two-space JSON, final newline). */
export function personFileText(p: PersonContent): string {
  return `${JSON.stringify(p, null, 2)}\n`;
}

/** Every person's record, from the people and the works that name them (the build and the catalog fixture). */
export function buildPeopleRecords(
  people: readonly PersonContent[],
  works: ReadonlyArray<Pick<WorkContent, 'slug' | 'title' | 'composer' | 'lyricist'>>,
  baseUrl: string,
): PersonRecord[] {
  const named = new Map<string, Array<{ slug: string; title: string; role: PersonRole }>>();
  for (const w of works)
    for (const p of peopleOfWork(w)) {
      let list = named.get(p.slug);
      if (list === undefined) named.set(p.slug, (list = []));
      list.push({ slug: w.slug, title: w.title, role: p.role });
    }
  return [...people]
    .sort((a, b) => fold(a.sortName).localeCompare(fold(b.sortName)) || a.slug.localeCompare(b.slug))
    .map((p) => buildPersonRecord(p, named.get(p.slug) ?? [], baseUrl));
}

/** A person's entry in the people listing (GET /api/v1/people). */
export function personSummary(r: PersonRecord): PersonSummary {
  return {
    slug: r.slug,
    name: r.name,
    sortName: r.sortName,
    lifeDates: r.lifeDates,
    roles: r.roles,
    workCount: r.works.length,
    links: { self: r.links.self, html: r.links.html },
  };
}

/** A work's derived rights in brief: what a fact's change is judged by. */
export interface RightsBrief {
  US: string;
  EU: string;
  CA: string;
  composition: string;
  cleared: boolean;
  worldwide: string;
  missingFacts: string[];
}

function brief(d: DerivedWorkRights): RightsBrief {
  return {
    US: d.territories.US.status,
    EU: d.territories.EU.status,
    CA: d.territories.CA.status,
    composition: d.compositionStatus,
    cleared: d.compositionCleared,
    worldwide: d.worldwide.status,
    missingFacts: d.territories.missingFacts,
  };
}

export interface FactImpactRow {
  slug: string;
  title: string;
  before: RightsBrief | null;
  after: RightsBrief | null;
  /** The derived result changes (a status, the composition, or the missing facts). */
  changes: boolean;
}

/**
 * What a fact's change does to the works it reaches: each work's derived rights with the people
 * (and the work file) as they are, and as the change leaves them. The desk shows it beside the
 * fact before an editor accepts or applies it.
 */
export function factImpact(
  works: ReadonlyArray<{ file: WorkFile; title: string }>,
  peopleBefore: ReadonlyMap<string, PersonContent>,
  peopleAfter: ReadonlyMap<string, PersonContent>,
  workAfter: ReadonlyMap<string, WorkFile>,
  asOfYear: number,
): FactImpactRow[] {
  return works.map(({ file, title }) => {
    const before = resolveWork(file, peopleBefore, asOfYear).derived;
    const after = resolveWork(workAfter.get(file.slug) ?? file, peopleAfter, asOfYear).derived;
    const b = before ? brief(before) : null;
    const a = after ? brief(after) : null;
    return { slug: file.slug, title, before: b, after: a, changes: JSON.stringify(b) !== JSON.stringify(a) };
  });
}
