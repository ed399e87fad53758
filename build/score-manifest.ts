/**
 * The score manifest a build keeps beside `client/` (SCORES_MANIFEST): every work's score
 * renderings, keys sorted, the file the next incremental build starts from. At 100,000 works it is
 * about 9 MB of JSON: parsing the base's, and serializing and writing the new one, cost about
 * 0.2 s of every apply. So the last manifest this process wrote is kept in memory with its text,
 * known by the file's identity (src/lib/file-identity.ts), and a build whose scope leaves every entry as its
 * base had it (a correction that touches no score) links the base's file instead of writing one.
 */
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RememberedFile } from '../src/lib/file-identity.ts';
import { lowerBound } from '../src/lib/site/kept-order.ts';
import type { ScoreManifest } from '../src/lib/site/scores.ts';
import { SCORES_MANIFEST, serializeScoreManifest } from './types.ts';

/** A build's manifest, its text as the file holds it, and the file. */
export interface ManifestFile {
  manifest: ScoreManifest;
  text: string;
  file: string;
  /** Taken from this process's memory, not read from the file. */
  fromMemory: boolean;
}

const remembered = new RememberedFile<{ manifest: ScoreManifest; text: string }>();

/** Let go of the remembered manifest (a full build, which starts from none). */
export function forgetScoreManifest(): void {
  remembered.forget();
}

/** A build folder's manifest: from memory when this process wrote that file, else read and parsed. */
export function readScoreManifest(buildDir: string): ManifestFile {
  const file = path.join(buildDir, SCORES_MANIFEST);
  const kept = remembered.recall(file);
  if (kept) return { ...kept, file, fromMemory: true };
  const text = readFileSync(file, 'utf8');
  return { manifest: JSON.parse(text) as ScoreManifest, text, file, fromMemory: false };
}

/**
 * Keep a base's manifest (a warm-up read it from its file) for the next build that starts from its
 * folder, with its sorted keys, entries' text and keys by work made: what the first apply after a
 * start would otherwise read, parse and make (about 0.15 s at 100,000 works).
 */
export function rememberBaseManifest(base: ManifestFile): void {
  remembered.remember(base.file, { manifest: base.manifest, text: base.text });
  partsOf(base.manifest);
  keysBySlug(base.manifest);
}

/**
 * The manifest of a build over `base` whose scope (`scope`, work slugs) rendered `fresh` (the
 * scope's entries, as JSON gives them back): the base's object and text when every entry of the
 * scope is the base's (`unchanged`), else the base's entries out of scope with the fresh ones.
 */
export function manifestOver(
  base: ManifestFile | null,
  scope: readonly string[],
  fresh: ScoreManifest['scores'],
): { manifest: ScoreManifest; text: string; unchanged: boolean } {
  if (base) {
    // The scope's entries first, found through the base's keys by work (made once per manifest):
    // a correction that leaves them as they were costs O(scope), not a walk of every entry.
    const bySlug = keysBySlug(base.manifest);
    let unchanged = true;
    let ofScope = 0;
    for (const slug of new Set(scope)) {
      for (const key of bySlug.get(slug) ?? []) {
        ofScope++;
        const now = fresh[key];
        if (now === undefined || JSON.stringify(now) !== JSON.stringify(base.manifest.scores[key])) unchanged = false;
      }
      if (!unchanged) break;
    }
    if (unchanged && ofScope === Object.keys(fresh).length)
      return { manifest: base.manifest, text: base.text, unchanged: true };
  }
  if (!base) {
    const manifest: ScoreManifest = { scores: { ...fresh } };
    return { manifest, text: serializeScoreManifest(manifest), unchanged: false };
  }
  // The base's entries but the scope's, with the fresh ones; its text made from the base's sorted
  // keys and each entry's JSON, patched at the scope's keys (serializing and sorting the whole
  // manifest again, and walking every entry to find the scope's, cost about 0.15 s of an apply
  // at 100,000 works in a CPU profile of the warm build process).
  const before = partsOf(base.manifest);
  const scores: ScoreManifest['scores'] = { ...base.manifest.scores };
  const keys = before.keys.slice();
  const parts = new Map(before.parts);
  const bySlug = new Map(keysBySlug(base.manifest));
  for (const slug of new Set(scope)) {
    for (const key of bySlug.get(slug) ?? []) {
      delete scores[key];
      parts.delete(key);
      const at = sortedIndex(keys, key);
      if (keys[at] === key) keys.splice(at, 1);
    }
    bySlug.delete(slug);
  }
  for (const [key, value] of Object.entries(fresh)) {
    scores[key] = value;
    if (!parts.has(key)) keys.splice(sortedIndex(keys, key), 0, key);
    parts.set(key, entryText(key, value));
    // A new list per work (the base's lists stay the base's).
    const slug = slugOfKey(key);
    bySlug.set(slug, [...(bySlug.get(slug) ?? []), key]);
  }
  const manifest: ScoreManifest = { scores };
  manifestParts.set(manifest, { keys, parts });
  slugKeys.set(manifest, bySlug);
  return { manifest, text: textOf({ keys, parts }), unchanged: false };
}

