/**
 * Build-time score rendering: every MusicXML source score stored with a public work is engraved
 * to SVG pages (wide and phone layouts, every page), a MIDI rendition and a PDF. Runs in
 * scripts/build.ts before `astro build`; writes the files under `<dir>/files/<score folder>/`
 * and a manifest the pages read for sizes and failures. A score that fails is recorded with its
 * reason and the build goes on.
 *
 * Each score is looked up in the render cache first (src/lib/site/render-cache.ts; verified by
 * digest, a damaged entry is engraved again); what is missing is engraved in the engraving pool
 * (src/lib/site/engrave-pool.ts: worker threads, one score each, with time and memory budgets)
 * and stored in the cache. Workers start only when something must be engraved (synthetic
 * catalogs have no stored scores and pay nothing; an unchanged catalog engraves nothing).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Catalog } from '../../domain/catalog.ts';
import type { AssetContent, WorkContent } from '../../schemas/work.ts';
import { scoreFolder, type ScoreManifest, type ScoreRendering } from './scores.ts';
import type { EngraveMeta, EngraveOutput, EngravedFile } from './engrave.ts';
import { withMidiMetadata } from './midi-meta.ts';
import { defaultEngravePoolOptions, EngraveBudgetError, EngravePool, type EngravePoolOptions } from './engrave-pool.ts';
import { engravingKey, pdfKey, RenderCache, renderCacheName, type RenderCacheBackend } from './render-cache.ts';
import { placeViewedFile, RenderView, type ViewedEntry } from './render-view.ts';
import { CODINGS, compressedForms } from './precompress.ts';

export { looksActive } from './engrave.ts';

/** How the subject line of every engraved score's PDF ends. */
const PDF_SUBJECT = 'engraved by Verovio from the MusicXML source score';

export interface Job {
  slug: string;
  /** The PDF's and MIDI's title: the work's title (and the movement's), and its composer. */
  title: string;
  /** The PDF's author: the composer (and the lyricist of a work with words). */
  composer: string;
  subject: string;
  keywords: string;
  assetId: number;
  file: string | null;
  compressed: boolean;
  reason?: string;
}

/**
 * What an engraved score's PDF and MIDI say about it: the work's title (with the movement a score
 * of one movement holds) and composer as the title, the composer (and lyricist) as the author, and
 * the work's catalog numbers and genre. Never the file's format: "String Quartet No. 18 in A
 * major, K. 464: II. Menuetto and Trio — Wolfgang Amadeus Mozart", not "String Quartet: String
 * Quartet (full score, compressed MusicXML)".
 */
export function scoreMetadata(
  work: WorkContent,
  asset: AssetContent,
): { title: string; composer: string; subject: string; keywords: string } {
  const movement = asset.movement !== undefined ? work.movements?.find((m) => m.number === asset.movement) : undefined;
  const composer = work.composer.name;
  const title = `${work.title}${movement ? `: ${romanNumeral(movement.number)}. ${movement.title}` : ''}`;
  const catalog = (work.catalogNumbers ?? []).map((n) => `${n.catalog} ${n.number}`);
  return {
    title: `${title} — ${composer}`.slice(0, 400),
    composer: `${composer}${work.lyricist ? `; words by ${work.lyricist.name}` : ''}`,
    subject:
      `${title}${work.workNumber && !title.includes(work.workNumber) ? ` (${work.workNumber})` : ''} by ${composer}: ${asset.title}, ${PDF_SUBJECT}`.slice(
        0,
        600,
      ),
    keywords: [...catalog, work.genre, ...(movement ? [`movement ${movement.number}`] : [])].filter(Boolean).join('; '),
  };
}

function romanNumeral(n: number): string {
  const table: Array<[number, string]> = [
    [1000, 'M'],
    [900, 'CM'],
    [500, 'D'],
    [400, 'CD'],
    [100, 'C'],
    [90, 'XC'],
    [50, 'L'],
    [40, 'XL'],
    [10, 'X'],
    [9, 'IX'],
    [5, 'V'],
    [4, 'IV'],
    [1, 'I'],
  ];
  let out = '';
  let rest = n;
  for (const [v, r] of table)
    while (rest >= v) {
      out += r;
      rest -= v;
    }
  return out;
}

