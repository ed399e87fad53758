/**
 * The slugs of a catalog by work id, held as one byte string and offsets rather than one
 * JavaScript string per work: loading it is a view over the index file (no split, nothing for
 * the garbage collector to trace at 100,000 works), and a slug is decoded only when asked.
 * Lookup by slug is a binary search over the ids in slug order.
 */

/** What resolve and the record reader ask of a catalog's slugs (a `SlugTable`, or a layer's over one). */
export interface WorkSlugs {
  /** Works in the catalog (a layer's live works, not its id space). */
  readonly count: number;
  /** Work ids of the catalog's works in slug order (a layer's made on first use: for tests and tools). */
  readonly bySlug: Int32Array;
  at(id: number): string;
  indexOf(slug: string): number;
  /** The id of the first slug in slug order, or undefined for an empty catalog (no merge). */
  first(): number | undefined;
}

export class SlugTable implements WorkSlugs {
  readonly count: number;
  private readonly text: Buffer;
  private readonly offsets: Uint32Array;
  /** Work ids in slug order. */
  readonly bySlug: Int32Array;

  constructor(text: Buffer, offsets: Uint32Array, bySlug: Int32Array) {
    if (offsets.length !== bySlug.length + 1)
      throw new Error(`slug table: ${offsets.length - 1} slugs but ${bySlug.length} ids in slug order`);
    this.text = text;
    this.offsets = offsets;
    this.bySlug = bySlug;
    this.count = bySlug.length;
  }

  /** From the slugs by id. */
  static fromList(slugs: readonly string[]): SlugTable {
    const bytes = slugs.map((s) => Buffer.from(s, 'utf8'));
    const offsets = new Uint32Array(slugs.length + 1);
    bytes.forEach((b, i) => (offsets[i + 1] = offsets[i]! + b.length));
    const bySlug = Int32Array.from(
      slugs.map((_, i) => i).sort((a, b) => (slugs[a]! < slugs[b]! ? -1 : slugs[a]! > slugs[b]! ? 1 : 0)),
    );
    return new SlugTable(Buffer.concat(bytes), offsets, bySlug);
  }

