/**
 * What of a base build's Pagefind index a new build can keep: the whole index when no search
 * record changed, else the shards no changed record falls in (src/lib/site/search-index.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { knownSlugOrdered, type Catalog, type LoadedWork } from '../src/domain/catalog.ts';
import { lowerBound, workToSlug } from '../src/lib/site/kept-order.ts';
import { SiteView } from '../src/lib/site/layers.ts';
import {
  searchRecords,
  shardCount,
  shardOf,
  shardWorksFrom,
  SHARD_SCHEME,
  SHARDS_FILE,
  type ShardReuse,
} from '../src/lib/site/search-index.ts';

/**
 * Whether the base build's Pagefind index is the one a full build of the new catalog writes: the
 * same works, in the same order, each with the same search record (Pagefind's output depends on
 * its records alone, byte for byte; instruments and genres, which records read, are shared
 * inputs and so unchanged). A correction of rights, review states, files or notes then costs no
 * re-indexing of the whole catalog; a new, removed or retitled work does.
 */
export function searchRecordsUnchanged(
  catalog: Catalog,
  changed: string[],
  before: Map<string, LoadedWork> | null,
): boolean {
  return searchRecordChanges(catalog, changed, before)?.length === 0;
}

/**
 * The changed works whose search record is not the one the base indexed (new, removed or
 * re-worded works), or null when the base's works are not known (then every record counts as
 * changed).
 */
export function searchRecordChanges(
  catalog: Catalog,
  changed: string[],
  before: Map<string, LoadedWork> | null,
): string[] | null {
  if (!before) return null;
  // In the loader's order the few changed works are found by binary search (a map of every work
  // was 0.03-0.05 s of each apply at 100,000 works).
  const find = knownSlugOrdered(catalog.works)
    ? (slug: string) => {
        const i = lowerBound(catalog.works, slug, workToSlug);
        return catalog.works[i]?.content.slug === slug ? catalog.works[i] : undefined;
      }
    : (
        (bySlug) => (slug: string) =>
          bySlug.get(slug)
      )(new Map(catalog.works.map((w) => [w.content.slug, w])));
  return changed.filter((slug) => {
    const then = before.get(slug);
    const now = find(slug);
    if (!then || !now || then.content.slug !== slug) return true;
    const [a, b] = searchRecords({ ...catalog, works: [then, now] });
    return JSON.stringify(a) !== JSON.stringify(b);
  });
}

/**
 * Which of the base's search-index shards can be linked rather than indexed again
 * (src/lib/site/search-index.ts). A shard is dirty when a changed record falls in it (before or
 * now), or when the number of shards changed and a work moved into or out of it (linear hashing
 * moves the works of one shard per shard added or removed). Null: index every shard (the base's
 * works are not known, or its shards.json is missing or names another way of spreading works).
 */
export function searchShardReuse(
  base: string | SiteView,
  slugs: string[],
  changedRecords: string[] | null,
): ShardReuse | null {
  if (changedRecords === null) return null;
  const view = typeof base === 'string' ? SiteView.open(base) : base;
  const listedFile = view.locate(`pagefind/${SHARDS_FILE}`);
  if (listedFile === null) return null;
  const dir = path.dirname(listedFile);
  let baseShards: number;
  try {
    const listed = JSON.parse(readFileSync(listedFile, 'utf8')) as {
      shards?: unknown;
      scheme?: unknown;
    };
    if (!Array.isArray(listed.shards) || listed.scheme !== SHARD_SCHEME) return null;
    baseShards = listed.shards.length + 1;
  } catch {
    return null;
  }
  const shards = shardCount(slugs.length, shardWorksFrom(process.env.ARCHIVE_SEARCH_SHARD_WORKS));
  const dirty = new Set<number>();
  for (const slug of changedRecords) {
    dirty.add(shardOf(slug, shards));
    dirty.add(shardOf(slug, baseShards));
  }
  if (shards !== baseShards) {
    for (let k = baseShards; k < shards; k++) dirty.add(k);
    for (const slug of slugs) {
      const then = shardOf(slug, baseShards);
      const now = shardOf(slug, shards);
      if (then !== now) {
        dirty.add(then);
        dirty.add(now);
      }
    }
  }
  return { dir, shards, dirty: [...dirty].filter((k) => k < shards).sort((a, b) => a - b) };
}

/** Whether a search-index file lies in shard k (shard 0 is the root of `pagefind/`, without the other shards' folders). */
export function inShard(rel: string, k: number): boolean {
  if (k > 0) return rel.startsWith(`pagefind/shard-${k}/`);
  return rel.startsWith('pagefind/') && !/^pagefind\/shard-\d+\//.test(rel);
}