/**
 * Every MusicXML (.musicxml or .mxl) score of the catalog to engrave: source scores and
 * contributed arrangement scores (they live in the blob store: `blobPath` maps a digest
 * to its file; without it they are listed as not rendered).
 */
export function scoreJobs(catalog: Catalog, blobPath?: (sha256: string) => string): Job[] {
  const out: Job[] = [];
  for (const work of catalog.works) {
    // Arrangement scores: the contributed ones (in the blob store). The sample's own arrangement
    // scores stay files to download, as before, so builds do not grow.
    const scores = [
      ...work.content.sourceAssets,
      ...(work.content.arrangements ?? []).flatMap((a) => a.assets.filter((x) => x.blob !== undefined)),
    ];
    for (const asset of scores) {
      if (asset.kind !== 'musicxml' && asset.kind !== 'mxl') continue;
      const base = {
        slug: work.content.slug,
        assetId: asset.id,
        ...scoreMetadata(work.content, asset),
        compressed: asset.kind === 'mxl',
      };
      if (asset.access !== 'public')
        out.push({
          ...base,
          file: null,
          reason: 'The score is not public, so the public site shows no preview of it.',
        });
      else if (asset.blob !== undefined && blobPath) {
        const file = blobPath(asset.blob);
        out.push({
          ...base,
          file: existsSync(file) ? file : null,
          reason: 'The stored file is missing from the blob store.',
        });
      } else if (asset.file === undefined)
        out.push({
          ...base,
          file: null,
          reason: 'The score is not stored with the work, so the build cannot render it; open it from its link.',
        });
      else
        out.push({
          ...base,
          file: work.files.get(asset.file)?.absolutePath ?? null,
          reason: 'The stored file is missing.',
        });
    }
  }
  return out;
}

export interface RenderSummary {
  manifest: ScoreManifest;
  rendered: number;
  failed: number;
  /** Scores engraved by this run (the rest of `rendered + failed` came from the cache or were not renderable). */
  engraved: number;
  /** Scores whose verified cache entry was used. */
  fromCache: number;
  /** Cache entries that failed verification (engraved again and replaced). */
  corrupt: number;
  /** PDFs made from cached pages (the PDF's own entry was missing or damaged). */
  pdfsMade: number;
  /** SVG pages whose brotli and gzip forms came from a verified cache entry (no compression work). */
  compressedFromCache: number;
  /** SVG pages compressed by this run to be stored in the cache (new engravings, or entries made before the forms were kept). */
  compressedForCache: number;
  /** Scores whose files were hard-linked from the render view (no entry read, nothing written; counted in fromCache too). */
  fromView: number;
  /** Scores unpacked into the render view by this run (their entry was read and verified, or they were engraved). */
  unpacked: number;
  /** Files placed from the render view as hard links (a copy where the filesystem refuses a link is not counted). */
  linkedFiles: number;
  durationMs: number;
  /**
   * With `linkLater`: the scores found in the view, not placed yet (their folder under the site's
   * root, relative). The caller links them with `placeViewedScores` where they are served, after
   * Astro has made that folder, so they are never staged and moved (and adds its answer to
   * `linkedFiles`, which counts only what this call placed).
   */
  deferred: { folder: string; viewed: ViewedEntry }[];
}

/** Link deferred view scores into the site's root; answers how many files were linked. */
export function placeViewedScores(deferred: RenderSummary['deferred'], root: string): number {
  let linked = 0;
  for (const { folder, viewed } of deferred) {
    const outDir = path.join(root, folder);
    mkdirSync(outDir, { recursive: true });
    for (const f of viewed.files) if (placeViewedFile(f.file, path.join(outDir, f.name))) linked++;
  }
  return linked;
}

export interface RenderOptions {
  generatedAtUtc?: string;
  blobPath?: (sha256: string) => string;
  /** The render cache's backend (the blob store); none: every score is engraved. */
  cache?: RenderCacheBackend | null;
  /**
   * The render view's folder (src/lib/site/render-view.ts), on the filesystem of `dir`: cached
   * scores are linked from it instead of written. Used when the backend has fingerprints.
   */
  view?: string | null;
  /** Scores found in the view are not linked into `dir` but listed in `deferred` (the full build links them after Astro). */
  linkLater?: boolean;
  /** The pool to engrave in; without one, a pool with these options is made and closed. */
  pool?: EngravePool;
  poolOptions?: Partial<EngravePoolOptions>;
}

