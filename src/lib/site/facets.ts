/**
 * Browse facets of the catalog, computed once per build: composers (with their works), periods,
 * genres, instruments and music roles, each value with its slug, count and works. Values that
 * fold to the same slug ("Suite" and "suite") are one value, shown as first written.
 */
import { broaderGenre, narrowerGenres } from '../../domain/genres.ts';
import { MUSIC_ROLES } from '../../schemas/common.ts';
import { fold } from '../../domain/text.ts';
import { foldedOf, sortKept } from './kept-order.ts';
import { buildScope, site, worksInScope, type BuildScope, type SiteData, type SiteWork } from '../site-data.ts';
import { ROLE_LABELS } from './format.ts';
import { pageUrls, slugify, type FacetName } from './paths.ts';
import type { WorkContent } from '../../schemas/work.ts';
import type { GenreTerm } from '../../schemas/genre.ts';
import { yearOrUnknown } from '../../domain/fact-notes.ts';

export interface FacetValue {
  facet: FacetName;
  slug: string;
  label: string;
  /** Longer words for the page heading (roles, instrument families). */
  description: string | null;
  href: string;
  works: SiteWork[];
}

export interface ComposerEntry {
  slug: string;
  name: string;
  sortName: string;
  born: string;
  died: string;
  aliases: string[];
  href: string;
  works: SiteWork[];
}

export interface Facets {
  composers: ComposerEntry[];
  /** Every facet's values, most works first, then by label. */
  values: Record<FacetName, FacetValue[]>;
  /** Works in display order: composer sort name, title, slug. */
  works: SiteWork[];
  /** The composer entry of each work, by work slug. */
  composerByWork: Map<string, ComposerEntry>;
}

export const FACET_TITLES: Record<FacetName, { plural: string; singular: string }> = {
  period: { plural: 'Periods', singular: 'Period' },
  genre: { plural: 'Genres', singular: 'Genre' },
  instrument: { plural: 'Instruments', singular: 'Instrument' },
  role: { plural: 'Music roles', singular: 'Music role' },
};

/** Works in display order (composer sort name, title, slug; folded). */
function inDisplayOrder(list: SiteWork[]): SiteWork[] {
  return sortKept(
    'display',
    list,
    (w) => w.entry,
    (a, b) => {
      const x = foldedOf(a.entry);
      const y = foldedOf(b.entry);
      return (
        x.composer.localeCompare(y.composer) ||
        x.title.localeCompare(y.title) ||
        a.entry.slug.localeCompare(b.entry.slug)
      );
    },
  );
}

// Keyed by the site data, which the Astro runs of one batched build share (src/lib/site-data.ts):
// each run imports its own copy of this module, and the listings are sorted once per build.
const shelf = globalThis as { [k: symbol]: WeakMap<SiteData, Facets> | undefined };
const FACETS = Symbol.for('pdma.build.facets');

