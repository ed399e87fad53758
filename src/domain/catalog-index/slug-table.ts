/**
 * The slugs of a catalog by work id, held as one byte string and offsets rather than one
 * JavaScript string per work: loading it is a view over the index file (no split, nothing for
 * the garbage collector to trace at 100,000 works), and a slug is decoded only when asked.
 * Lookup by slug is a binary search over the ids in slug order.
 */

export class SlugTable {
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

  /** The index file sections of this table, under `prefix`. */
  sections(prefix = 'slug'): Record<string, Uint32Array | Int32Array | { bytes: Uint8Array }> {
    return {
      [`${prefix}.text`]: { bytes: this.text },
      [`${prefix}.offsets`]: this.offsets,
      [`${prefix}.bySlug`]: this.bySlug,
    };
  }

  /** The slug of work `id`. */
  at(id: number): string {
    return this.text.toString('utf8', this.offsets[id]!, this.offsets[id + 1]!);
  }

  /** The id of the work with this slug, or -1. */
  indexOf(slug: string): number {
    let lo = 0;
    let hi = this.bySlug.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(this.bySlug[mid]!) < slug) lo = mid + 1;
      else hi = mid;
    }
    const id = this.bySlug[lo];
    return id !== undefined && this.at(id) === slug ? id : -1;
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
