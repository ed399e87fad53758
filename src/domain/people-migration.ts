/**
 * The one-time move of a content repository to people as records (pure; scripts/migrate-people.ts
 * reads and writes the files). Before, a work file embedded its composer and lyricist with their
 * dates and stored its territory statuses and composition status as prose; after, it names people
 * by slug (people/<slug>.json), records its first publication as a fact with evidence, and leaves
 * every conclusion to be derived (docs/rights.md).
 *
 * No fact is made up: a date moves with the evidence the work already cited (the composer's own
 * evidence pages, else the record's rights evidence, saying so); a first publication comes from
 * the record's own words ("First published in 1826") or, where the record only concluded "public
 * domain in the US" at a check date, as the bound that conclusion rested on (published more than 95
 * years before the check), quoting it.
 */
import type { PersonContent } from '../schemas/person.ts';
import type { Evidence } from './people.ts';
import { personSlug } from './people.ts';
import { fold } from './text.ts';

type Data = Record<string, unknown>;

export interface MigrationResult {
  /** The front matter after the move (unchanged when nothing embedded a person). */
  after: Data;
  changed: boolean;
  /** What an editor should know (a person written two ways, a bound taken from a conclusion). */
  notes: string[];
}

const isObject = (v: unknown): v is Data => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** "Hugo Wolf" -> "Wolf, Hugo" (the last word first); a single word stays as it is. */
function sortNameOf(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) return name.trim();
  const last = parts.pop()!;
  return `${last}, ${parts.join(' ')}`;
}

const CLEARED_FILE_STATUSES = new Set(['public-domain', 'cc0', 'licensed', 'original-contribution']);

/**
 * Add (or find) the person an embedded composer or lyricist describes; returns their slug. The
 * same name (folded) and birth date is the same person; another person under a taken slug gets
 * the birth year appended.
 */
function personOf(
  embedded: Data,
  role: 'composer' | 'lyricist',
  work: Data,
  people: Map<string, PersonContent>,
  notes: string[],
): string {
  const name = (str(embedded.name) ?? '').trim() || 'Unknown';
  const sortName = (str(embedded.sortName) ?? '').trim() || sortNameOf(name);
  const born = str(embedded.born) ?? 'unknown';
  const died = str(embedded.died) ?? 'unknown';
  const same = [...people.values()].find((p) => fold(p.name) === fold(name) && p.born === born);
  const aliases = Array.isArray(embedded.aliases)
    ? embedded.aliases.filter((a): a is string => typeof a === 'string')
    : [];
  const wikidataId = str(embedded.wikidataId);
  const own = Array.isArray(embedded.evidenceUrls)
    ? embedded.evidenceUrls.filter((u): u is string => typeof u === 'string')
    : [];
  const title = str(work.title) ?? str(work.slug) ?? '';
  const cited = isObject(work.rights) && Array.isArray(work.rights.evidenceUrls) ? work.rights.evidenceUrls : [];
  const evidence: Evidence[] =
    born === 'unknown' && died === 'unknown'
      ? []
      : own.length > 0
        ? own.map((url) => ({
            url,
            note: `Supports the ${role}'s life dates (recorded with the ${role} before people were records).`,
          }))
        : cited
            .filter((u): u is string => typeof u === 'string')
            .slice(0, 1)
            .map((url) => ({
              url,
              note: `The page the record of "${title}" cited for its rights; the ${role}'s life dates were recorded with that work before people were records.`,
              facts: ['born', 'died'] as Array<'born' | 'died'>,
            }));
  if (same) {
    for (const a of aliases) if (!same.aliases.includes(a)) same.aliases.push(a);
    if (!same.wikidataId && wikidataId) same.wikidataId = wikidataId;
    if (same.died !== died)
      notes.push(
        `${name}: "${title}" recorded the death date as ${died}, another work as ${same.died}; kept ${same.died}.`,
      );
    for (const e of evidence) if (!same.evidence.some((x) => x.url === e.url)) same.evidence.push(e);
    return same.slug;
  }
  let slug = personSlug(sortName);
  if (people.has(slug)) slug = `${slug}-${/^[0-9]{4}/.test(born) ? born.slice(0, 4) : 'unknown'}`;
  for (let n = 2; people.has(slug); n++) slug = `${personSlug(sortName)}-${n}`;
  people.set(slug, {
    slug,
    name,
    sortName,
    aliases,
    born,
    died,
    wikidataId: wikidataId ?? null,
    worksPublishedBy: null,
    evidence,
  });
  return slug;
}

const FIRST_PUBLISHED_IN = /[Ff]irst published(?: \([^)]*\))? in (?:the year )?([0-9]{4})\b/;

