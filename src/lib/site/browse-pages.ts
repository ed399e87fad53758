/**
 * The browse value pages (/browse/<facet>/<value>/), paged: a period, genre, instrument or music
 * role lists its works in display order (composer, title), WORKS_INDEX_PAGE_SIZE per page on
 * average (the setting the works index uses: one page size for every listing of works), each page
 * starting where the content says (src/domain/listing-pages.ts), as the works index's do. Page 1
 * is the value's own address; page n is /browse/<facet>/<value>/<n>/. Before 2026-11-29 one page
 * listed every work of its value: at 100,000 works a period's page was about 5 MB of HTML, and a
 * correction rendered about ten such pages.
 *
 * An incremental build renders only the pages whose inputs changed, as the works index does
 * (src/lib/site/works-index.ts): every page has a key, the SHA-256 of everything a page 2.. reads
 * (the value's label and description, its page count, its slice of works' entries; the value's
 * total is on page 1 only); a build keeps the keys of every value's pages beside `client/`
 * (`browse-pages.json`); the next incremental build renders page 1 of every value in its scope
 * (as before) and pages 2.. of those values only where the key differs from its base's. A
 * correction renders page 1 and the page that shows the work; a new or removed work, page 1 and
 * the page it is on (every page of the value when its page count changes).
 */
import path from 'node:path';
import { RememberedFile } from '../file-identity.ts';
import { buildScope } from '../site-data.ts';
import { facets, listingInScope, type FacetValue } from './facets.ts';
import type { FacetName } from './paths.ts';
import {
  forgetListingPages,
  listingPageSlice,
  listingPageStarts,
  pagedKeys,
  WORKS_INDEX_PAGE_SIZE,
} from './works-index.ts';

const FACET_NAMES: readonly FacetName[] = ['period', 'genre', 'instrument', 'role'];

/** How many pages a value has (one at least). */
export function browsePageCount(value: FacetValue): number {
  return listingPageStarts(listingId(value), value.works).length;
}

/** The address of page `page` of a value (its `href` is page 1). */
export function browsePageHref(value: FacetValue, page: number): string {
  return page === 1 ? value.href : `${value.href}${page}/`;
}

/** The works page `page` of a value shows. */
export function browsePageSlice(value: FacetValue, page: number): FacetValue['works'] {
  return listingPageSlice(listingId(value), value.works, page);
}

/** A value's key in `browse-pages.json` and an incremental build's scope: "facet/value-slug". */
export function browseKey(value: FacetValue): string {
  return `${value.facet}/${value.slug}`;
}

/** A value's listing among the listings whose page starts and keys a run keeps (works-index.ts). */
const listingId = (value: FacetValue) => `browse/${browseKey(value)}`;

/** The file a build keeps beside `client/`: the key of every page of every browse value. */
export const BROWSE_KEYS_FILE = 'browse-pages.json';

/** What a build keeps in BROWSE_KEYS_FILE: per value ("facet/value-slug"), the key of page 1, 2, ... */
export type BrowseKeys = Record<string, string[]>;

/** The key of every page of one value (index 0 is page 1). */
export function browsePageKeys(value: FacetValue): string[] {
  const summary = JSON.stringify([value.label, value.description, browsePageCount(value), WORKS_INDEX_PAGE_SIZE]);
  const made = pagedKeys(listingId(value), value.works, summary);
  const run = store[RENDERED];
  if (run) run.hashed += made.hashed;
  return made.keys;
}

/** Forget the page keys earlier runs kept (a full build, before its first run). */
export function forgetBrowsePageKeys(): void {
  forgetListingPages('browse/');
}

/**
 * Where a run leaves the keys of the values it rendered, how many pages 2.. it rendered, how many
 * pages' keys it hashed (the others were the process's last run's, over the same entries), and
 * every value of the catalog (for the build script in the same process).
 */
const RENDERED = Symbol.for('pdma.build.browsePages');
type RenderedPages = { keys: BrowseKeys; rendered: number; hashed: number; values: string[] | null };
const store = globalThis as { [RENDERED]?: RenderedPages };

