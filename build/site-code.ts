/**
 * The site code's digest: which code made a build's bytes. A build records it in build.json
 * (`siteCode`); an incremental build starts only from a base made by the same code, since the
 * pages it does not render again are the base's (a layer over a base of other code would serve a
 * mix of both), and the warm renderer (build/warm-render.ts) reuses Astro's compiled pages
 * only while the digest they were compiled under still holds.
 *
 * What it covers: every file under `src/` (pages, layouts, components, the domain rules the
 * records come from), `build/` (the build itself), `scripts/` and `api/` (its index files and
 * nginx.conf), `astro.config.mjs` and `package-lock.json` (Astro, Vite, Pagefind and every other
 * package's version). Paths and bytes both count; the walk is sorted, so the digest does not
 * depend on the order the filesystem lists files in.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const SITE_CODE_DIRS = ['src', 'build', 'scripts', 'api'] as const;
export const SITE_CODE_FILES = ['astro.config.mjs', 'package-lock.json'] as const;

/** Files under `dir` (relative to `root`, '/'-separated), sorted. The tree is the project's own, not input. */
function filesOf(root: string, dir: string, out: string[]): void {
  const entries = readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) filesOf(root, rel, out);
    else if (entry.isFile()) out.push(rel);
  }
}

/** The SHA-256 (hex) of the site code under `root` (the project folder). */
export function siteCodeDigest(root: string): string {
  const files: string[] = [];
  for (const dir of SITE_CODE_DIRS) if (existsSync(path.join(root, dir))) filesOf(root, dir, files);
  for (const file of SITE_CODE_FILES) if (existsSync(path.join(root, file))) files.push(file);
  const hash = createHash('sha256');
  for (const rel of files) {
    const bytes = readFileSync(path.join(root, rel));
    // Length-prefixed, so no two trees give the same stream.
    hash.update(`${rel}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}
