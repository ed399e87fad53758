/**
 * Publishing a build to object storage (`npm run publish:static`), the pure part: where an
 * `s3://bucket/prefix` points, which URL paths of a build become objects, and the plan that
 * uploads only what changed and deletes what the new build no longer has (deletions last).
 * The I/O lives in scripts/publish-static.ts.
 */

/** One object the published site should hold. */
export interface PublishObject {
  key: string;
  /** MD5 of the body, hex (what S3 reports as the ETag of a single-part upload). */
  md5: string;
  contentType: string;
  cacheControl: string;
  /** An empty object that redirects (S3 website redirect), as the server answers 301 for a folder without its slash. */
  redirect: string | null;
  size: number;
}

/** What the manifest records per key, so a header change re-uploads unchanged bytes too. */
export type PublishedEntry = Pick<PublishObject, 'md5' | 'contentType' | 'cacheControl' | 'redirect'>;

export interface PublishManifest {
  publishedAtUtc: string;
  /** generatedAtUtc of the build that was published. */
  buildGeneratedAtUtc: string;
  objects: Record<string, PublishedEntry>;
}

export interface ListedObject {
  key: string;
  /** ETag as listed, quotes removed. */
  etag: string;
}

export interface PublishPlan {
  upload: PublishObject[];
  unchanged: number;
  /** Keys to delete once every upload succeeded. */
  remove: string[];
}

export const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** `s3://bucket/prefix` -> bucket and a prefix that is empty or ends in `/`. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url.trim());
  if (!m || !S3_BUCKET.test(m[1]!))
    throw new Error(
      `--to must be s3://<bucket>[/<prefix>] with a bucket name of 3-63 lowercase letters, digits, dots and hyphens (got "${url}")`,
    );
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((s) => s === '..' || s === '.'))
    throw new Error(`the prefix of --to may not contain "." or ".." segments (got "${url}")`);
  return { bucket: m[1]!, prefix: prefix === '' ? '' : `${prefix}/` };
}

/**
 * URL paths under which a build file is served, besides its own path: a record
 * `api/v1/<x>/index.json` also at `/api/v1/<x>` and `/api/v1/<x>/` (nginx.conf's
 * `try_files $uri $uri/index.json`), a page `<x>/index.html` also at `/<x>/` and, as a redirect,
 * `/<x>`. Which file each path really gets is the server's decision (StaticSite.resolve).
 */
export function servedPaths(rel: string): string[] {
  const out = [`/${rel}`];
  const slash = rel.lastIndexOf('/');
  const dir = slash < 0 ? '' : rel.slice(0, slash);
  const base = rel.slice(slash + 1);
  if (
    dir !== '' &&
    ((base === 'index.json' && (dir === 'api/v1' || dir.startsWith('api/v1/'))) || base === 'index.html')
  )
    out.push(`/${dir}`, `/${dir}/`);
  return out;
}

const sameEntry = (a: PublishedEntry, b: PublishedEntry) =>
  a.md5 === b.md5 && a.contentType === b.contentType && a.cacheControl === b.cacheControl && a.redirect === b.redirect;

/** Assets first (hashed bundles, images, search index), then records and pages that link them. */
function uploadRank(o: PublishObject): number {
  if (o.redirect) return 3;
  if (o.contentType.startsWith('text/html')) return 2;
  if (o.contentType.startsWith('application/json') || o.contentType.startsWith('text/markdown')) return 1;
  return 0;
}

/**
 * Upload what is missing, differs in bytes (listed ETag) or in headers (previous manifest);
 * delete what is listed under the prefix but not wanted, except the `reserved` keys (the manifest).
 */
export function planPublish(
  desired: PublishObject[],
  listed: ListedObject[],
  previous: PublishManifest | null,
  reserved: string[],
): PublishPlan {
  const etags = new Map(listed.map((o) => [o.key, o.etag]));
  const upload: PublishObject[] = [];
  let unchanged = 0;
  for (const o of desired) {
    const before = previous?.objects[o.key];
    if (etags.get(o.key) === o.md5 && before && sameEntry(before, o)) unchanged++;
    else upload.push(o);
  }
  upload.sort((a, b) => uploadRank(a) - uploadRank(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const wanted = new Set([...desired.map((o) => o.key), ...reserved]);
  const remove = listed
    .map((o) => o.key)
    .filter((k) => !wanted.has(k))
    .sort();
  return { upload, unchanged, remove };
}