/** The cache keys and PDF metadata of one score file (meta null: the engraving alone, no PDF). */
export interface ScoreIdentity {
  sha256: string;
  engraving: string;
  pdf: string | null;
  meta: EngraveMeta | null;
}

export function scoreIdentity(
  bytes: Buffer,
  info: { title: string; composer: string; subject: string; keywords: string } | null,
  createdAtUtc: string,
): ScoreIdentity {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const engraving = engravingKey(sha256);
  if (!info) return { sha256, engraving, pdf: null, meta: null };
  const meta: EngraveMeta = {
    title: info.title,
    author: info.composer,
    subject: info.subject,
    ...(info.keywords ? { keywords: info.keywords } : {}),
    createdAtUtc,
  };
  return { sha256, engraving, pdf: pdfKey(engraving, meta), meta };
}

/** The MIDI rendition with the score's metadata (the engraving's own MIDI stays plain: it is shared). */
function metaMidi(plain: Uint8Array, meta: EngraveMeta): EngravedFile {
  return {
    name: 'score.mid',
    bytes: withMidiMetadata(plain, {
      title: meta.title,
      texts: [`Composer: ${meta.author}`, `${meta.subject} (Public-Domain Music Archive)`],
    }),
  };
}

/**
 * The files of a rendered score as published: the engraving's, with the MIDI and PDF made for this
 * work's metadata (`metaFiles`: the PDF entry's files) in place of the plain MIDI.
 */
function published(engraving: EngraveOutput, metaFiles: EngravedFile[]): EngraveOutput {
  if (engraving.rendering.status !== 'rendered' || metaFiles.length === 0) return engraving;
  const names = new Set(metaFiles.map((f) => f.name));
  const pdf = names.has('score.pdf');
  return {
    rendering: { ...engraving.rendering, ...(pdf ? { pdf: 'score.pdf' } : {}) },
    files: [...engraving.files.filter((f) => !names.has(f.name)), ...metaFiles],
  };
}

export interface CachedEngraving {
  /** The score's files as published (the MIDI and PDF with this work's metadata). */
  output: EngraveOutput;
  /** The engraving as its entry holds it (plain MIDI, no PDF): shared by every work that stores the file. */
  engraving: EngraveOutput;
  /** The PDF and the MIDI made for this work's metadata (the PDF entry's files); empty without metadata. */
  metaFiles: EngravedFile[];
  /** "cache": Verovio did not run (the PDF may still have been made); "engraved": it did. */
  from: 'cache' | 'engraved';
  /** A PDF was made from cached pages (its entry was missing or damaged). */
  pdfMade: boolean;
  /** Entries found damaged (and replaced). */
  corrupt: number;
  /** SVG pages whose compressed forms came with the cached engraving. */
  compressedFromCache: number;
  /** SVG pages compressed here to go into the cache entry. */
  compressedForCache: number;
}

/** Every SVG page of a rendering, wide and phone. */
function svgPages(rendering: EngraveOutput['rendering']): string[] {
  return rendering.status === 'rendered'
    ? [...rendering.pages.map((p) => p.file), ...rendering.narrowPages.map((p) => p.file)]
    : [];
}

/**
 * Add each SVG page's brotli and gzip forms (`page-N.svg.br`, `page-N.svg.gz`: the files the
 * server and nginx send, src/lib/site/precompress.ts) that the output lacks, so they are stored in
 * the cache entry with the pages and a warm build writes them instead of compressing again. zlib's
 * asynchronous calls run on libuv's thread pool; two pages at a time (each page's two forms in
 * parallel) leave threads for the build's file writes. Answers the output and how many pages it compressed.
 */
export async function withCompressedForms(
  output: EngraveOutput,
): Promise<{ output: EngraveOutput; compressed: number }> {
  const have = new Map(output.files.map((f) => [f.name, f.bytes]));
  const todo = svgPages(output.rendering).filter(
    (name) => have.has(name) && !CODINGS.every(({ suffix }) => have.has(`${name}${suffix}`)),
  );
  if (todo.length === 0) return { output, compressed: 0 };
  const added = new Map<string, Uint8Array>();
  let next = 0;
  const lane = async () => {
    while (next < todo.length) {
      const name = todo[next++]!;
      const forms = await compressedForms(Buffer.from(have.get(name)!));
      for (const { coding, suffix } of CODINGS) added.set(`${name}${suffix}`, forms[coding]);
    }
  };
  await Promise.all([lane(), lane()]);
  // In page order, whatever order they finished in: the same engraving always makes the same entry bytes.
  const names = todo.flatMap((name) => CODINGS.map(({ suffix }) => `${name}${suffix}`));
  const files = [
    ...output.files.filter((f) => !added.has(f.name)),
    ...names.map((name) => ({ name, bytes: added.get(name)! })),
  ];
  return { output: { rendering: output.rendering, files }, compressed: todo.length };
}

