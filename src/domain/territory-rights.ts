/**
 * Whether a composition is in the public domain in the United States, the European Union and
 * Canada, from its authors' death years and its first publication (pure; no I/O). The rules are
 * the archive's documented ones (docs/rights.md, "Territories from facts"):
 *
 * - EU: 70 years after the death of the last surviving author (composer and, for a work with
 *   words, the lyricist: a musical composition with words runs from the later of the two). The
 *   term ends on 31 December, so the work is free from 1 January of death year + 71.
 * - CA: authors who died before 1972 keep the old term of life + 50 years (the 2022 extension
 *   did not revive expired terms); authors who died in 1972 or later, life + 70. Free from
 *   1 January of death year + 51 or + 71 respectively, counted from the last surviving author.
 * - US: a work first published more than 95 years ago is free (published in year P: free from
 *   1 January of P + 96); an unpublished work runs life + 70 like the EU. Without the first
 *   publication year the status is unknown: an author's death year alone does not decide it
 *   (a work first published after the author's death may still be protected).
 *
 * A missing fact never becomes an assumption: the territory is `unknown` and `missingFacts`
 * names what would decide it. `as of` is a year, so a verdict is reproducible.
 */

export const RIGHTS_TERRITORIES = ['US', 'EU', 'CA'] as const;
export type RightsTerritory = (typeof RIGHTS_TERRITORIES)[number];

export type TerritoryStatus = 'public-domain' | 'not-public-domain' | 'unknown';

export interface AuthorFact {
  role: 'composer' | 'lyricist';
  /** Null when the author is not known at all (e.g. a song whose poet is not named). */
  name: string | null;
  /** Death year; null when not known; 'living' when the author is known to be alive. */
  died: number | 'living' | null;
}

/**
 * What is known of a work's first publication: the exact year, an upper bound ("no later than
 * 1900": the year of an edition the work was printed in, or of a collected edition that holds
 * all of a composer's works), `'unpublished'` when it is known never to have been published, or
 * null when nothing is known.
 */
export type PublicationFact = number | { noLaterThan: number } | 'unpublished' | null;

export interface RightsFacts {
  authors: AuthorFact[];
  /** First publication: a year, an upper bound, 'unpublished', or null when not known. */
  firstPublished: PublicationFact;
  /** The year the verdict holds for. */
  asOfYear: number;
}

export interface TerritoryVerdict {
  status: TerritoryStatus;
  /** The rule applied and the facts it used, in words. */
  note: string;
  /** The facts that would decide an `unknown` status (empty otherwise). */
  missingFacts: string[];
  /** First year the work is free there, when the facts decide it. */
  freeFromYear: number | null;
}

export interface TerritoryRights {
  US: TerritoryVerdict;
  EU: TerritoryVerdict;
  CA: TerritoryVerdict;
  /** The composition layer: public domain only when it is in every territory; else unknown or not. */
  composition: 'public-domain' | 'not-public-domain' | 'unknown';
  /** Every missing fact, once each. */
  missingFacts: string[];
}

const TERRITORY_NAMES: Record<RightsTerritory, string> = { US: 'the US', EU: 'the EU', CA: 'Canada' };

export function territoryName(t: RightsTerritory): string {
  return TERRITORY_NAMES[t];
}

function deathFact(a: AuthorFact): string {
  return a.name ? `the ${a.role}'s death year (${a.name})` : `the ${a.role} (not named in the source)`;
}

/** The last death year of the authors, or the facts missing to know it (a living author: 'living'). */
function lastDeath(authors: AuthorFact[]): {
  year: number | 'living' | null;
  missing: string[];
  who: AuthorFact | null;
} {
  const missing: string[] = [];
  let year: number | 'living' = -Infinity as number;
  let who: AuthorFact | null = null;
  for (const a of authors) {
    if (a.name === null || a.died === null) {
      missing.push(deathFact(a));
      continue;
    }
    if (a.died === 'living') {
      year = 'living';
      who = a;
    } else if (year !== 'living' && a.died > year) {
      year = a.died;
      who = a;
    }
  }
  if (missing.length > 0) return { year: null, missing, who: null };
  if (who === null) return { year: null, missing: ['the authors'], who: null };
  return { year, missing: [], who };
}

