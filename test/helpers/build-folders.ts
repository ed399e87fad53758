/** Build folders compared file by file (the incremental-build and batch tests). */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function filesUnder(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...filesUnder(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

/** Digest of every file of a build folder but build.json (timings); nginx.conf names its own folder. */
export function digests(dir: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const rel of filesUnder(dir)) {
    if (rel === 'build.json') continue;
    let bytes = readFileSync(path.join(dir, rel));
    if (rel === 'nginx.conf') bytes = Buffer.from(bytes.toString('utf8').replaceAll(dir, '<build>'));
    map.set(rel, createHash('sha256').update(bytes).digest('hex'));
  }
  return map;
}

export function differences(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [rel, d] of a)
    if (!b.has(rel)) out.push(`only in the incremental build: ${rel}`);
    else if (b.get(rel) !== d) out.push(`differs: ${rel}`);
  for (const rel of b.keys()) if (!a.has(rel)) out.push(`only in the full build: ${rel}`);
  return out;
}