/** SVG pages of a cached engraving (its entry or its view) that carry both compressed forms. */
function pagesWithForms(output: { rendering: EngraveOutput['rendering']; files: { name: string }[] }): number {
  const names = new Set(output.files.map((f) => f.name));
  return svgPages(output.rendering).filter((name) => CODINGS.every(({ suffix }) => names.has(`${name}${suffix}`)))
    .length;
}

const withoutPdf = (output: EngraveOutput): EngraveOutput =>
  output.rendering.status === 'rendered'
    ? { rendering: { ...output.rendering, pdf: null }, files: output.files.filter((f) => f.name !== 'score.pdf') }
    : output;

/** The PDF (when made) and the MIDI with the work's metadata, from a plain engraving. */
function metaFilesOf(engraving: EngraveOutput, pdf: Uint8Array | null, meta: EngraveMeta): EngravedFile[] {
  const midi =
    engraving.rendering.status === 'rendered' ? engraving.files.find((f) => f.name === 'score.mid') : undefined;
  return [...(pdf ? [{ name: 'score.pdf', bytes: pdf }] : []), ...(midi ? [metaMidi(midi.bytes, meta)] : [])];
}

/**
 * Engrave one score through the cache: a verified engraving entry is used, else the pool engraves
 * and the entry is stored; the PDF likewise has its own entry (with the MIDI carrying the same
 * metadata), made from the pages when missing.
 */
export async function engraveCached(
  source: { file: string; compressed: boolean },
  identity: ScoreIdentity,
  cache: RenderCache | null,
  pool: () => EngravePool,
): Promise<CachedEngraving> {
  let corrupt = 0;
  let engraving: EngraveOutput | null = null;
  if (cache) {
    const found = await cache.get(identity.engraving);
    if (found.state === 'hit') engraving = found.output;
    else if (found.state === 'corrupt') corrupt++;
  }
  if (!engraving) {
    let output: EngraveOutput;
    try {
      output = await pool().engrave(source, identity.meta);
    } catch (err) {
      // Over a budget, or the worker died: not cached (another machine or budget may do it).
      const reason =
        err instanceof EngraveBudgetError
          ? err.message
          : `The renderer stopped with an error: ${(err as Error).message}`;
      const failed: EngraveOutput = { rendering: { status: 'failed', reason }, files: [] };
      return {
        output: failed,
        engraving: failed,
        metaFiles: [],
        from: 'engraved',
        pdfMade: false,
        corrupt,
        compressedFromCache: 0,
        compressedForCache: 0,
      };
    }
    let compressedForCache = 0;
    if (cache) ({ output, compressed: compressedForCache } = await withCompressedForms(output));
    const plain = withoutPdf(output);
    const pdf = output.files.find((f) => f.name === 'score.pdf')?.bytes ?? null;
    const metaFiles =
      identity.meta && output.rendering.status === 'rendered' ? metaFilesOf(plain, pdf, identity.meta) : [];
    if (cache) {
      // The pages' compressed forms go into the entry: compressed once, with the engraving.
      await cache.put(identity.engraving, plain).catch(() => undefined);
      if (pdf && identity.pdf)
        await cache.put(identity.pdf, { rendering: output.rendering, files: metaFiles }, 'pdf').catch(() => undefined);
    }
    return {
      output: published(plain, metaFiles),
      engraving: plain,
      metaFiles,
      from: 'engraved',
      pdfMade: false,
      corrupt,
      compressedFromCache: 0,
      compressedForCache,
    };
  }
  // An entry stored before the compressed forms were kept gets them now, once.
  const compressedFromCache = pagesWithForms(engraving);
  const upgraded = await withCompressedForms(engraving);
  const compressedForCache = upgraded.compressed;
  if (compressedForCache > 0) {
    engraving = upgraded.output;
    await cache!.put(identity.engraving, engraving).catch(() => undefined);
  }
  const fromCache = { from: 'cache' as const, corrupt, compressedFromCache, compressedForCache };
  if (engraving.rendering.status !== 'rendered' || !identity.pdf || !identity.meta)
    return { ...fromCache, output: engraving, engraving, metaFiles: [], pdfMade: false };
  let metaFiles: EngravedFile[] = [];
  let pdfMade = false;
  const found = await cache!.get(identity.pdf, 'pdf');
  if (found.state === 'hit' && found.output.files.some((f) => f.name === 'score.pdf')) metaFiles = found.output.files;
  else {
    if (found.state === 'corrupt') corrupt++;
    const pages = new Map(engraving.files.map((f) => [f.name, f.bytes]));
    const svgs = engraving.rendering.pages.map((p) =>
      Buffer.from(pages.get(p.file) ?? new Uint8Array()).toString('utf8'),
    );
    const pdfBytes = await pool()
      .pdf(svgs, identity.meta)
      .catch(() => null);
    pdfMade = true;
    metaFiles = metaFilesOf(engraving, pdfBytes, identity.meta);
    if (pdfBytes)
      await cache!
        .put(identity.pdf, { rendering: engraving.rendering, files: metaFiles }, 'pdf')
        .catch(() => undefined);
  }
  return { ...fromCache, corrupt, output: published(engraving, metaFiles), engraving, metaFiles, pdfMade };
}

