/**
 * Engraved pages served compressed. Verovio's SVG is text (a quartet page is 240-300 KB), so each
 * page is compressed once at build time into two files beside it, `page-N.svg.br` (brotli) and
 * `page-N.svg.gz` (gzip), and the server (api/site/static-site.ts) and nginx (`gzip_static`,
 * `brotli_static`: api/site/nginx.ts) choose one by the request's Accept-Encoding. Nothing is
 * compressed per request.
 *
 * Which files have compressed siblings is one rule, PRECOMPRESSED_FILE, shared by the build, the
 * server and the nginx config: only the engraved SVG pages of the score folders. Files stored with
 * a work (`works/{slug}/files/`) came from contributors and are never negotiated, so a contributed
 * `x.svg.gz` can never stand in for `x.svg`.
 *
 * Levels: brotli quality 5 and gzip level 9. Measured on 40 pages of the largest quartet (4.2 MB
 * of SVG, loaded 2-core machine): brotli q5 20.1 % of the SVG at about 25 MB/s, q9 19.7 % at
 * 1 MB/s, q11 18.2 % at 0.15 MB/s; gzip -9 21.2 % at 17 MB/s. Quality 11 would cost several
 * minutes per quartet, more than engraving it, for 2 % of the SVG's size.
 */
import { promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** Paths inside the build folder (forward slashes) whose compressed siblings may exist. */
export const PRECOMPRESSED_FILE = /^works\/[^/]+\/score\/[^/]+\/[^/]+\.svg$/;

/** The same rule as an nginx location regex over the URL path. */
export const PRECOMPRESSED_NGINX_LOCATION = '^/works/[^/]+/score/[^/]+/[^/]+\\.svg$';

/** Content codings the build writes, in the server's order of preference, with each sibling's suffix. */
export const CODINGS = [
  { coding: 'br', suffix: '.br' },
  { coding: 'gzip', suffix: '.gz' },
] as const;
export type Coding = (typeof CODINGS)[number]['coding'];

export const BROTLI_QUALITY = 5;
export const GZIP_LEVEL = 9;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** The two compressed forms of one file's bytes (deterministic: same bytes in, same bytes out). */
export async function compressedForms(bytes: Buffer): Promise<Record<Coding, Buffer>> {
  const [br, gz] = await Promise.all([
    brotli(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gzip(bytes, { level: GZIP_LEVEL }),
  ]);
  return { br, gzip: gz };
}

/** Write `<file>.br` and `<file>.gz` beside `file` (temp name, then rename, so no half file is ever served). */
export async function precompressFile(file: string): Promise<{ bytes: number; br: number; gzip: number }> {
  const bytes = await fs.readFile(file);
  const forms = await compressedForms(bytes);
  for (const { coding, suffix } of CODINGS) {
    const target = `${file}${suffix}`;
    await fs.writeFile(`${target}.tmp`, forms[coding]);
    await fs.rename(`${target}.tmp`, target);
  }
  return { bytes: bytes.length, br: forms.br.length, gzip: forms.gzip.length };
}

export interface PrecompressResult {
  files: number;
  bytes: number;
  brBytes: number;
  gzipBytes: number;
  durationMs: number;
}

/**
 * Compress every engraved page under `root` (a folder laid out like the site: `works/...`) that
 * has no compressed siblings yet. Siblings that already exist were written with their page (an
 * engraving restored from a cache together with its compressed forms) and are kept. zlib's
 * asynchronous calls run on libuv's thread pool, so `concurrency` files compress in parallel
 * without blocking this thread.
 */
export async function precompressScores(root: string, concurrency = 4): Promise<PrecompressResult> {
  const started = Date.now();
  const result: PrecompressResult = { files: 0, bytes: 0, brBytes: 0, gzipBytes: 0, durationMs: 0 };
  const todo: string[] = [];
  const worksDir = path.join(root, 'works');
  let works: string[] = [];
  try {
    works = readdirSync(worksDir);
  } catch {
    works = [];
  }
  for (const slug of works) {
    const scoreDir = path.join(worksDir, slug, 'score');
    let assets: string[];
    try {
      assets = readdirSync(scoreDir);
    } catch {
      continue;
    }
    for (const asset of assets) {
      const dir = path.join(scoreDir, asset);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      const present = new Set(names);
      for (const name of names) {
        if (!PRECOMPRESSED_FILE.test(`works/${slug}/score/${asset}/${name}`)) continue;
        if (CODINGS.every(({ suffix }) => present.has(`${name}${suffix}`))) continue;
        todo.push(path.join(dir, name));
      }
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const file = todo[next++]!;
      const r = await precompressFile(file);
      result.files++;
      result.bytes += r.bytes;
      result.brBytes += r.br;
      result.gzipBytes += r.gzip;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  result.durationMs = Date.now() - started;
  return result;
}