export function facets(): Facets {
  const data = site();
  const kept = (shelf[FACETS] ??= new WeakMap()).get(data);
  if (kept) return kept;
  const u = pageUrls();
  // Every work is grouped, but only by its `entry`: the records are built by the pages that show them.
  const works = inDisplayOrder(data.works);

  // Composers: one entry per folded sort name; a name written two ways with different life
  // dates stays two composers (the slug then carries the birth year).
  const composers = new Map<string, ComposerEntry>();
  for (const w of works) {
    const c = w.entry.composer;
    const key = `${foldedOf(w.entry).composer}|${c.born}`;
    const entry = composers.get(key);
    if (entry) {
      entry.works.push(w);
      for (const a of c.aliases) if (!entry.aliases.includes(a)) entry.aliases.push(a);
    } else {
      composers.set(key, {
        slug: '',
        name: c.name,
        sortName: c.sortName,
        born: c.born,
        died: c.died,
        aliases: [...c.aliases],
        href: '',
        works: [w],
      });
    }
  }
  const folded = new Map([...composers.values()].map((c) => [c, fold(c.sortName)]));
  const composerList = [...composers.values()].sort(
    (a, b) => folded.get(a)!.localeCompare(folded.get(b)!) || a.born.localeCompare(b.born),
  );
  const slugCount = new Map<string, number>();
  for (const c of composerList) slugCount.set(slugify(c.sortName), (slugCount.get(slugify(c.sortName)) ?? 0) + 1);
  for (const c of composerList) {
    const s = slugify(c.sortName);
    c.slug = (slugCount.get(s) ?? 0) > 1 ? `${s}-${yearOrUnknown(c.born)}` : s;
    c.href = u.composer(c.slug);
    // A composer's works are in title order already (then slug): they were taken from `works` in
    // display order, which sorts the works of one folded composer name by folded title, then slug.
  }

  const instrumentFamily = new Map(data.instruments.map((i) => [i.slug, i.family]));
  type Keyed = { slug: string; label: string; description?: string | null };
  // A work's values per facet come from a few distinct strings (periods, genres, instruments,
  // roles): each distinct one is worked out once per build, not once per work (at 10,000 works
  // the per-work slugs and objects were most of a scoped apply's facet time).
  const once = <T>(make: (key: string) => T): ((key: string) => T) => {
    const made = new Map<string, T>();
    return (key) => {
      let value = made.get(key);
      if (value === undefined) made.set(key, (value = make(key)));
      return value;
    };
  };
  const group = (facet: FacetName, keyed: (w: SiteWork) => readonly Keyed[]): FacetValue[] => {
    const map = new Map<string, FacetValue>();
    for (const w of works) {
      for (const v of keyed(w)) {
        const entry = map.get(v.slug);
        if (entry) {
          // A value named twice by one work counts the work once: its values are grouped one
          // work at a time, so an earlier one of this work is the list's last.
          if (entry.works[entry.works.length - 1] !== w) entry.works.push(w);
        } else
          map.set(v.slug, {
            facet,
            slug: v.slug,
            label: v.label,
            description: v.description ?? null,
            href: u.facet(facet, v.slug),
            works: [w],
          });
      }
    }
    return [...map.values()].sort((a, b) => b.works.length - a.works.length || a.label.localeCompare(b.label));
  };
  const periodValues = once((period): Keyed[] => [{ slug: slugify(period), label: period }]);
  // Grouped by the vocabulary's broader term (genres.json), never one facet value per work.
  const genreValues = once((genre): Keyed[] => {
    const broader = broaderGenre(data.catalog.genres, genre);
    const narrower = narrowerGenres(data.catalog.genres, broader);
    return [
      {
        slug: slugify(broader),
        label: broader,
        description: narrower.length > 0 ? `Includes: ${narrower.join(', ')}.` : null,
      },
    ];
  });
  const instrumentValues = new Map<string, Keyed>();
  const instrumentValue = (i: { slug: string; name: string; family: string }): Keyed => {
    let value = instrumentValues.get(i.slug);
    if (value === undefined)
      instrumentValues.set(
        i.slug,
        (value = { slug: i.slug, label: i.name, description: `Family: ${instrumentFamily.get(i.slug) ?? i.family}` }),
      );
    return value;
  };
  const roleValue = once((r): Keyed | null =>
    (MUSIC_ROLES as readonly string[]).includes(r)
      ? {
          slug: r,
          label: ROLE_LABELS[r as keyof typeof ROLE_LABELS],
          description: `Works with an arrangement made for, or suited to, the role "${r}".`,
        }
      : null,
  );

  const composerByWork = new Map<string, ComposerEntry>();
  for (const c of composerList) for (const w of c.works) composerByWork.set(w.entry.slug, c);

  const result: Facets = {
    composers: composerList,
    works,
    composerByWork,
    values: {
      period: group('period', (w) => (w.entry.period ? periodValues(w.entry.period) : [])),
      genre: group('genre', (w) => (w.entry.genre ? genreValues(w.entry.genre) : [])),
      instrument: group('instrument', (w) => w.entry.instruments.map(instrumentValue)),
      role: group('role', (w) => w.entry.roles.map(roleValue).filter((v): v is Keyed => v !== null)),
    },
  };
  shelf[FACETS]!.set(data, result);
  return result;
}

/** The composer entry of a work. */
export function composerOf(work: SiteWork): ComposerEntry | undefined {
  return facets().composerByWork.get(work.entry.slug);
}

/**
 * The browse keys ("facet/value-slug") a work's content puts it under, by the same rules as
 * `facets()` above: the incremental build (scripts/build/plan.ts, a plan with a base) re-renders the browse
 * pages a changed work left as well as those it joined.
 */
export function facetKeysOf(content: WorkContent, genres: GenreTerm[] | null): string[] {
  const keys = new Set<string>();
  if (content.period) keys.add(`period/${slugify(content.period)}`);
  if (content.genre) keys.add(`genre/${slugify(broaderGenre(genres, content.genre))}`);
  for (const slug of content.instruments) keys.add(`instrument/${slug}`);
  for (const a of content.arrangements) {
    for (const r of [a.intendedRole, ...a.alsoSuits])
      if ((MUSIC_ROLES as readonly string[]).includes(r)) keys.add(`role/${r}`);
  }
  return [...keys];
}

/** A composer's key in an incremental build's scope ("composer/<folded sort name>|<born>"), as `facets()` groups composers. */
export function composerScopeKey(c: { sortName: string; born: string }): string {
  return `composer/${fold(c.sortName)}|${c.born}`;
}

// The listing keys of a run's scope, once per run (keyed by the run's site data and scope).
const scopeKeys = new WeakMap<SiteData, { scope: BuildScope; keys: Set<string> }>();

/**
 * Whether the listing page under `key` (a browse value's "facet/value-slug", a composer's
 * `composerScopeKey`) is built in this run: every one without a scope or with every listing;
 * else one the scope names, and with listings "of-works" one that lists a work in scope. The
 * works in scope give their keys (`facetKeysOf`, `composerScopeKey`: the rules `facets()` groups
 * by), rather than every listing's works being searched for one in scope: at 100,000 works that
 * search was hundreds of thousands of look-ups per apply.
 */
export function listingInScope(key: string): boolean {
  const scope = buildScope();
  if (scope === null || scope.listings === 'all') return true;
  if (scope.facets.has(key)) return true;
  if (scope.listings !== 'of-works') return false;
  const data = site();
  let kept = scopeKeys.get(data);
  if (kept === undefined || kept.scope !== scope) {
    const keys = new Set<string>();
    for (const w of worksInScope()) {
      for (const k of facetKeysOf(w.loaded.content, data.catalog.genres)) keys.add(k);
      keys.add(composerScopeKey(w.entry.composer));
    }
    scopeKeys.set(data, (kept = { scope, keys }));
  }
  return kept.keys.has(key);
}