function byTerm(
  facts: RightsFacts,
  termOf: (died: number) => number,
  ruleWords: (died: number) => string,
): TerritoryVerdict {
  const last = lastDeath(facts.authors);
  if (last.year === null) {
    // An author whose term has not run out decides it alone: a missing death year can only lengthen the term.
    const known = lastDeath(facts.authors.filter((a) => a.name !== null && a.died !== null));
    if (
      known.year === 'living' ||
      (typeof known.year === 'number' && facts.asOfYear < known.year + termOf(known.year) + 1)
    )
      return byTerm(
        { ...facts, authors: facts.authors.filter((a) => a.name !== null && a.died !== null) },
        termOf,
        ruleWords,
      );
    return {
      status: 'unknown',
      note: `Unknown: ${last.missing.join(' and ')} ${last.missing.length === 1 ? 'is' : 'are'} not known.`,
      missingFacts: last.missing,
      freeFromYear: null,
    };
  }
  const who = last.who!;
  if (last.year === 'living') {
    return {
      status: 'not-public-domain',
      note: `Not public domain: the ${who.role} (${who.name}) is living.`,
      missingFacts: [],
      freeFromYear: null,
    };
  }
  const freeFrom = last.year + termOf(last.year) + 1;
  const rule = ruleWords(last.year);
  const subject = `${who.role} died in ${last.year}`;
  return facts.asOfYear >= freeFrom
    ? { status: 'public-domain', note: `Public domain: ${rule}; ${subject}.`, missingFacts: [], freeFromYear: freeFrom }
    : {
        status: 'not-public-domain',
        note: `Not public domain until ${freeFrom}: ${rule}; ${subject}.`,
        missingFacts: [],
        freeFromYear: freeFrom,
      };
}

function eu(facts: RightsFacts): TerritoryVerdict {
  return byTerm(
    facts,
    () => 70,
    () => 'life + 70 years of the last surviving author',
  );
}

function ca(facts: RightsFacts): TerritoryVerdict {
  return byTerm(
    facts,
    (died) => (died < 1972 ? 50 : 70),
    (died) =>
      died < 1972
        ? 'life + 50 years for authors who died before 1972'
        : 'life + 70 years for authors who died in 1972 or later',
  );
}

function us(facts: RightsFacts): TerritoryVerdict {
  const p = facts.firstPublished;
  if (p === 'unpublished') {
    const v = byTerm(
      facts,
      () => 70,
      () => 'unpublished work, life + 70 years of the last surviving author',
    );
    return v;
  }
  if (p !== null && typeof p === 'object') {
    const freeFrom = p.noLaterThan + 96;
    return facts.asOfYear >= freeFrom
      ? {
          status: 'public-domain',
          note: `Public domain: first published no later than ${p.noLaterThan}, more than 95 years ago.`,
          missingFacts: [],
          freeFromYear: freeFrom,
        }
      : {
          status: 'unknown',
          note: `Unknown: first published no later than ${p.noLaterThan}, which is less than 96 years ago; the exact first publication year decides it (a published work is free 95 years after publication).`,
          missingFacts: [`the exact first publication year (known: no later than ${p.noLaterThan})`],
          freeFromYear: null,
        };
  }
  if (p === null) {
    return {
      status: 'unknown',
      note: "Unknown: the first publication year is not known (a published work is free 95 years after publication; the authors' death years alone do not decide it).",
      missingFacts: ['the first publication year'],
      freeFromYear: null,
    };
  }
  const freeFrom = p + 96;
  return facts.asOfYear >= freeFrom
    ? {
        status: 'public-domain',
        note: `Public domain: first published in ${p}, more than 95 years ago.`,
        missingFacts: [],
        freeFromYear: freeFrom,
      }
    : {
        status: 'not-public-domain',
        note: `Not public domain until ${freeFrom}: first published in ${p}; the term is 95 years from publication.`,
        missingFacts: [],
        freeFromYear: freeFrom,
      };
}

