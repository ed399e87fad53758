/**
 * Rights notes quote facts the record also holds (the composer's dates, the work's year), and a
 * note written with the fact in it goes stale when the fact is corrected. So notes name facts by
 * placeholder, and the record builder writes the facts in at build time: a correction of the
 * fact is then the only edit, and every surface made from the record (JSON, Markdown, HTML,
 * resolve) quotes the new value. The content lint refuses an unknown placeholder.
 *
 *   {composer}  the composer's name         {year}  the work's year as written
 *   {born}      the year of birth           {died}  the year of death
 *   {title}     the work's title            {workNumber}  its catalog number (or nothing)
 */
export interface NoteFacts {
  title: string;
  year: string;
  workNumber: string | null;
  composer: { name: string; born: string; died: string };
}

export const NOTE_PLACEHOLDERS = ['composer', 'born', 'died', 'year', 'title', 'workNumber'] as const;
const PLACEHOLDER = /\{([A-Za-z]+)\}/g;

/** A life date's year, or "unknown" for a life date the sources do not give. */
export const yearOrUnknown = (date: string): string => (/^[0-9]{4}/.test(date) ? date.slice(0, 4) : 'unknown');

function value(facts: NoteFacts, name: string): string | undefined {
  switch (name) {
    case 'composer':
      return facts.composer.name;
    case 'born':
      return yearOrUnknown(facts.composer.born);
    case 'died':
      return yearOrUnknown(facts.composer.died);
    case 'year':
      return facts.year;
    case 'title':
      return facts.title;
    case 'workNumber':
      return facts.workNumber ?? '';
    default:
      return undefined;
  }
}

/** The note with its placeholders replaced by the facts; unknown ones stay as written (the lint reports them). */
export function quoteFacts(note: string, facts: NoteFacts): string;
export function quoteFacts(note: string | null, facts: NoteFacts): string | null;
export function quoteFacts(note: string | null, facts: NoteFacts): string | null {
  if (note === null || !note.includes('{')) return note;
  return note.replace(PLACEHOLDER, (whole, name: string) => value(facts, name) ?? whole);
}

/** Placeholders in a note that name no fact ("{diedd}"). */
export function unknownPlaceholders(note: string | null): string[] {
  if (note === null) return [];
  return [...note.matchAll(PLACEHOLDER)]
    .map((m) => m[1]!)
    .filter((n) => !(NOTE_PLACEHOLDERS as readonly string[]).includes(n));
}

interface LayerLike {
  status: string;
  note: string;
}
interface RightsLike {
  composition: LayerLike;
  edition: LayerLike;
  recording: LayerLike;
  territories: Record<string, LayerLike>;
}

/** The work's rights with every layer's and territory's note quoting the facts. */
export function rightsWithFacts<R extends RightsLike>(rights: R, facts: NoteFacts): R {
  const layer = <L extends LayerLike>(l: L): L => ({ ...l, note: quoteFacts(l.note, facts) });
  return {
    ...rights,
    composition: layer(rights.composition),
    edition: layer(rights.edition),
    recording: layer(rights.recording),
    territories: Object.fromEntries(Object.entries(rights.territories).map(([k, v]) => [k, layer(v)])),
  };
}
