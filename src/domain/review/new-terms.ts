/**
 * New vocabulary terms a contribution proposes (work.newTerms: a genre for genres.json,
 * instruments for instruments.json), pure. They become part of a proposal only once an editor
 * approved them in review; each is added when the file lacks it (by name for a genre, by slug
 * for an instrument), as one appended entry so the diff shows just that term.
 */
import type { GenreTerm } from '../../schemas/genre.ts';
import type { ProposedTerms } from '../../schemas/contribution.ts';

/** The proposed terms in words, e.g. 'genre "String quartet" (under Chamber music)'. */
export function proposedTermLabels(t: ProposedTerms | null | undefined): string[] {
  if (!t) return [];
  return [
    ...(t.genre ? [`genre "${t.genre.name}" (under ${t.genre.broader})`] : []),
    ...(t.instruments ?? []).map((i) => `instrument "${i.name}" (${i.slug}, ${i.family})`),
  ];
}

/** Append one entry to a JSON array file's text (the entry's own lines, indented as given). */
function appendEntry(text: string, entry: string): string {
  const end = text.lastIndexOf(']');
  if (end < 0) throw new Error('not a JSON array');
  const head = text.slice(0, end).trimEnd();
  const empty = head.endsWith('[');
  return `${head}${empty ? '' : ','}\n${entry}\n${text.slice(end)}`;
}

/** genres.json with the genre added, or null when it has the term already. */
export function addGenre(text: string, term: GenreTerm): string | null {
  const list = JSON.parse(text) as GenreTerm[];
  if (!Array.isArray(list)) throw new Error('genres.json is not an array');
  if (list.some((g) => g.name.toLowerCase() === term.name.toLowerCase())) return null;
  const fields = Object.entries({ name: term.name, broader: term.broader, scopeNote: term.scopeNote }).filter(
    ([, v]) => v !== undefined,
  );
  return appendEntry(text, `  { ${fields.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')} }`);
}

/** instruments.json with the instruments it lacks added, or null when it has them all. */
export function addInstruments(text: string, proposed: NonNullable<ProposedTerms['instruments']>): string | null {
  const list = JSON.parse(text) as Array<{ slug: string }>;
  if (!Array.isArray(list)) throw new Error('instruments.json is not an array');
  const have = new Set(list.map((i) => i.slug));
  let out = text;
  for (const i of proposed) {
    if (have.has(i.slug)) continue;
    have.add(i.slug);
    const entry = { slug: i.slug, name: i.name, family: i.family, aliases: i.aliases ?? [] };
    out = appendEntry(
      out,
      JSON.stringify(entry, null, 2)
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
    );
  }
  return out === text ? null : out;
}