/** A manifest's keys in the file's order (sorted) and each entry as the file writes it (`"key":{...}`). */
interface ManifestParts {
  keys: string[];
  parts: Map<string, string>;
}

const manifestParts = new WeakMap<ScoreManifest, ManifestParts>();

const entryText = (key: string, value: unknown) => `${JSON.stringify(key)}:${JSON.stringify(value)}`;

/** A manifest's parts, made once per manifest object (the remembered one serves every apply). */
function partsOf(manifest: ScoreManifest): ManifestParts {
  let made = manifestParts.get(manifest);
  if (!made) {
    const keys = Object.keys(manifest.scores).sort();
    made = { keys, parts: new Map(keys.map((key) => [key, entryText(key, manifest.scores[key])])) };
    manifestParts.set(manifest, made);
  }
  return made;
}

/** The manifest's text from its parts: the bytes `serializeScoreManifest` gives. */
function textOf({ keys, parts }: ManifestParts): string {
  return `{"scores":{${keys.map((key) => parts.get(key)!).join(',')}}}\n`;
}

/** Where `key` is or would go in `sorted` (the order of Array.prototype.sort: UTF-16 code units). */
const sortedIndex = (sorted: readonly string[], key: string) =>
  lowerBound(sorted, key, (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0));

/** The work a manifest key belongs to (`<slug>/<file>`). */
const slugOfKey = (key: string) => key.slice(0, key.indexOf('/'));

const slugKeys = new WeakMap<ScoreManifest, Map<string, string[]>>();

/** A manifest's keys by work, made once per manifest object (the remembered one is used by every apply). */
function keysBySlug(manifest: ScoreManifest): Map<string, string[]> {
  let bySlug = slugKeys.get(manifest);
  if (!bySlug) {
    bySlug = new Map();
    for (const key of Object.keys(manifest.scores)) {
      const slug = slugOfKey(key);
      const keys = bySlug.get(slug);
      if (keys) keys.push(key);
      else bySlug.set(slug, [key]);
    }
    slugKeys.set(manifest, bySlug);
  }
  return bySlug;
}

/**
 * Write a build's manifest into `outDir` as a new inode, or link `from` (the base's file, when the
 * manifest is the base's: the same bytes), and keep it in memory for the next build that starts
 * from this folder.
 */
export function writeScoreManifest(outDir: string, manifest: ScoreManifest, text: string, from?: string): void {
  const file = path.join(outDir, SCORES_MANIFEST);
  remembered.forget();
  rmSync(file, { force: true });
  if (from === undefined) writeFileSync(file, text);
  else
    try {
      linkSync(from, file);
    } catch {
      writeFileSync(file, text); // another file system: written as a new inode
    }
  remembered.remember(file, { manifest, text });
}
