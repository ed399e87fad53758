/**
 * A resolve catalog laid over a base's (docs/decisions/0049-resolve-overlay-one-numbering.md): a layered build holds no resolve.idx of its own but the rows of the works changed
 * since its plain base (`ResolveOverlay`, beside the listing's `WorksOverlay`), and the server lays
 * them over the base's loaded catalog instead of merging a new one (about 0.2 s and 66 MB at
 * 100,000 works, per apply).
 *
 * Laying costs a copy of the base's per-arrangement columns with the overlay's appended (a few
 * milliseconds at 100,000 works: integer arrays, no sort, no word, no record), so `judge`,
 * `explain`, the ranking and the record reads work on one numbering: base ids as in the base,
 * overlay works and arrangements after them. What is not copied is kept apart and read apart:
 *
 * - the tombstoned base works (removed, or changed and so in the overlay) are skipped by the
 *   scans and the searches (`dead`);
 * - the overlay's words are in a vocabulary of their own (the base's word ids do not cover new
 *   words), so a request is compiled against both (`ResolveRequest.over`) and an overlay
 *   arrangement's words are matched against the overlay's;
 * - the overlay's arrangements have bound classes of their own (`over.byRole`), visited with the
 *   base's by bound (resolve.ts), so the ten candidates are exactly those of a merged catalog;
 * - the tie-break's slug order ranks the overlay's slugs among the base's (`works.slugOrder` and
 *   `cols.slugOrder` of the layered catalog; the base's classes keep their order, since the base's
 *   slugs keep theirs).
 *
 * Answers equal a merged catalog's (test/unit/resolve-layer.test.ts), except the count of
 * arrangements judged one by one (`arrangementsJudged`), which depends on the order the scan
 * meets equal bounds in. Pure.
 */
import { MUSIC_ROLES, type MusicRole } from '../../schemas/common.ts';
import type { ProfileHead } from '../catalog-index/profiles.ts';
import type { WorkSlugs } from '../catalog-index/slug-table.ts';
import type { WorksOverlay } from '../catalog-index/works-overlay.ts';
import type { ResolveOverlay } from '../catalog-index/resolve-overlay.ts';
import {
  ROLE_BIT,
  ROW_COLUMNS,
  newScratch,
  resolveCatalogOfRows,
  slugTableOf,
  type Columns,
  type ResolveCatalog,
  type ResolveLayer,
  type RoleLists,
} from './catalog.ts';

export type { ResolveLayer };

export class ResolveLayerError extends Error {}

/** The slugs of a layered catalog: the overlay's, then the base's live ones. */
class LayeredSlugs implements WorkSlugs {
  readonly count: number;
  private readonly base: WorkSlugs;
  private readonly over: WorkSlugs;
  private readonly dead: Uint8Array;
  private ordered: Int32Array | null = null;

  constructor(base: WorkSlugs, over: WorkSlugs, dead: Uint8Array, live: number) {
    this.base = base;
    this.over = over;
    this.dead = dead;
    this.count = live;
  }

  at(id: number): string {
    return id < this.dead.length ? this.base.at(id) : this.over.at(id - this.dead.length);
  }

  indexOf(slug: string): number {
    const k = this.over.indexOf(slug);
    if (k >= 0) return this.dead.length + k;
    const id = this.base.indexOf(slug);
    return id >= 0 && this.dead[id] === 0 ? id : -1;
  }

  first(): number | undefined {
    // The base's first live slug is among its first (tombstones + 1) in slug order.
    const base = this.base.bySlug;
    let b: number | undefined;
    for (let r = 0; r < base.length && b === undefined; r++) if (!this.dead[base[r]!]) b = base[r]!;
    const k = this.over.first();
    if (k === undefined) return b;
    if (b === undefined || this.over.at(k) < this.base.at(b)) return this.dead.length + k;
    return b;
  }

  /** Live ids in slug order, merged once on first use (O(works): tests and tools, not requests). */
  get bySlug(): Int32Array {
    if (this.ordered) return this.ordered;
    const out = new Int32Array(this.count);
    const base = this.base.bySlug;
    const over = this.over.bySlug;
    let n = 0;
    let k = 0;
    for (let r = 0; r < base.length; r++) {
      const id = base[r]!;
      if (this.dead[id]) continue;
      const slug = this.base.at(id);
      while (k < over.length && this.over.at(over[k]!) < slug) out[n++] = this.dead.length + over[k++]!;
      out[n++] = id;
    }
    while (k < over.length) out[n++] = this.dead.length + over[k++]!;
    this.ordered = out;
    return out;
  }
}