  /**
   * The table of a changed order, made from `base` without a sort: `items` lists the new order,
   * each a base id (>= 0) or ~k for `added[k]`. The kept slugs' bytes are copied run by run; the
   * slug order is the base's (ids renumbered) with each added slug put in by binary search.
   */
  static splice(base: SlugTable, items: Int32Array, added: readonly string[]): SlugTable {
    const n = items.length;
    const { bytes: text, offsets } = spliceTexts(
      base.text,
      base.offsets,
      items,
      added.map((s) => Buffer.from(s, 'utf8')),
    );
    const newOfBase = new Int32Array(base.count).fill(-1);
    const newOfAdded = new Int32Array(added.length);
    for (let i = 0; i < n; i++) {
      const it = items[i]!;
      if (it >= 0) newOfBase[it] = i;
      else newOfAdded[~it] = i;
    }
    // Each added slug's place among the base's slugs (all of them: removed ones are skipped below).
    const places = added
      .map((slug, k) => ({ k, slug, at: base.lowerBound(slug) }))
      .sort((a, b) => a.at - b.at || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    const bySlug = new Int32Array(n);
    let out = 0;
    let next = 0;
    for (let r = 0; r <= base.count; r++) {
      while (next < places.length && places[next]!.at === r) bySlug[out++] = newOfAdded[places[next++]!.k]!;
      if (r === base.count) break;
      const id = newOfBase[base.bySlug[r]!]!;
      if (id >= 0) bySlug[out++] = id;
    }
    if (out !== n) throw new Error(`slug table: ${out} slugs placed for ${n} works`);
    return new SlugTable(text, offsets, bySlug);
  }

  /** Whether `other` holds the same slugs by the same ids (the bytes compared, nothing decoded). */
  equals(other: SlugTable): boolean {
    if (other === this) return true;
    if (other.count !== this.count || !this.text.equals(other.text)) return false;
    for (let i = 0; i <= this.count; i++) if (this.offsets[i] !== other.offsets[i]) return false;
    for (let i = 0; i < this.count; i++) if (this.bySlug[i] !== other.bySlug[i]) return false;
    return true;
  }

  /** A slug that appears twice, or null (neighbors in slug order compared as bytes). */
  duplicate(): string | null {
    for (let r = 1; r < this.count; r++) {
      const a = this.bySlug[r - 1]!;
      const b = this.bySlug[r]!;
      const la = this.offsets[a + 1]! - this.offsets[a]!;
      if (
        la === this.offsets[b + 1]! - this.offsets[b]! &&
        this.text.compare(this.text, this.offsets[b]!, this.offsets[b + 1]!, this.offsets[a]!, this.offsets[a + 1]!) ===
          0
      )
        return this.at(b);
    }
    return null;
  }

  /** The index file sections of this table, under `prefix`. */
  sections(prefix = 'slug'): Record<string, Uint32Array | Int32Array | { bytes: Uint8Array }> {
    return {
      [`${prefix}.text`]: { bytes: this.text },
      [`${prefix}.offsets`]: this.offsets,
      [`${prefix}.bySlug`]: this.bySlug,
    };
  }

  first(): number | undefined {
    return this.bySlug[0];
  }

  /** The slug of work `id`. */
  at(id: number): string {
    return this.text.toString('utf8', this.offsets[id]!, this.offsets[id + 1]!);
  }

  /** The id of the work with this slug, or -1. */
  indexOf(slug: string): number {
    const id = this.bySlug[this.lowerBound(slug)];
    return id !== undefined && this.at(id) === slug ? id : -1;
  }

  /** The first position in slug order whose slug is not before `slug`: how many slugs sort before it. */
  lowerBound(slug: string): number {
    let lo = 0;
    let hi = this.bySlug.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(this.bySlug[mid]!) < slug) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Every slug by id (a copy: for tests and tools, not requests). */
  toArray(): string[] {
    return Array.from({ length: this.count }, (_, id) => this.at(id));
  }
}

/** The slug table stored under `prefix` in a decoded index file. */
export function decodeSlugTable(
  file: { bytes(name: string): Buffer; u32(name: string): Uint32Array; i32(name: string): Int32Array },
  prefix = 'slug',
): SlugTable {
  return new SlugTable(file.bytes(`${prefix}.text`), file.u32(`${prefix}.offsets`), file.i32(`${prefix}.bySlug`));
}

/**
 * Texts one after another (a byte string and its offsets: text i is bytes offsets[i] ..
 * offsets[i + 1]) in a changed order, from a base's: `items` lists the new order, each a base
 * text's id (>= 0) or ~k for `added[k]`. The base's texts are copied run by run (consecutive ids
 * are one range of its bytes), so a few changes in 100,000 texts cost a few copies.
 */
export function spliceTexts(
  baseBytes: Buffer,
  baseOffsets: Uint32Array,
  items: Int32Array,
  added: readonly Buffer[],
): { bytes: Buffer; offsets: Uint32Array } {
  const n = items.length;
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const it = items[i]!;
    offsets[i + 1] = offsets[i]! + (it >= 0 ? baseOffsets[it + 1]! - baseOffsets[it]! : added[~it]!.length);
  }
  const bytes = Buffer.allocUnsafe(offsets[n]!);
  for (let i = 0; i < n;) {
    const it = items[i]!;
    if (it < 0) {
      added[~it]!.copy(bytes, offsets[i]!);
      i++;
      continue;
    }
    let end = i + 1;
    while (end < n && items[end] === items[end - 1]! + 1) end++;
    baseBytes.copy(bytes, offsets[i]!, baseOffsets[it]!, baseOffsets[items[end - 1]! + 1]!);
    i = end;
  }
  return { bytes, offsets };
}