/** The three territories' verdicts and the composition layer they add up to. */
export function territoryRights(facts: RightsFacts): TerritoryRights {
  const out = { US: us(facts), EU: eu(facts), CA: ca(facts) };
  const all = [out.US, out.EU, out.CA];
  const composition = all.some((v) => v.status === 'not-public-domain')
    ? 'not-public-domain'
    : all.every((v) => v.status === 'public-domain')
      ? 'public-domain'
      : 'unknown';
  const missingFacts = [...new Set(all.flatMap((v) => v.missingFacts))];
  return { ...out, composition, missingFacts };
}

/**
 * Why a work must not be imported: the first territory where its composition is known not to
 * be public domain, in words ("composer died in 1934: not public domain in the EU until 2005"),
 * or null when no territory's facts rule it out.
 */
export function notPublicDomainReason(rights: TerritoryRights, facts: RightsFacts): string | null {
  for (const t of ['EU', 'CA', 'US'] as const) {
    const v = rights[t];
    if (v.status !== 'not-public-domain') continue;
    const last = lastDeath(facts.authors.filter((a) => a.name !== null && a.died !== null));
    const who =
      t === 'US' && typeof facts.firstPublished === 'number'
        ? `first published in ${facts.firstPublished}`
        : last.who && typeof last.year === 'number'
          ? `${last.who.role} died in ${last.year}`
          : last.who
            ? `${last.who.role} is living`
            : 'first publication';
    const until = v.freeFromYear !== null ? ` until ${v.freeFromYear}` : '';
    return `${who}: not public domain in ${territoryName(t)}${until}`;
  }
  return null;
}

/** A year from a partial date or year text ("1828", "1828-11-19"); null for "unknown", "" or anything else. */
export function yearOf(text: string | null | undefined): number | null {
  const m = /^([0-9]{4})(?:-[0-9]{2}-[0-9]{2})?$/.exec(text?.trim() ?? '');
  return m ? Number(m[1]) : null;
}

// ---------- worldwide, from the table of terms in force ----------

/**
 * The terms in force the worldwide summary reads (docs/rights.md, "Worldwide"), each with the page
 * that states it: life-based terms from the Berne minimum (life + 50) to the longest in force
 * (life + 100, Mexico), and the publication-based term the archive applies (the United States: 95
 * years from first publication). Only what the cited page states is here; a country whose term is
 * not in this table is covered by the bounds (no country's life-based term is longer than life +
 * 100, none shorter than life + 50 among Berne members).
 */
export const TERMS_SOURCE = 'https://en.wikipedia.org/wiki/List_of_copyright_duration_by_country';
export interface TermInForce {
  /** Where the term holds, in words. */
  where: string;
  /** Years after the last surviving author's death (the term ends on 31 December). */
  lifePlus: number;
  source: string;
}
export const LIFE_TERMS_IN_FORCE: readonly TermInForce[] = [
  { where: 'Berne Convention members with the minimum term', lifePlus: 50, source: TERMS_SOURCE },
  { where: 'the European Union, the United States (unpublished works) and others', lifePlus: 70, source: TERMS_SOURCE },
  { where: 'Mexico (the longest term in force)', lifePlus: 100, source: TERMS_SOURCE },
];
const LONGEST_LIFE_TERM = Math.max(...LIFE_TERMS_IN_FORCE.map((t) => t.lifePlus));

export interface WorldwideVerdict {
  /** public-domain: in every country; not-public-domain: protected somewhere; unknown: a fact is missing. */
  status: 'public-domain' | 'not-public-domain' | 'unknown';
  note: string;
  /** Where it stays protected and until when (the first free year), when the facts say so. */
  protectedIn: Array<{ where: string; freeFromYear: number }>;
  /** The year it is free everywhere, when the facts decide it. */
  freeEverywhereFromYear: number | null;
  missingFacts: string[];
}

/**
 * The worldwide summary from the same facts: free everywhere once the last surviving author died
 * more than 100 years ago (no life-based term in force is longer) and the United States'
 * publication-based term has run; otherwise the places it remains protected, from the table.
 */