/** `a` with `b` appended, in a new array of `a`'s type. */
function appended<T extends Uint8Array | Uint16Array | Int32Array>(a: T, b: T): T {
  const out = new (a.constructor as new (n: number) => T)(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * `resolve` (the rows of the works `works` adds or changes, in the same order) and `works`'s
 * tombstones laid over `base`, the plain base's decoded resolve catalog. `profiles`: the layered
 * build's profile heads (its catalog.json's; the overlay was written only when their statuses are
 * the base's). Throws `ResolveLayerError` when the overlays do not fit the base.
 */
export function layerResolveCatalog(
  base: ResolveCatalog,
  works: WorksOverlay,
  resolve: ResolveOverlay,
  profiles: Map<string, ProfileHead> = base.profiles,
): ResolveCatalog {
  if (base.layer) throw new ResolveLayerError('resolve layer: the base is itself layered');
  const W = base.works.count;
  const n = base.arrangementCount;
  if (works.base.count !== W)
    throw new ResolveLayerError(`resolve layer: the overlay lies over ${works.base.count} works, the base has ${W}`);
  const rows = resolve.works;
  if (rows.length !== works.works.length || rows.some((r, k) => r.slug !== works.works[k]!.slug))
    throw new ResolveLayerError('resolve layer: the works and resolve overlays do not hold the same works');
  const dead = new Uint8Array(W);
  for (const id of works.tombstones) {
    if (!Number.isInteger(id) || id < 0 || id >= W || dead[id])
      throw new ResolveLayerError(`resolve layer: tombstone ${id} is not a base id, or is given twice`);
    dead[id] = 1;
  }
  let over: ResolveCatalog;
  try {
    over = resolveCatalogOfRows(rows, profiles, base.meaning);
  } catch (err) {
    throw new ResolveLayerError(`resolve layer: ${(err as Error).message}`);
  }
  const V = over.works.count;
  const m = over.arrangementCount;
  for (let k = 0; k < V; k++) {
    const b = base.works.slugs.indexOf(over.works.slugs.at(k));
    if (b >= 0 && !dead[b])
      throw new ResolveLayerError(`resolve layer: ${over.works.slugs.at(k)} is a base work without a tombstone`);
  }

  // The tie-break's slug ranks, over both: an overlay slug after the base slugs below it and the
  // overlay slugs below it; a base slug after the overlay slugs not above it (so a tombstoned
  // base work never shares a rank with its overlay version).
  const placeOf = new Int32Array(V);
  const baseSlugs = slugTableOf(base);
  for (let k = 0; k < V; k++) placeOf[k] = baseSlugs.lowerBound(over.works.slugs.at(k));
  const places = Int32Array.from(over.works.slugs.bySlug, (k) => placeOf[k]!);
  const workSlugOrder = new Int32Array(W + V);
  const shift = new Int32Array(W);
  for (let r = 0, p = 0; r < W; r++) {
    while (p < V && places[p]! <= r) p++;
    shift[r] = p;
  }
  for (let b = 0; b < W; b++) {
    const r = base.works.slugOrder[b]!;
    workSlugOrder[b] = r + shift[r]!;
  }
  for (let k = 0; k < V; k++) workSlugOrder[W + k] = placeOf[k]! + over.works.slugOrder[k]!;

  const cols = {} as Columns;
  for (const name of ROW_COLUMNS) (cols[name] as Columns[typeof name]) = appended(base.cols[name], over.cols[name]);
  const arrangementWork = new Int32Array(n + m);
  arrangementWork.set(base.arrangementWork);
  for (let j = 0; j < m; j++) arrangementWork[n + j] = W + over.arrangementWork[j]!;
  cols.slugOrder = new Int32Array(n + m);
  for (let i = 0; i < n + m; i++) cols.slugOrder[i] = workSlugOrder[arrangementWork[i]!]!;
  const firstArrangement = new Int32Array(W + V + 1);
  firstArrangement.set(base.works.firstArrangement.subarray(0, W));
  for (let k = 0; k <= V; k++) firstArrangement[W + k] = n + over.works.firstArrangement[k]!;
  const flags = appended(base.works.flags, over.works.flags);

  // Per role: the tombstoned works and arrangements fitting it, taken from the base's counts.
  const deadArrangements = new Map<MusicRole, number>(MUSIC_ROLES.map((r) => [r, 0]));
  const deadWorks = new Map<MusicRole, number>(MUSIC_ROLES.map((r) => [r, 0]));
  for (const b of works.tombstones) {
    let mask = 0;
    for (let i = base.works.firstArrangement[b]!; i < base.works.firstArrangement[b + 1]!; i++) {
      const roles = base.cols.roleMask[i]!;
      mask |= roles;
      for (const role of MUSIC_ROLES)
        if (roles & ROLE_BIT[role]) deadArrangements.set(role, deadArrangements.get(role)! + 1);
    }
    for (const role of MUSIC_ROLES) if (mask & ROLE_BIT[role]) deadWorks.set(role, deadWorks.get(role)! + 1);
  }
  const liveByRole = new Map<MusicRole, number>();
  const byRole = new Map<MusicRole, RoleLists>();
  for (const role of MUSIC_ROLES) {
    const b = base.byRole.get(role)!;
    const o = over.byRole.get(role)!;
    liveByRole.set(role, b.order.length - deadArrangements.get(role)! + o.order.length);
    byRole.set(role, { ...b, works: b.works - deadWorks.get(role)! + o.works });
  }
  const live = W - works.tombstones.length + V;
  return {
    works: {
      count: W + V,
      slugs: new LayeredSlugs(base.works.slugs, over.works.slugs, dead, live),
      slugOrder: workSlugOrder,
      flags,
      firstArrangement,
    },
    arrangementWork,
    arrangementCount: n + m,
    cols,
    byRole,
    profiles,
    vocab: base.vocab,
    meaning: base.meaning,
    style: base.style,
    instrumentation: base.instrumentation,
    mood: base.mood,
    title: base.title,
    composer: base.composer,
    scratch: newScratch(W + V),
    layer: {
      baseWorks: W,
      baseArrangements: n,
      dead,
      over,
      insertAfter: Int32Array.from(works.works, (w) => w.insertAfter),
      liveByRole,
    },
  };
}

/** Works in the catalog (a layered one's live works). */
export function liveWorks(catalog: ResolveCatalog): number {
  return catalog.layer ? catalog.works.slugs.count : catalog.works.count;
}