/**
 * A cached score straight from the render view: its engraving's view and (for a score with PDF
 * metadata and pages) its PDF entry's view (the PDF and the MIDI with the work's metadata), each
 * current for its stored entry's fingerprint. Null when anything is missing or changed: the
 * caller reads the entries through engraveCached.
 */
export async function openViewed(
  identity: ScoreIdentity,
  backend: RenderCacheBackend,
  view: RenderView,
): Promise<ViewedEntry | null> {
  const fingerprint = await backend.namedFingerprint?.(renderCacheName(identity.engraving));
  if (!fingerprint) return null;
  const engraving = view.open(identity.engraving, 'engraving', fingerprint);
  if (!engraving || engraving.rendering.status !== 'rendered' || !identity.pdf || !identity.meta) return engraving;
  const pdfFingerprint = await backend.namedFingerprint?.(renderCacheName(identity.pdf, 'pdf'));
  if (!pdfFingerprint) return null;
  const metaFiles = view.open(identity.pdf, 'pdf', pdfFingerprint)?.files;
  if (!metaFiles?.some((f) => f.name === 'score.pdf')) return null;
  const names = new Set(metaFiles.map((f) => f.name));
  return {
    rendering: { ...engraving.rendering, pdf: 'score.pdf' },
    files: [...engraving.files.filter((f) => !names.has(f.name)), ...metaFiles],
  };
}

/**
 * Unpack what engraveCached answered for a rendered score into the view (the engraving and its
 * PDF entry, each under the fingerprint of the entry now stored for it). Null when an entry is not
 * stored (its put failed): then the caller writes the files.
 */
export async function unpackToView(
  identity: ScoreIdentity,
  got: Pick<CachedEngraving, 'engraving' | 'metaFiles'>,
  backend: RenderCacheBackend,
  view: RenderView,
): Promise<ViewedEntry | null> {
  if (got.engraving.rendering.status !== 'rendered') return null;
  const fingerprint = await backend.namedFingerprint?.(renderCacheName(identity.engraving));
  if (!fingerprint) return null;
  const engraving = view.store(identity.engraving, 'engraving', fingerprint, got.engraving);
  if (!got.metaFiles.some((f) => f.name === 'score.pdf')) return engraving;
  const pdfFingerprint = identity.pdf ? await backend.namedFingerprint?.(renderCacheName(identity.pdf, 'pdf')) : null;
  if (!pdfFingerprint) return null;
  const metaFiles = view.store(identity.pdf!, 'pdf', pdfFingerprint, {
    rendering: got.engraving.rendering,
    files: got.metaFiles,
  }).files;
  const names = new Set(metaFiles.map((f) => f.name));
  return {
    rendering: { ...got.engraving.rendering, pdf: 'score.pdf' },
    files: [...engraving.files.filter((f) => !names.has(f.name)), ...metaFiles],
  };
}

