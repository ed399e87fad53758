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
import { RememberedFile } from '../../src/lib/file-identity.ts';
import type { ScoreManifest } from '../../src/lib/site/scores.ts';
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
 * The manifest of a build over `base` whose scope (`scope`, work slugs) rendered `fresh` (the
 * scope's entries, as JSON gives them back): the base's object and text when every entry of the
 * scope is the base's (`unchanged`), else the base's entries out of scope with the fresh ones.
 */
export function manifestOver(
  base: ManifestFile | null,
  scope: readonly string[],
  fresh: ScoreManifest['scores'],
): { manifest: ScoreManifest; text: string; unchanged: boolean } {
  const manifest: ScoreManifest = { scores: {} };
  let unchanged = base !== null;
  if (base) {
    const inScope = new Set(scope);
    let ofScope = 0;
    for (const [key, value] of Object.entries(base.manifest.scores)) {
      if (!inScope.has(key.slice(0, key.indexOf('/')))) manifest.scores[key] = value;
      else if (unchanged) {
        ofScope++;
        const now = fresh[key];
        unchanged = now !== undefined && JSON.stringify(now) === JSON.stringify(value);
      }
    }
    if (unchanged && ofScope !== Object.keys(fresh).length) unchanged = false;
    if (unchanged) return { manifest: base.manifest, text: base.text, unchanged: true };
  }
  Object.assign(manifest.scores, fresh);
  return { manifest, text: serializeScoreManifest(manifest), unchanged: false };
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
