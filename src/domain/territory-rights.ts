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

export interface RightsFacts {
  authors: AuthorFact[];
  /** First publication year; null when not known; 'unpublished' when known never to have been published. */
  firstPublished: number | 'unpublished' | null;
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