/** Render every score of the catalog into `dir`; returns (and writes) the manifest. */
export async function renderScores(catalog: Catalog, dir: string, options: RenderOptions = {}): Promise<RenderSummary> {
  const createdAtUtc = new Date(options.generatedAtUtc ?? Date.now()).toISOString();
  const started = Date.now();
  const manifest: ScoreManifest = { scores: {} };
  const todo = scoreJobs(catalog, options.blobPath);
  const renderable = todo.filter((j) => j.file !== null);
  const summary = {
    rendered: 0,
    failed: 0,
    engraved: 0,
    fromCache: 0,
    corrupt: 0,
    pdfsMade: 0,
    compressedFromCache: 0,
    compressedForCache: 0,
    fromView: 0,
    unpacked: 0,
    linkedFiles: 0,
  };
  for (const j of todo)
    if (j.file === null) manifest.scores[`${j.slug}/${j.assetId}`] = { status: 'not-rendered', reason: j.reason ?? '' };

  const cache = options.cache ? new RenderCache(options.cache) : null;
  const view = cache && options.view && options.cache?.namedFingerprint ? new RenderView(options.view) : null;
  const deferred: RenderSummary['deferred'] = [];
  const place = (viewed: ViewedEntry, outDir: string) => {
    summary.linkedFiles += placeViewedScores([{ folder: '', viewed }], outDir);
  };
  let ownPool: EngravePool | null = null;
  const pool = () => options.pool ?? (ownPool ??= new EngravePool(options.poolOptions));
  const width = options.pool?.options.size ?? options.poolOptions?.size ?? defaultEngravePoolOptions().size;
  const results = new Map<string, ScoreRendering>();
  let next = 0;
  // As many scores in flight as the pool has workers (plus one being written), each written as it arrives.
  const lane = async () => {
    while (next < renderable.length) {
      const j = renderable[next++]!;
      const key = `${j.slug}/${j.assetId}`;
      let result: ScoreRendering;
      const outDir = path.join(dir, 'files', scoreFolder(j.slug, j.assetId));
      try {
        const identity = scoreIdentity(readFileSync(j.file!), j, createdAtUtc);
        if (view) {
          // Linked from the view: no entry read, nothing written. A view changed under us (another
          // build unpacking the same score) falls through to the entries.
          const viewed = await openViewed(identity, cache!.backend, view);
          if (viewed) {
            try {
              if (viewed.rendering.status === 'rendered') {
                if (options.linkLater) deferred.push({ folder: scoreFolder(j.slug, j.assetId), viewed });
                else place(viewed, outDir);
              }
              summary.fromCache++;
              summary.fromView++;
              summary.compressedFromCache += pagesWithForms(viewed);
              results.set(key, viewed.rendering);
              continue;
            } catch {
              rmSync(outDir, { recursive: true, force: true });
            }
          }
        }
        const got = await engraveCached({ file: j.file!, compressed: j.compressed }, identity, cache, pool);
        if (got.from === 'cache') summary.fromCache++;
        else summary.engraved++;
        summary.corrupt += got.corrupt;
        if (got.pdfMade) summary.pdfsMade++;
        summary.compressedFromCache += got.compressedFromCache;
        summary.compressedForCache += got.compressedForCache;
        result = got.output.rendering;
        if (result.status === 'rendered') {
          const viewed = view ? await unpackToView(identity, got, cache!.backend, view) : null;
          if (viewed) {
            summary.unpacked++;
            place(viewed, outDir);
          } else {
            mkdirSync(outDir, { recursive: true });
            for (const f of got.output.files) writeFileSync(path.join(outDir, f.name), f.bytes);
          }
        }
      } catch (err) {
        result = { status: 'failed', reason: `The renderer stopped with an error: ${(err as Error).message}` };
      }
      results.set(key, result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(width, renderable.length) }, lane));
  } finally {
    await (ownPool as EngravePool | null)?.close();
  }
  // The manifest in the catalog's order, whatever order the scores finished in.
  for (const j of renderable) {
    const result = results.get(`${j.slug}/${j.assetId}`)!;
    manifest.scores[`${j.slug}/${j.assetId}`] = result;
    if (result.status === 'rendered') summary.rendered++;
    else summary.failed++;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { manifest, ...summary, durationMs: Date.now() - started, deferred };
}