export function worldwideRights(
  facts: RightsFacts,
  us: TerritoryVerdict = territoryRights(facts).US,
): WorldwideVerdict {
  const last = lastDeath(facts.authors);
  const missing = [...last.missing, ...(us.status === 'unknown' ? us.missingFacts : [])];
  if (last.year === 'living')
    return {
      status: 'not-public-domain',
      note: `Protected everywhere: the ${last.who!.role} (${last.who!.name}) is living.`,
      protectedIn: [],
      freeEverywhereFromYear: null,
      missingFacts: [],
    };
  const protectedIn: Array<{ where: string; freeFromYear: number }> = [];
  if (typeof last.year === 'number') {
    for (const t of LIFE_TERMS_IN_FORCE) {
      const freeFrom = last.year + t.lifePlus + 1;
      if (facts.asOfYear < freeFrom)
        protectedIn.push({ where: `${t.where}: life + ${t.lifePlus}`, freeFromYear: freeFrom });
    }
  }
  if (us.status === 'not-public-domain' && us.freeFromYear !== null)
    protectedIn.push({ where: 'the United States: 95 years from first publication', freeFromYear: us.freeFromYear });
  const lifeFree = typeof last.year === 'number' ? last.year + LONGEST_LIFE_TERM + 1 : null;
  const everywhere =
    lifeFree === null || (us.status !== 'public-domain' && us.freeFromYear === null)
      ? null
      : Math.max(lifeFree, us.freeFromYear ?? 0);
  if (protectedIn.length > 0) {
    const list = protectedIn.map((p) => `${p.where} (until ${p.freeFromYear - 1})`).join('; ');
    return {
      status: 'not-public-domain',
      note: `Not public domain everywhere: still protected in ${list}${everywhere !== null ? `; free everywhere from ${everywhere}` : ''}.`,
      protectedIn,
      freeEverywhereFromYear: everywhere,
      missingFacts: missing,
    };
  }
  if (missing.length > 0)
    return {
      status: 'unknown',
      note: `Unknown worldwide: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not known.`,
      protectedIn: [],
      freeEverywhereFromYear: null,
      missingFacts: missing,
    };
  const who = last.who!;
  return {
    status: 'public-domain',
    note: `Public domain worldwide: the last surviving author (${who.name}, ${who.role}) died in ${last.year}, more than ${LONGEST_LIFE_TERM} years ago (no term in force is longer than life + ${LONGEST_LIFE_TERM}), and the United States' term has run (${us.note.replace(/^Public domain: /, '').replace(/\.$/, '')}).`,
    protectedIn: [],
    freeEverywhereFromYear: everywhere,
    missingFacts: [],
  };
}

// ---------- a work's rights, derived from its facts ----------

/** Where a recorded fact comes from and who accepted it (a key label) and when; null parts are not recorded. */
export interface FactProvenance {
  evidenceUrl: string | null;
  acceptedBy: string | null;
  acceptedAtUtc: string | null;
}

/** A fact a verdict used, in words, with its provenance. */
export interface DecidingFact extends FactProvenance {
  fact: string;
}

/** A person's facts as the rights need them (src/schemas/person.ts holds the record). */
export interface PersonRightsFacts {
  name: string;
  /** The death date as recorded ("1857", "1857-11-26", "unknown"). */
  died: string;
  diedEvidence: FactProvenance | null;
  /** "Every work published by YEAR": a bound for all the person's works as composer. */
  worksPublishedBy: { year: number; evidence: FactProvenance | null } | null;
}

/** A work's own first-publication fact. */
export interface WorkPublication {
  bound: 'exact' | 'no-later-than' | 'unpublished';
  year: number | null;
  evidence: FactProvenance | null;
}

export interface WorkRightsInput {
  composer: PersonRightsFacts;
  lyricist: PersonRightsFacts | null;
  /** The work sets words whose author is not named: the lyricist counts as unknown. */
  hasLyrics: boolean;
  publication: WorkPublication | null;
  /** An editor's decision that stands instead of the facts (documented permission), or null. */
  decision: 'permission-documented' | 'not-applicable' | null;
  asOfYear: number;
}