function publicationOf(work: Data, notes: string[]): Data | null {
  const rights = isObject(work.rights) ? work.rights : {};
  const cited = (Array.isArray(rights.evidenceUrls) ? rights.evidenceUrls : []).filter(
    (u): u is string => typeof u === 'string',
  );
  const url = cited[0];
  if (!url) return null;
  const title = str(work.title) ?? '';
  const fp = str(work.firstPublished);
  if (fp && /^[0-9]{4}$/.test(fp.trim()))
    return {
      bound: 'exact',
      year: Number(fp.trim()),
      evidence: [
        {
          url,
          note: `First published in ${fp.trim()}, as the record of "${title}" stated before facts carried evidence.`,
        },
      ],
    };
  if (fp && fp.trim().toLowerCase() === 'unpublished')
    return {
      bound: 'unpublished',
      year: null,
      evidence: [{ url, note: `Unpublished, as the record of "${title}" stated before facts carried evidence.` }],
    };
  const us = isObject(rights.territories) && isObject(rights.territories.US) ? rights.territories.US : null;
  const note = str(us?.note) ?? '';
  const m = FIRST_PUBLISHED_IN.exec(note);
  if (m && !/\baround\b/i.test(note.slice(0, m.index + m[0].length)))
    return {
      bound: 'exact',
      year: Number(m[1]),
      evidence: [{ url, note: `The record's US note said: "${note.slice(0, 300)}"` }],
    };
  const checked = str(rights.checkedAtUtc);
  if (us?.status === 'public-domain' && checked && /^[0-9]{4}/.test(checked)) {
    const year = Number(checked.slice(0, 4)) - 96;
    notes.push(
      `"${title}": no first-publication year in the record; recorded as no later than ${year}, the bound its US status "public-domain" (checked ${checked}) rested on. Record the exact year when known.`,
    );
    return {
      bound: 'no-later-than',
      year,
      evidence: [
        {
          url,
          note: `The record's US status was "public-domain" as checked on ${checked.slice(0, 10)}${note ? ` ("${note.slice(0, 240)}")` : ''}: first published more than 95 years before that check.`,
        },
      ],
    };
  }
  return null;
}

const CONCLUSION_OPENING =
  /^The composition is in the public domain \(\{composer\} died in \{died\}\)(?:, so it may be performed, recorded and arranged freely)?\.\s*/;

/** A check date that is no date: the 1970 a proposal used to write when none was given. */
const EPOCH = /^1970-01-01T/;

/**
 * Move one work's front matter to people as records; `people` gains the people it names.
 * `appliedAtUtc`: when the work landed (its first commit), written instead of a 1970 check date.
 */
export function migrateWork(
  before: Data,
  people: Map<string, PersonContent>,
  appliedAtUtc: string | null = null,
): MigrationResult {
  const notes: string[] = [];
  if (!isObject(before.composer) && !isObject(before.lyricist)) return { after: before, changed: false, notes };
  const after: Data = structuredClone(before);
  const checked = isObject(after.rights) ? str(after.rights.checkedAtUtc) : null;
  if (checked !== null && EPOCH.test(checked)) {
    if (appliedAtUtc) (after.rights as Data).checkedAtUtc = appliedAtUtc;
    else
      notes.push(
        `"${str(before.title) ?? ''}": its rights check date is 1970 (no date was given); correct checkedAtUtc.`,
      );
  }
  if (isObject(before.composer)) after.composer = personOf(before.composer, 'composer', before, people, notes);
  const rights = isObject(after.rights) ? after.rights : {};
  const us = isObject(rights.territories) ? rights.territories : {};
  const missing = Object.values(us).flatMap((t) =>
    isObject(t) && Array.isArray(t.missingFacts)
      ? t.missingFacts.filter((f): f is string => typeof f === 'string')
      : [],
  );
  if (isObject(before.lyricist)) after.lyricist = personOf(before.lyricist, 'lyricist', before, people, notes);
  else if (missing.some((f) => /lyricist/.test(f))) after.hasLyrics = true;
  const publication =
    before.firstPublished !== undefined || isObject(rights.territories) ? publicationOf(before, notes) : null;
  if (publication) after.firstPublished = publication;
  else delete after.firstPublished;
  const stored = isObject(rights.composition) ? rights.composition : null;
  const composition = str(stored?.status);
  const wasHeldForComposition = composition === 'unknown';
  if (composition === 'permission-documented' || composition === 'not-applicable') {
    rights.composition = { status: composition, ...(str(stored?.note) ? { note: stored!.note } : {}) };
  } else delete rights.composition;
  delete rights.territories;
  after.rights = rights;
  const note = str(after.rightsNote);
  if (note !== null) {
    const kept = note.replace(CONCLUSION_OPENING, '').trim();
    if (kept === '') delete after.rightsNote;
    else after.rightsNote = kept;
  }
  // Files held only because the composition was not decided become held-for-rights files: they are
  // published with their technical state once the facts decide (docs/rights.md).
  const release = (a: unknown) => {
    if (!isObject(a) || !wasHeldForComposition) return;
    if (a.reviewState !== 'rights-review-required' || a.access !== 'admin-only') return;
    if (!CLEARED_FILE_STATUSES.has(str(a.rightsStatus) ?? '')) return;
    const passed = (str(a.technicalChecks) ?? '').startsWith('Archive technical check passed');
    a.heldForRights = true;
    a.reviewState = passed ? 'technical-pass' : 'pending';
    a.access = 'public';
  };
  if (Array.isArray(after.sourceAssets)) after.sourceAssets.forEach(release);
  if (Array.isArray(after.arrangements))
    for (const arr of after.arrangements) if (isObject(arr) && Array.isArray(arr.assets)) arr.assets.forEach(release);
  return { after, changed: true, notes };
}
