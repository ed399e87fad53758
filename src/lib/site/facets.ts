/**
 * Browse facets of the catalog, computed once per build: composers (with their works), periods,
 * genres, instruments and music roles, each value with its slug, count and works. Values that
 * fold to the same slug ("Suite" and "suite") are one value, shown as first written.
 */
import { broaderGenre, narrowerGenres } from '../../domain/genres.ts';
import { MUSIC_ROLES } from '../../schemas/common.ts';
import { fold } from '../../domain/text.ts';
import { foldedOf, lowerBound, patchSorted, sortKept } from './kept-order.ts';
import {
  buildScope,
  site,
  siteDelta,
  worksInScope,
  type BuildScope,
  type SiteData,
  type SiteDelta,
  type SiteWork,
} from '../site-data.ts';
import { ROLE_LABELS } from './format.ts';
import { pageUrls, slugify, type FacetName } from './paths.ts';
import type { WorkContent } from '../../schemas/work.ts';
import type { GenreTerm } from '../../schemas/genre.ts';
import { yearOrUnknown } from '../../domain/fact-notes.ts';
import { peopleOfWork } from '../../domain/people.ts';

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
  /** The composer's person record (people/<slug>.json): the page the composer's links lead to. */
  person: string;
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

/** Display order: composer sort name, title, slug (folded). A total order: slugs are unique. */
function byDisplay(a: SiteWork, b: SiteWork): number {
  const x = foldedOf(a.entry);
  const y = foldedOf(b.entry);
  return (
    x.composer.localeCompare(y.composer) || x.title.localeCompare(y.title) || a.entry.slug.localeCompare(b.entry.slug)
  );
}

/** Works in display order (composer sort name, title, slug; folded). */
function inDisplayOrder(list: SiteWork[]): SiteWork[] {
  return sortKept('display', list, (w) => w.entry, byDisplay);
}

// Keyed by the site data, which the Astro runs of one batched build share (src/lib/site-data.ts):
// each run imports its own copy of this module, and the listings are sorted once per build.
const shelf = globalThis as { [k: symbol]: WeakMap<SiteData, Facets> | undefined };
const FACETS = Symbol.for('pdma.build.facets');

/** A composer's grouping key: one entry per folded sort name and birth date. */
function composerKey(w: SiteWork): string {
  return `${foldedOf(w.entry).composer}|${w.entry.composer.born}`;
}

/** Composers in list order: folded sort name, then birth date (a total order over their keys; `makeFacets` sorts by the same). */
function byComposer(a: { sortName: string; born: string }, b: { sortName: string; born: string }): number {
  return fold(a.sortName).localeCompare(fold(b.sortName)) || a.born.localeCompare(b.born);
}

/** A composer's entry from its works (display order): the first work's names and dates, every work's aliases. */
function composerEntry(works: SiteWork[], slug: string, href: string): ComposerEntry {
  const c = works[0]!.entry.composer;
  const aliases = [...c.aliases];
  for (let i = 1; i < works.length; i++)
    for (const a of works[i]!.entry.composer.aliases) if (!aliases.includes(a)) aliases.push(a);
  const person = c.slug ?? slug;
  return { slug, person, name: c.name, sortName: c.sortName, born: c.born, died: c.died, aliases, href, works };
}

/** Give each composer its slug: the slugified sort name, with the birth year where two share it. */
function nameComposers(list: ComposerEntry[]): void {
  const u = pageUrls();
  const slugCount = new Map<string, number>();
  for (const c of list) slugCount.set(slugify(c.sortName), (slugCount.get(slugify(c.sortName)) ?? 0) + 1);
  for (const c of list) {
    const s = slugify(c.sortName);
    c.slug = (slugCount.get(s) ?? 0) > 1 ? `${s}-${yearOrUnknown(c.born)}` : s;
    // The composer's page is their person page; /composers/<slug>/ leads there.
    c.person = c.works[0]?.entry.composer.slug ?? c.slug;
    c.href = u.person(c.person);
  }
}

type Keyed = { slug: string; label: string; description?: string | null };

/**
 * The values each work has per facet, by the build's instruments and genre vocabulary. A work's
 * values come from a few distinct strings (periods, genres, instruments, roles): each distinct one
 * is worked out once per build, not once per work (at 10,000 works the per-work slugs and objects
 * were most of a scoped apply's facet time).
 */