export type CompositionStatusValue = 'public-domain' | 'permission-documented' | 'not-applicable' | 'unknown';

export interface DerivedWorkRights {
  facts: RightsFacts;
  /** The publication fact used: the work's own, or the composer's bound for all their works. */
  publication: (WorkPublication & { from: 'work' | 'composer' }) | null;
  territories: TerritoryRights;
  compositionStatus: CompositionStatusValue;
  /** Cleared for reuse by the one rule (src/domain/rights-cleared.ts). */
  compositionCleared: boolean;
  compositionNote: string;
  /** One or two sentences that open the work's rights note. */
  summary: string;
  /** The facts the verdicts used, with who accepted each and when. */
  decidedBy: DecidingFact[];
  worldwide: WorldwideVerdict;
}

/** "1857" from "1857-11-26"; null for "unknown" (the one reading of a recorded life date). */
function deathYearOf(died: string): number | null {
  return yearOf(died);
}

/** The publication fact the rules use: the work's own, tightened by the composer's bound; and where it came from. */
export function combinedPublication(
  work: WorkPublication | null,
  composerBound: PersonRightsFacts['worksPublishedBy'],
): DerivedWorkRights['publication'] {
  if (work && (work.bound === 'exact' || work.bound === 'unpublished')) return { ...work, from: 'work' };
  if (composerBound && (!work || work.year === null || composerBound.year < work.year))
    return { bound: 'no-later-than', year: composerBound.year, evidence: composerBound.evidence, from: 'composer' };
  return work ? { ...work, from: 'work' } : null;
}

function asFact(p: DerivedWorkRights['publication']): PublicationFact {
  if (p === null) return null;
  if (p.bound === 'unpublished') return 'unpublished';
  if (p.year === null) return null;
  return p.bound === 'exact' ? p.year : { noLaterThan: p.year };
}

const NO_PROVENANCE: FactProvenance = { evidenceUrl: null, acceptedBy: null, acceptedAtUtc: null };

