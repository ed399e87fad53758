/**
 * The served build's protected assets (`<build>/protected-assets.json`, written by scripts/build.ts
 * beside `client/`, never inside it): every stored file or blob that is not public, by
 * `<slug>/<assetId>`. Signed-in stored files were copied to `<build>/protected/<slug>/<file>`.
 * Build folders are immutable, so each folder's manifest is read once.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { protectedAssetKey, type ProtectedAsset } from '../../src/domain/records.ts';

const manifests = new Map<string, Promise<Map<string, ProtectedAsset>>>();

async function load(buildDir: string): Promise<Map<string, ProtectedAsset>> {
  try {
    const raw = JSON.parse(await readFile(path.join(buildDir, 'protected-assets.json'), 'utf8')) as Record<
      string,
      ProtectedAsset
    >;
    return new Map(Object.entries(raw));
  } catch (error) {
    // A build made by an archive version without reader sign-in has no manifest: nothing protected is served from it.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
}

/** The protected asset `<slug>/<assetId>` of the build in `buildDir`, or undefined. */
export async function protectedAsset(
  buildDir: string,
  slug: string,
  assetId: number,
): Promise<ProtectedAsset | undefined> {
  let manifest = manifests.get(buildDir);
  if (!manifest) {
    manifest = load(buildDir);
    manifests.set(buildDir, manifest);
    manifest.catch(() => manifests.delete(buildDir));
    // Keep only a few builds' manifests (the served one and the one before a swap).
    while (manifests.size > 4) manifests.delete(manifests.keys().next().value!);
  }
  return (await manifest).get(protectedAssetKey(slug, assetId));
}

/** Where the build keeps a signed-in stored file. */
export function protectedFilePath(buildDir: string, slug: string, file: string): string {
  return path.join(buildDir, 'protected', slug, file);
}