/** Forget what earlier runs of this process left (the build script, before a run). */
export function resetBrowsePages(): void {
  store[RENDERED] = { keys: {}, rendered: 0, hashed: 0, values: null };
}

/** The keys of the values the runs since the last reset rendered, the pages 2.. they rendered, the keys they hashed, every value. */
export function browsePagesOfRun(): RenderedPages {
  return store[RENDERED] ?? { keys: {}, rendered: 0, hashed: 0, values: null };
}

/**
 * The static paths of pages 2.. of every value this run renders (`listingInScope`, as page 1). In
 * an incremental build whose base kept its keys (`scope.browseBase`), only the pages whose key
 * changed. The keys of every value in scope (in an incremental build over a base without keys,
 * of every value) are left for the build script (`writeBrowseKeys`).
 */
export function browsePagePaths(): Array<{
  params: { facet: FacetName; value: string; page: string };
  props: { facet: FacetName; slug: string; page: number };
}> {
  const scope = buildScope();
  const base = scope?.browseBase;
  // Also the values not rendered: an incremental build over a base that kept no keys (for the next
  // build's file), and the warm-up (for the next builds in this process: the first apply to reach a
  // value would otherwise hash every page of it, about 0.4-0.8 s at 100,000 works).
  const keysOfAll = scope !== null && scope.listings === 'of-works' && (base === undefined || scope.warmUp === true);
  const kept = (store[RENDERED] ??= { keys: {}, rendered: 0, hashed: 0, values: null });
  const out: ReturnType<typeof browsePagePaths> = [];
  const f = facets();
  const values: string[] = [];
  for (const facet of FACET_NAMES)
    for (const value of f.values[facet]) {
      const id = browseKey(value);
      values.push(id);
      if (!listingInScope(id)) {
        // An incremental build over a base that kept no keys (built before 2026-11-29), or the
        // warm-up: the keys of the values it does not render are made here, for the next build.
        if (keysOfAll) kept.keys[id] = browsePageKeys(value);
        continue;
      }
      const keys = browsePageKeys(value);
      kept.keys[id] = keys;
      const before = base?.[id];
      for (let page = 2; page <= keys.length; page++)
        if (before?.[page - 1] !== keys[page - 1]) {
          out.push({
            params: { facet, value: value.slug, page: String(page) },
            props: { facet, slug: value.slug, page },
          });
          kept.rendered++;
        }
    }
  kept.values = values;
  return out;
}

/**
 * Write the keys of every browse value into `outDir` (beside `client/`): this build's runs' keys
 * for the values they rendered, the base's (`baseKeys`) for the others, and none for a value that
 * no longer exists. Returns what it wrote. Throws when no run listed the values (no browse page
 * was rendered) or a value has no keys (its base kept none and this build did not render it).
 */
export function writeBrowseKeys(outDir: string, baseKeys: BrowseKeys | null): BrowseKeys {
  const { keys, values } = browsePagesOfRun();
  if (values === null) throw new Error('the Astro run listed no browse values');
  const out: BrowseKeys = {};
  for (const id of values) {
    const k = keys[id] ?? baseKeys?.[id];
    if (k === undefined) throw new Error(`no browse page keys for ${id}: the Astro runs did not render it`);
    out[id] = k;
  }
  writtenKeys.writeJson(path.join(outDir, BROWSE_KEYS_FILE), out);
  return out;
}

// The keys this process wrote last, for the next build, which starts from that folder (about
// 0.4 MB of JSON at 100,000 works, not parsed again).
const writtenKeys = new RememberedFile<BrowseKeys>();

/** A build's kept keys, or null when it kept none (built before 2026-11-29) or they do not read as keys. */
export function readBrowseKeys(buildDir: string): BrowseKeys | null {
  return writtenKeys.readJson(path.join(buildDir, BROWSE_KEYS_FILE), (raw) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
    const out: BrowseKeys = {};
    for (const [id, keys] of Object.entries(raw as Record<string, unknown>)) {
      if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) return null;
      out[id] = keys as string[];
    }
    return out;
  });
}