function facetValuesOf(data: SiteData): Record<FacetName, (w: SiteWork) => readonly Keyed[]> {
  const instrumentFamily = new Map(data.instruments.map((i) => [i.slug, i.family]));
  const once = <T>(make: (key: string) => T): ((key: string) => T) => {
    const made = new Map<string, T>();
    return (key) => {
      let value = made.get(key);
      if (value === undefined) made.set(key, (value = make(key)));
      return value;
    };
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
  return {
    period: (w) => (w.entry.period ? periodValues(w.entry.period) : []),
    genre: (w) => (w.entry.genre ? genreValues(w.entry.genre) : []),
    instrument: (w) => w.entry.instruments.map(instrumentValue),
    role: (w) => w.entry.roles.map(roleValue).filter((v): v is Keyed => v !== null),
  };
}

const FACET_ORDER: readonly FacetName[] = ['period', 'genre', 'instrument', 'role'];

/** Values in list order: most works first, then by label. */
function byCount(a: FacetValue, b: FacetValue): number {
  return b.works.length - a.works.length || a.label.localeCompare(b.label);
}

export function facets(): Facets {
  const data = site();
  const kept = (shelf[FACETS] ??= new WeakMap()).get(data);
  if (kept) return kept;
  // A build whose site data was patched from the last build's patches that build's facets.
  const delta = siteDelta(data);
  const before = delta ? shelf[FACETS].get(delta.from) : undefined;
  const result = (before && delta && patchFacets(before, data, delta)) || makeFacets(data);
  shelf[FACETS].set(data, result);
  return result;
}

function makeFacets(data: SiteData): Facets {
  const u = pageUrls();
  // Every work is grouped, but only by its `entry`: the records are built by the pages that show them.
  const works = inDisplayOrder(data.works);

  // Composers: one entry per folded sort name; a name written two ways with different life
  // dates stays two composers (the slug then carries the birth year).
  const composers = new Map<string, SiteWork[]>();
  for (const w of works) {
    const key = composerKey(w);
    const list = composers.get(key);
    if (list) list.push(w);
    else composers.set(key, [w]);
  }
  // A composer's works are in title order (then slug): they were taken from `works` in display
  // order, which sorts the works of one folded composer name by folded title, then slug.
  const composerList = [...composers.values()].map((list) => composerEntry(list, '', ''));
  const folded = new Map(composerList.map((c) => [c, fold(c.sortName)]));
  composerList.sort((a, b) => folded.get(a)!.localeCompare(folded.get(b)!) || a.born.localeCompare(b.born));
  nameComposers(composerList);

  const valuesOf = facetValuesOf(data);
  const group = (facet: FacetName): FacetValue[] => {
    const keyed = valuesOf[facet];
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
    return [...map.values()].sort(byCount);
  };

  const composerByWork = new Map<string, ComposerEntry>();
  for (const c of composerList) for (const w of c.works) composerByWork.set(w.entry.slug, c);

  return {
    composers: composerList,
    works,
    composerByWork,
    values: {
      period: group('period'),
      genre: group('genre'),
      instrument: group('instrument'),
      role: group('role'),
    },
  };
}

/**
 * The last build's facets brought up to this build's works (`delta`, src/lib/site-data.ts): the
 * changed works are taken out of and put into the orders, composers and values they belong to,
 * by binary search in display order, and only the composers and values they touch are made
 * again. The same facets `makeFacets` gives (test/site/facets-patch.test.ts); null where a patch
 * cannot tell (two values tied on count and label, whose order is the order they were met in),
 * and the caller makes them afresh. The last build's `composerByWork`, and its composers' slugs
 * when a composer comes or goes, are brought up to date in place: the last build's facets are not
 * read after this build's are made.
 */
function patchFacets(before: Facets, data: SiteData, delta: SiteDelta): Facets | null {
  const u = pageUrls();
  const works = patchSorted(before.works, delta.removed, delta.added, byDisplay);
  if (works === null) return null;

  // Composers: the works each touched composer loses and gains.
  const touched = new Map<string, { removed: SiteWork[]; added: SiteWork[] }>();
  const touch = (w: SiteWork) => {
    const key = composerKey(w);
    let t = touched.get(key);
    if (t === undefined) touched.set(key, (t = { removed: [], added: [] }));
    return t;
  };
  for (const w of delta.removed) touch(w).removed.push(w);
  for (const w of delta.added) touch(w).added.push(w);
  const composerKeyOf = (c: ComposerEntry) => `${fold(c.sortName)}|${c.born}`;
  const composerAt = (list: readonly ComposerEntry[], key: string, probe: { sortName: string; born: string }) => {
    const at = lowerBound(list, probe, byComposer);
    return { at, found: at < list.length && composerKeyOf(list[at]!) === key };
  };
  const composerList = before.composers.slice();
  let composersChanged = false;
  const remade: ComposerEntry[] = [];
  for (const [key, { removed, added }] of touched) {
    const probe = (removed[0] ?? added[0])!.entry.composer;
    const { at, found } = composerAt(composerList, key, probe);
    const old = found ? composerList[at]! : undefined;
    if (old === undefined && removed.length > 0) return null;
    const list = patchSorted(old?.works ?? [], removed, added, byDisplay);
    if (list === null) return null;
    if (list.length === 0) {
      composerList.splice(at, 1);
      composersChanged = true;
    } else {
      const entry = composerEntry(list, old?.slug ?? '', old?.href ?? '');
      if (old) composerList[at] = entry;
      else {
        composerList.splice(at, 0, entry);
        composersChanged = true;
      }
      remade.push(entry);
    }
  }
  if (composersChanged) nameComposers(composerList);
  const composerByWork = before.composerByWork;
  for (const w of delta.removed) composerByWork.delete(w.entry.slug);
  for (const c of remade) for (const w of c.works) composerByWork.set(w.entry.slug, c);

  // Values: each facet's values the changed works leave or join, made again from their works.
  const valuesOf = facetValuesOf(data);
  const values = {} as Facets['values'];
  for (const facet of FACET_ORDER) {
    const keyed = valuesOf[facet];
    const change = new Map<string, { removed: SiteWork[]; added: SiteWork[] }>();
    const note = (w: SiteWork, side: 'removed' | 'added', slugs: Iterable<string>) => {
      for (const slug of new Set(slugs)) {
        let c = change.get(slug);
        if (c === undefined) change.set(slug, (c = { removed: [], added: [] }));
        c[side].push(w);
      }
    };
    // A removed work's values are what the last build grouped it under: the same rules, its entry is unchanged.
    for (const w of delta.removed)
      note(
        w,
        'removed',
        keyed(w).map((v) => v.slug),
      );
    for (const w of delta.added)
      note(
        w,
        'added',
        keyed(w).map((v) => v.slug),
      );
    const bySlug = new Map(before.values[facet].map((v) => [v.slug, v]));
    for (const [slug, { removed, added }] of change) {
      const old = bySlug.get(slug);
      if (old === undefined && removed.length > 0) return null;
      const list = patchSorted(old?.works ?? [], removed, added, byDisplay);
      if (list === null) return null;
      if (list.length === 0) {
        bySlug.delete(slug);
        continue;
      }
      const first = keyed(list[0]!).find((v) => v.slug === slug)!;
      bySlug.set(slug, {
        facet,
        slug,
        label: first.label,
        description: first.description ?? null,
        href: u.facet(facet, slug),
        works: list,
      });
    }
    const list = [...bySlug.values()].sort(byCount);
    for (let i = 1; i < list.length; i++) if (byCount(list[i - 1]!, list[i]!) === 0) return null;
    values[facet] = list;
  }
  return { composers: composerList, works, composerByWork, values };
}

/** The composer entry of a work. */
export function composerOf(work: SiteWork): ComposerEntry | undefined {
  return facets().composerByWork.get(work.entry.slug);
}

/**
 * The browse keys ("facet/value-slug") a work's content puts it under, by the same rules as
 * `facets()` above: the incremental build (build/plan.ts, a plan with a base) re-renders the browse
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

/** A person's key in an incremental build's scope: their page lists the works that name them. */
export function personScopeKey(slug: string): string {
  return `person/${slug}`;
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
      for (const p of peopleOfWork(w.loaded.content)) keys.add(personScopeKey(p.slug));
    }
    scopeKeys.set(data, (kept = { scope, keys }));
  }
  return kept.keys.has(key);
}
