/**
 * `npm run publish:static` against a real S3-protocol server (s3rver) this file starts: a complete
 * build lands as objects with the bytes, Content-Type and Cache-Control the front server answers
 * for the same paths, records also under their extension-less paths (as nginx.conf maps them); a
 * second run uploads nothing; a changed build uploads only what changed and deletes, last, what
 * is gone.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { runScript } from '../helpers/process.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';

const BUCKET = 'site-bucket';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-publish-static-'));
let s3: TestS3;
let t: TestApp;
const buildDir = inject('sampleBuildDir');

function files(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel)).flatMap((n) => {
    const r = rel ? `${rel}/${n}` : n;
    return statSync(path.join(dir, r)).isDirectory() ? files(dir, r) : [r];
  });
}

/** Run the CLI (asynchronously: the S3 server lives in this process and must keep answering). */
function publish(build: string, to: string) {
  return runScript('publish-static.ts', ['--build', build, '--to', to], {
    ...s3.env,
    ARCHIVE_DATA_DIR: path.join(root, 'data'),
  });
}

async function listed(prefix: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let token: string | undefined;
  do {
    const page = await s3.client.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) out.set(o.Key!, (o.ETag ?? '').replace(/"/g, ''));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

const get = async (key: string) => {
  const o = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return {
    contentType: o.ContentType,
    cacheControl: o.CacheControl,
    body: Buffer.from(await o.Body!.transformToByteArray()),
  };
};

/** A work of the sample build (read from the build folder itself). */
const firstSlug = () =>
  readdirSync(path.join(buildDir, 'client', 'api', 'v1', 'works'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()[0]!;

beforeAll(async () => {
  // A sample build is more than 1,000 objects: listing them needs the server in its own process.
  s3 = await startS3([BUCKET], { inProcess: false });
  t = await openApp(buildDir);
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('npm run publish:static', () => {
  it("uploads a complete build with the server's bytes, content types and cache headers, records at their extension-less paths", async () => {
    const run = await publish(buildDir, `s3://${BUCKET}/site`);
    expect(run.status, run.out).toBe(0);
    const client = path.join(buildDir, 'client');
    const all = files(client);
    const objects = await listed('site/');
    for (const rel of all) expect(objects.get(`site/${rel}`), rel).toBe(md5(readFileSync(path.join(client, rel))));
    expect(run.out).toMatch(
      new RegExp(`published ${objects.size - 1} objects: ${objects.size - 1} uploaded, 0 unchanged, 0 deleted`),
    );

    const slug = firstSlug();
    const astro = all.find((r) => r.startsWith('_astro/'))!;
    const pagefind = all.find((r) => r.startsWith('pagefind/') && r.endsWith('.js'))!;
    expect(astro).toBeDefined();
    // Each URL as the server answers it, and the object a CDN would fetch for it.
    const paths = [
      '/index.html',
      '/api/v1',
      '/api/v1/',
      `/api/v1/works/${slug}`,
      `/api/v1/works/${slug}/`,
      `/api/v1/works/${slug}/index.md`,
      `/works/${slug}/`,
      '/llms.txt',
      '/api/v1/openapi.json',
      `/${astro}`,
      `/${pagefind}`,
      '/track/',
    ];
    for (const p of paths) {
      const served = await t.app.inject({ url: p });
      expect(served.statusCode, p).toBe(200);
      const object = await get(`site/${p.slice(1)}`);
      expect(object.contentType, p).toBe(served.headers['content-type']);
      expect(object.cacheControl, p).toBe(served.headers['cache-control']);
      expect(object.body.equals(served.rawPayload), p).toBe(true);
    }
    // A page's folder without its slash: the server redirects, the object redirects the same way.
    const served = await t.app.inject({ url: `/works/${slug}` });
    expect(served.statusCode).toBe(301);
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `site/works/${slug}` }));
    expect(head.WebsiteRedirectLocation).toBe(new URL(String(served.headers.location)).pathname);
  });

  it('uploads nothing the second time, then only what changed, and deletes what is gone last', async () => {
    const again = await publish(buildDir, `s3://${BUCKET}/site`);
    expect(again.status, again.out).toBe(0);
    expect(again.out).toMatch(/ 0 uploaded, \d+ unchanged, 0 deleted/);

    const changed = path.join(root, 'changed');
    cpSync(buildDir, changed, { recursive: true });
    appendFileSync(path.join(changed, 'client', 'llms.txt'), '\nOne more line.\n');
    const slug = firstSlug();
    rmSync(path.join(changed, 'client', 'api', 'v1', 'works', slug, 'index.md'));
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'site/stray.txt', Body: 'left over' }));
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'elsewhere/keep.txt', Body: 'not ours' }));
    const run = await publish(changed, `s3://${BUCKET}/site`);
    expect(run.status, run.out).toBe(0);
    expect(run.out).toMatch(/ 1 uploaded, \d+ unchanged, 2 deleted/);
    // Deletions are reported after the uploads finished.
    expect(run.out.indexOf('uploaded 1/1')).toBeGreaterThan(-1);
    expect(run.out.indexOf('deleted 2')).toBeGreaterThan(run.out.indexOf('uploaded 1/1'));
    const objects = await listed('');
    expect(objects.has(`site/api/v1/works/${slug}/index.md`)).toBe(false);
    expect(objects.has('site/stray.txt')).toBe(false);
    expect(objects.has('elsewhere/keep.txt')).toBe(true);
    expect((await get('site/llms.txt')).body.toString()).toContain('One more line.');
  });

  it('refuses a bad target or an incomplete build with a message', async () => {
    const bad = await publish(buildDir, 's3://UPPER/x');
    expect(bad.status).toBe(1);
    expect(bad.out).toMatch(/--to must be s3:\/\/<bucket>/);
    const incomplete = await publish(path.join(root, 'nothing-here'), `s3://${BUCKET}/x`);
    expect(incomplete.status).toBe(1);
    expect(incomplete.out).toMatch(/not a complete build/);
  });
});