const listWords = (items: string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/**
 * Everything the archive says about a work's rights, from its facts and the as-of year: the three
 * territories, the composition status (an editor's documented permission stands; otherwise public
 * domain only when every territory is), the notes, the missing facts, the facts that decided, and
 * the worldwide summary. The build, the content lint, review proposals, the desk and resolve all
 * ask here; nothing of it is stored.
 */
export function deriveWorkRights(input: WorkRightsInput): DerivedWorkRights {
  const authors: AuthorFact[] = [
    { role: 'composer', name: input.composer.name, died: deathYearOf(input.composer.died) },
  ];
  if (input.lyricist)
    authors.push({ role: 'lyricist', name: input.lyricist.name, died: deathYearOf(input.lyricist.died) });
  else if (input.hasLyrics) authors.push({ role: 'lyricist', name: null, died: null });
  const publication = combinedPublication(input.publication, input.composer.worksPublishedBy);
  const facts: RightsFacts = { authors, firstPublished: asFact(publication), asOfYear: input.asOfYear };
  const territories = territoryRights(facts);
  const worldwide = worldwideRights(facts, territories.US);
  const byFacts: CompositionStatusValue = territories.composition === 'public-domain' ? 'public-domain' : 'unknown';
  const compositionStatus = input.decision ?? byFacts;
  const statuses = [territories.US.status, territories.EU.status, territories.CA.status];
  const compositionCleared =
    compositionStatus === 'permission-documented' ||
    (compositionStatus === 'public-domain' && statuses.every((s) => s === 'public-domain'));

  const decidedBy: DecidingFact[] = [];
  const people: Array<[PersonRightsFacts, 'composer' | 'lyricist']> = [[input.composer, 'composer']];
  if (input.lyricist) people.push([input.lyricist, 'lyricist']);
  for (const [p, role] of people) {
    const y = deathYearOf(p.died);
    if (y !== null) decidedBy.push({ fact: `${p.name} (${role}) died in ${y}`, ...(p.diedEvidence ?? NO_PROVENANCE) });
  }
  if (publication) {
    const what =
      publication.bound === 'unpublished'
        ? 'unpublished'
        : publication.bound === 'exact'
          ? `first published in ${publication.year}`
          : `first published no later than ${publication.year}`;
    const whose =
      publication.from === 'composer' ? ` (${input.composer.name}: every work published by ${publication.year})` : '';
    decidedBy.push({ fact: `${what}${whose}`, ...(publication.evidence ?? NO_PROVENANCE) });
  }

  const missing = territories.missingFacts;
  const notFree = (['US', 'EU', 'CA'] as const).filter((t) => territories[t].status === 'not-public-domain');
  const asOf = `as of ${input.asOfYear}`;
  let compositionNote: string;
  let summary: string;
  if (compositionStatus === 'permission-documented') {
    compositionNote = 'Permission to use the composition is documented (see the evidence).';
    summary = 'Permission for the composition is documented, so it may be reused as that permission allows.';
  } else if (territories.composition === 'public-domain') {
    compositionNote = `Public domain in the US, the EU and Canada ${asOf}, decided from the recorded facts: ${decidedBy.map((f) => f.fact).join('; ')}.`;
    summary = `The composition is in the public domain in the US, the EU and Canada (${asOf}), so it may be performed, recorded and arranged freely. ${worldwide.status === 'public-domain' ? 'It is in the public domain worldwide.' : worldwide.note}`;
  } else if (notFree.length > 0) {
    const why = notFree.map((t) => `${territoryName(t)}: ${territories[t].note}`).join(' ');
    compositionNote = `Not public domain in ${listWords(notFree.map(territoryName))} ${asOf}. ${why}`;
    summary = `The composition is not in the public domain in ${listWords(notFree.map(territoryName))} (${asOf}), so it is not cleared for reuse.`;
  } else {
    compositionNote = `Not decided in every territory ${asOf}: ${missing.join('; ')} ${missing.length === 1 ? 'is' : 'are'} not recorded.`;
    summary = `The composition is held for rights review: it is not yet known to be in the public domain in the US, the EU and Canada (${asOf}). Missing: ${missing.join('; ')}. Until these facts are recorded the work is not cleared for reuse, and files held for rights review stay unpublished.`;
  }
  if (compositionStatus === 'not-applicable')
    compositionNote = `Marked not applicable by an editor, which does not clear it for reuse. By the facts: ${compositionNote}`;
  return {
    facts,
    publication,
    territories,
    compositionStatus,
    compositionCleared,
    compositionNote: compositionNote.slice(0, 1000),
    summary: summary.slice(0, 1500),
    decidedBy,
    worldwide,
  };
}

/** Licenses under which a held score may be published once its composition is cleared. */
export const OPEN_LICENSES: readonly string[] = [
  'CC0-1.0',
  'PDM-1.0',
  'CC-BY-4.0',
  'CC-BY-SA-4.0',
  'CC-BY-3.0',
  'CC-BY-SA-3.0',
];

/** Whether a file's own terms let it be public: an open license, or public domain without one. */
export function openFileTerms(file: { license: string | null; rightsStatus: string }): boolean {
  if (file.license !== null && file.license.trim() !== '')
    return OPEN_LICENSES.some((l) => l.toLowerCase() === file.license!.trim().toLowerCase());
  return file.rightsStatus === 'public-domain';
}

/**
 * Whether a file held for rights review is released: the facts clear the composition (public
 * domain in every territory, or documented permission) and the file's own terms are open. The
 * edition layer must not block either (public domain, or a named license).
 */
export function heldFileReleased(
  derived: Pick<DerivedWorkRights, 'compositionCleared'>,
  editionCleared: boolean,
  file: { license: string | null; rightsStatus: string },
): boolean {
  return derived.compositionCleared && editionCleared && openFileTerms(file);
}

/** The latest of the deciding facts' acceptance times and a stored check time (ISO UTC strings compare as text). */
export function lastChecked(stored: string | null, decidedBy: readonly DecidingFact[]): string | null {
  let last = stored;
  for (const f of decidedBy) if (f.acceptedAtUtc && (last === null || f.acceptedAtUtc > last)) last = f.acceptedAtUtc;
  return last;
}
