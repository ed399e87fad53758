/**
 * `npm run publish:static -- --to s3://bucket/prefix [--build DIR] [--dry-run]`
 *
 * Uploads a complete build's static site (`<build>/client`) to an S3-compatible bucket, for a CDN
 * in front of it, with the API left on Node (docs/operations.md). Every object carries the
 * Content-Type and Cache-Control the front server sends for that path (the server's own
 * StaticSite decides both, and which file a path gets), records are also stored under their
 * extension-less paths as nginx.conf maps them, only changed objects are uploaded, and objects the
 * build no longer has are deleted last, after every upload succeeded.
 *
 * Without --build it publishes the build `npm start` serves: the content repository's HEAD at
 * PUBLIC_BASE_URL (built first when missing). Connection: ARCHIVE_S3_ENDPOINT, ARCHIVE_S3_REGION,
 * ARCHIVE_S3_ACCESS_KEY_ID, ARCHIVE_S3_SECRET_ACCESS_KEY, ARCHIVE_S3_FORCE_PATH_STYLE.
 */
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ConfigError, loadConfig } from '../api/config.ts';
import { createS3Client, isNotFound } from '../api/blobs/s3-client.ts';
import { StaticSite } from '../api/site/static-site.ts';
import { SiteView } from '../src/lib/site/layers.ts';
import { ensureContentRepo } from '../api/site/content-repo.ts';
import { ensureBuild, isCompleteBuild } from '../api/site/builds.ts';
import { PROJECT_ROOT } from '../build/command.ts';
import {
  parseS3Url,
  planPublish,
  servedPaths,
  type ListedObject,
  type PublishManifest,
  type PublishObject,
} from '../src/domain/static-publish.ts';

/** Kept beside the site under the prefix: what was published with which headers. */
export const MANIFEST_NAME = '.archive-publish.json';
const CONCURRENCY = 8;

