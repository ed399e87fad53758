/**
 * "Download all": one zip per work with its public files, written by the build's zips step (build/steps/zips.ts) after
 * `astro build` (the records and engraved scores must exist first) to
 * `works/{slug}/{slug}.zip`. Inside, under one `{slug}/` folder:
 *
 *   README.txt              what the zip holds and the rights in a few lines
 *   record.json, record.md  the work's JSON and Markdown records, byte for byte as served
 *   files/<name>            stored files of public assets (MusicXML, MP3, MIDI ...)
 *   score/<id>/score.pdf    each engraved source score (MusicXML or .mxl) as a PDF, and its MIDI
 *                           rendition, both with the work's title and composer in their metadata
 *   SHA256SUMS              `sha256sum -c` format, one line per other file
 *
 * Non-public files are never included; files kept elsewhere (blobs, external URLs) are listed in
 * README.txt with their links instead. Entries carry the build's time, so a zip depends only on
 * the build's inputs; the archive's comment names the work, its composer and its page.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LoadedWork } from '../../domain/catalog.ts';
import type { WorkRecord } from '../../schemas/work.ts';
import { scoreFolder } from './scores.ts';
import { zipEntries } from './zip-writer.ts';

export interface ZipSummary {
  works: number;
  bytes: number;
  durationMs: number;
}

/** Where a work's zip lives, relative to the site root. */
export function workZipPath(slug: string): string {
  return `works/${slug}/${slug}.zip`;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Already-compressed formats are stored as they are; text is deflated. */
const STORED = /\.(mp3|mxl|zip|pdf|png|jpe?g|gif|webp|ogg|oga|opus|flac|m4a|aac|mp4|webm)$/i;

function readme(record: WorkRecord, elsewhere: string[], included: string[]): string {
  const r = record.rights;
  return [
    `${record.title} — ${record.composer.name}`,
    '',
    `The public files of this work in the Public-Domain Music Archive, as published at ${record.links.html}`,
    '',
    'Rights (the full statement with per-territory notes and evidence is in record.md and record.json):',
    `- Composition: ${r.composition.status}. ${r.composition.note}`,
    `- Edition / file: ${r.edition.status}. ${r.edition.note}`,
    `- Recording: ${r.recording.status}. ${r.recording.note}`,
    `- License of the archive's own files: ${r.license ?? 'none stated'}${r.attribution ? `; attribution: ${r.attribution}` : ''}`,
    '- Each file has its own rights status, license and review state in record.md; a review state such as',
    '  "technical-pass" is not listening approval, and "rights-review-required" is not permission.',
    '',
    'Files in this zip:',
    ...included.map((f) => `- ${f}`),
    '',
    ...(elsewhere.length > 0
      ? ['Public files kept elsewhere (not in this zip):', ...elsewhere.map((f) => `- ${f}`), '']
      : []),
    'Check the files with: sha256sum -c SHA256SUMS',
    '',
  ].join('\n');
}

/**
 * What a work's zip needs besides its written records: each asset's stored file by asset
 * (`<assetId>` for a source asset, `<arrangementId>/<assetId>` for an arrangement's), plain data
 * so a worker thread can have it.
 */
export interface ZipWork {
  slug: string;
  assets: Record<string, { file?: string; absolutePath?: string }>;
}

export function zipWorkOf(work: LoadedWork): ZipWork {
  const assets: ZipWork['assets'] = {};
  const entry = (file: string | undefined) => ({
    ...(file !== undefined ? { file } : {}),
    ...(file !== undefined && work.files.get(file) ? { absolutePath: work.files.get(file)!.absolutePath } : {}),
  });
  for (const a of work.content.sourceAssets) assets[String(a.id)] ??= entry(a.file);
  for (const arr of work.content.arrangements)
    for (const a of arr.assets) assets[`${arr.id}/${a.id}`] ??= entry(a.file);
  return { slug: work.content.slug, assets };
}

function zipOne(work: ZipWork, clientDir: string, mtime: Date): Buffer {
  const slug = work.slug;
  const recordDir = path.join(clientDir, 'api', 'v1', 'works', slug);
  const jsonBytes = readFileSync(path.join(recordDir, 'index.json'));
  const record = (JSON.parse(jsonBytes.toString('utf8')) as { data: WorkRecord }).data;
  const files = new Map<string, Uint8Array>();
  files.set('record.json', jsonBytes);
  files.set('record.md', readFileSync(path.join(recordDir, 'index.md')));

  const elsewhere: string[] = [];
  const assets = [
    ...record.sourceAssets.map((a) => ({ a, content: work.assets[String(a.id)] })),
    ...record.arrangements.flatMap((arr) => arr.assets.map((a) => ({ a, content: work.assets[`${arr.id}/${a.id}`] }))),
  ];
  for (const { a, content } of assets) {
    if (a.access !== 'public' || !content) continue;
    if (content.file !== undefined) {
      if (content.absolutePath !== undefined) files.set(`files/${content.file}`, readFileSync(content.absolutePath));
    } else if (a.kind !== 'source-page' && a.links.download) {
      elsewhere.push(`asset ${a.id} (${a.title}): ${a.links.download}`);
    }
    // Every engraved source score, compressed MusicXML included: its PDF and MIDI carry the work's metadata.
    if (a.kind === 'musicxml' || a.kind === 'mxl') {
      const folder = path.join(clientDir, scoreFolder(slug, a.id));
      for (const name of ['score.pdf', 'score.mid']) {
        const abs = path.join(folder, name);
        if (existsSync(abs)) files.set(`score/${a.id}/${name}`, readFileSync(abs));
      }
    }
  }
  files.set(
    'README.txt',
    Buffer.from(readme(record, elsewhere, [...files.keys(), 'README.txt', 'SHA256SUMS'].sort()), 'utf8'),
  );
  const sums = [...files.entries()]
    .sort(([x], [y]) => x.localeCompare(y))
    .map(([name, bytes]) => `${sha256(bytes)}  ${name}`)
    .join('\n');
  files.set('SHA256SUMS', Buffer.from(`${sums}\n`, 'utf8'));

  const entries = [...files.entries()]
    .sort(([x], [y]) => x.localeCompare(y))
    .map(([name, bytes]) => ({ name: `${slug}/${name}`, bytes, store: STORED.test(name) }));
  return zipEntries(entries, mtime, zipComment(record));
}

/** The zip's own comment: the work, its composer and where it is published. */
export function zipComment(record: WorkRecord): string {
  const c = record.composer;
  const life = `${c.born.slice(0, 4)}–${c.died.slice(0, 4)}`.replace(/unkn/g, '?');
  return [
    `${record.title}${record.workNumber && !record.title.includes(record.workNumber) ? `, ${record.workNumber}` : ''} — ${c.name} (${life})`,
    ...(record.lyricist ? [`Words: ${record.lyricist.name}`] : []),
    `Public-Domain Music Archive: ${record.links.html}`,
  ].join('\n');
}

/** Write these works' zips into the built site; returns counts for build.json. */
export function writeWorkZips(works: ZipWork[], clientDir: string, generatedAtUtc: string): ZipSummary {
  const started = Date.now();
  const mtime = new Date(generatedAtUtc);
  let bytes = 0;
  for (const work of works) {
    const zip = zipOne(work, clientDir, mtime);
    writeFileSync(path.join(clientDir, workZipPath(work.slug)), zip);
    bytes += zip.length;
  }
  return { works: works.length, bytes, durationMs: Date.now() - started };
}

/**
 * These works' zips in worker threads (two: with the build's thread busy on the server's index
 * files, the second worker takes its share when that is done), so a full build writes them beside
 * its other steps (build/steps/zips.ts). Only what the zips need goes to a worker
 * (`ZipWork`, a few hundred bytes a work), not the catalog.
 */
export async function writeWorkZipsInWorkers(
  works: ZipWork[],
  clientDir: string,
  generatedAtUtc: string,
  workers = 2,
): Promise<ZipSummary> {
  const started = Date.now();
  const size = Math.max(1, Math.ceil(works.length / workers));
  const parts: ZipWork[][] = [];
  for (let i = 0; i < works.length; i += size) parts.push(works.slice(i, i + size));
  const settled = await Promise.allSettled(parts.map((part) => zipsInWorker(part, clientDir, generatedAtUtc)));
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const done = settled.map((r) => (r as PromiseFulfilledResult<ZipSummary>).value);
  return {
    works: done.reduce((n, r) => n + r.works, 0),
    bytes: done.reduce((n, r) => n + r.bytes, 0),
    durationMs: Date.now() - started,
  };
}

function zipsInWorker(works: ZipWork[], clientDir: string, generatedAtUtc: string): Promise<ZipSummary> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./work-zips-worker.ts', import.meta.url), {
      workerData: { works, clientDir, generatedAtUtc },
    });
    let settled = false;
    worker.once('message', (msg: ZipSummary | { error: string }) => {
      settled = true;
      if ('error' in msg) reject(new Error(`cannot write the zips: ${msg.error}`));
      else resolve(msg);
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the zip worker exited with ${code}`));
    });
  });
}
