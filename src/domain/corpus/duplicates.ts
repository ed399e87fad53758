/**
 * Probable duplicates among imported works, by identity, not by shared words (docs/imports.md,
 * "Probable duplicates"). Pure.
 *
 * A work is known by its composer, its title and its catalog numbers, each number compared whole:
 * "Op. 10 No. 3" is not "Op. 10 No. 4", and "K. 464" is not "K. 465". Of one composer, a shared
 * whole catalog number makes a probable duplicate; two works that share none, but both carry a
 * number of the same catalog, are different works whatever their titles share (Mozart's six
 * "Haydn" quartets are all "Op. 10", each with its own K. number); otherwise the same title makes
 * a probable duplicate. The finding says what matched. It is **exact** when the composer, the title and every catalog number are the same: only
 * exact findings are merged by a batch `merge` that names no items.
 */
import type { ParsedCatalogNumber } from '../catalog-numbers.ts';
import { fold, words } from '../text.ts';

/** What a work is known by, for finding probable duplicates. */
export interface IdentityKey {
  /** A work slug in the catalog, or "batch item <key>". */
  label: string;
  /** Folded composer name. */
  composer: string;
  /** The title's words, folded ("" when none): "D.839" and "D. 839" are the same title. */
  title: string;
  /** Each catalog number, folded and whole ("k. 464", "op. 10 no. 5"). */
  catalog: string[];
  /** The same numbers as written ("K. 464"), for saying what matched. */
  written: string[];
}

/** A probable duplicate: which work, what matched, and whether everything did. */
export interface DuplicateFinding {
  of: string;
  /** What matched, in words: "composer", "catalog number K. 464", "title". */
  matched: string[];
  /** Composer, title and every catalog number the same. */
  exact: boolean;
}

const foldNumber = (n: ParsedCatalogNumber) => fold(`${n.catalog} ${n.number}`).replace(/\s+/g, ' ');
const catalogOf = (folded: string) => folded.split(' ')[0] ?? '';

export function identityKey(
  label: string,
  composer: string,
  title: string,
  catalogNumbers: ParsedCatalogNumber[],
): IdentityKey {
  return {
    label,
    composer: fold(composer),
    title: words(title).join(' '),
    catalog: catalogNumbers.map(foldNumber),
    written: catalogNumbers.map((n) => `${n.catalog} ${n.number}`),
  };
}

/** How `key` matches `known`, or null when they are different works. */
export function compareIdentity(key: IdentityKey, known: IdentityKey): DuplicateFinding | null {
  if (!key.composer || key.composer !== known.composer) return null;
  const shared = key.catalog.filter((c) => known.catalog.includes(c));
  const sameTitle = key.title !== '' && key.title === known.title;
  if (shared.length === 0) {
    // Both carry numbers of one catalog and share none of them: two works ("K. 464" and "K. 465").
    const catalogs = new Set(key.catalog.map(catalogOf));
    if (known.catalog.some((c) => catalogs.has(catalogOf(c)))) return null;
    if (!sameTitle) return null;
  }
  const sameNumbers = key.catalog.length === known.catalog.length && shared.length === key.catalog.length;
  return {
    of: known.label,
    matched: [
      'composer',
      ...shared.map((c) => `catalog number ${key.written[key.catalog.indexOf(c)]}`),
      ...(sameTitle ? ['title'] : []),
    ],
    exact: sameTitle && sameNumbers,
  };
}

/** The best probable duplicate of `key` among `known` (an exact one first, else the first found), or null. */
export function findDuplicate(key: IdentityKey, known: Iterable<IdentityKey>): DuplicateFinding | null {
  let first: DuplicateFinding | null = null;
  for (const k of known) {
    const found = compareIdentity(key, k);
    if (!found) continue;
    if (found.exact) return found;
    first ??= found;
  }
  return first;
}