async function md5Of(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** Every object of the published site, with the server's headers for its path. */
export async function siteObjects(
  view: string | SiteView,
  prefix: string,
): Promise<Array<PublishObject & { file: string | null }>> {
  // A layered build (src/lib/site/layers.ts) is published as its view: base and delta, without the deleted files.
  const siteView = typeof view === 'string' ? SiteView.plain(view) : view;
  const site = new StaticSite(siteView);
  const byKey = new Map<string, PublishObject & { file: string | null }>();
  const md5s = new Map<string, string>();
  for (const rel of siteView.filesUnder('')) {
    for (const urlPath of servedPaths(rel)) {
      const key = `${prefix}${urlPath.slice(1)}`;
      if (byKey.has(key)) continue;
      const resolved = await site.resolve(encodePath(urlPath));
      if (resolved.kind === 'file') {
        const file = resolved.file;
        let md5 = md5s.get(file.relPath);
        if (!md5) md5s.set(file.relPath, (md5 = await md5Of(file.absPath)));
        byKey.set(key, {
          key,
          md5,
          contentType: file.contentType,
          cacheControl: file.cacheControl,
          redirect: null,
          size: file.size,
          file: file.absPath,
        });
      } else if (resolved.kind === 'redirect') {
        byKey.set(key, {
          key,
          md5: createHash('md5').digest('hex'),
          contentType: 'text/html; charset=utf-8',
          cacheControl: 'public, max-age=60',
          redirect: decodeURIComponent(resolved.location),
          size: 0,
          file: null,
        });
      }
    }
  }
  return [...byKey.values()];
}

async function listAll(client: S3Client, bucket: string, prefix: string): Promise<ListedObject[]> {
  const out: ListedObject[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) if (o.Key) out.push({ key: o.Key, etag: (o.ETag ?? '').replace(/"/g, '') });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

async function readManifest(client: S3Client, bucket: string, key: string): Promise<PublishManifest | null> {
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return JSON.parse(await got.Body!.transformToString()) as PublishManifest;
  } catch (err) {
    if (isNotFound(err) || err instanceof SyntaxError) return null;
    throw err;
  }
}

async function pool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export interface PublishResult {
  uploaded: number;
  unchanged: number;
  deleted: number;
  objects: number;
}

export async function publishStatic(options: {
  client: S3Client;
  buildDir: string;
  to: string;
  dryRun?: boolean;
  log?: (line: string) => void;
}): Promise<PublishResult> {
  const log = options.log ?? (() => undefined);
  const { bucket, prefix } = parseS3Url(options.to);
  if (!isCompleteBuild(options.buildDir))
    throw new Error(`${options.buildDir} is not a complete build (no build.json or client/); run npm run build first`);
  const info = JSON.parse(readFileSync(path.join(options.buildDir, 'build.json'), 'utf8')) as {
    generatedAtUtc: string;
  };
  const objects = await siteObjects(SiteView.open(options.buildDir), prefix);
  const manifestKey = `${prefix}${MANIFEST_NAME}`;
  const [listed, previous] = await Promise.all([
    listAll(options.client, bucket, prefix),
    readManifest(options.client, bucket, manifestKey),
  ]);
  const plan = planPublish(objects, listed, previous, [manifestKey]);
  log(
    `${objects.length} objects in the build: ${plan.upload.length} to upload, ${plan.unchanged} unchanged, ${plan.remove.length} to delete (s3://${bucket}/${prefix})`,
  );
  if (options.dryRun) return { uploaded: 0, unchanged: plan.unchanged, deleted: 0, objects: objects.length };

  let done = 0;
  const files = new Map(objects.map((o) => [o.key, o.file]));
  await pool(plan.upload, CONCURRENCY, async (o) => {
    const file = files.get(o.key) ?? null;
    await options.client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: o.key,
        Body: file ? await fs.readFile(file) : Buffer.alloc(0),
        ContentType: o.contentType,
        CacheControl: o.cacheControl,
        ...(o.redirect ? { WebsiteRedirectLocation: o.redirect } : {}),
      }),
    );
    done++;
    if (done % 200 === 0 || done === plan.upload.length) log(`uploaded ${done}/${plan.upload.length}`);
  });
  const manifest: PublishManifest = {
    publishedAtUtc: new Date().toISOString(),
    buildGeneratedAtUtc: info.generatedAtUtc,
    objects: Object.fromEntries(
      objects.map((o) => [
        o.key,
        { md5: o.md5, contentType: o.contentType, cacheControl: o.cacheControl, redirect: o.redirect },
      ]),
    ),
  };
  await options.client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: manifestKey,
      Body: JSON.stringify(manifest),
      ContentType: 'application/json',
      CacheControl: 'no-store',
    }),
  );
  // Deletions last: until every new object is in place, the old ones keep serving.
  for (let i = 0; i < plan.remove.length; i += 1000) {
    const batch = plan.remove.slice(i, i + 1000);
    const answer = await options.client.send(
      new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
    );
    if (answer.Errors?.length)
      throw new Error(
        `could not delete ${answer.Errors.length} object(s), e.g. ${answer.Errors[0]!.Key}: ${answer.Errors[0]!.Message}`,
      );
  }
  if (plan.remove.length > 0) log(`deleted ${plan.remove.length}`);
  return {
    uploaded: plan.upload.length,
    unchanged: plan.unchanged,
    deleted: plan.remove.length,
    objects: objects.length,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseArgs({
    options: {
      to: { type: 'string' },
      build: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  try {
    if (!values.to)
      throw new Error('usage: npm run publish:static -- --to s3://bucket/prefix [--build DIR] [--dry-run]');
    const config = loadConfig(process.env, PROJECT_ROOT);
    let buildDir = values.build ? path.resolve(values.build) : null;
    if (!buildDir) {
      const repo = await ensureContentRepo(config.contentRepo, config.seedContentDir);
      buildDir = await ensureBuild(config, repo.head, {
        inheritOutput: true,
        onBuildStart: () => console.log(`building commit ${repo.head.slice(0, 12)} first ...`),
      });
    }
    const client = createS3Client(config.s3);
    const result = await publishStatic({
      client,
      buildDir,
      to: values.to,
      dryRun: values['dry-run'],
      log: (line) => console.log(line),
    });
    console.log(
      `${values['dry-run'] ? 'would publish' : 'published'} ${result.objects} objects: ${result.uploaded} uploaded, ${result.unchanged} unchanged, ${result.deleted} deleted`,
    );
    client.destroy();
  } catch (err) {
    console.error(
      err instanceof ConfigError
        ? `configuration error: ${err.message}`
        : `publish:static failed: ${(err as Error).message}`,
    );
    process.exit(1);
  }
}
