/**
 * Build-time score rendering: every MusicXML source score stored with a public work is engraved
 * to SVG pages with Verovio, with a MIDI rendition of the same file. Runs in scripts/build.ts
 * before `astro build`; writes the files under `<dir>/files/<score folder>/` and a manifest the
 * pages read for sizes and failures. A score that fails is recorded with its reason and the
 * build goes on. Verovio starts only when there is something to render (synthetic catalogs have
 * no stored scores and pay nothing).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { musicXmlFromMxl } from '../../domain/mxl.ts';
import path from 'node:path';
import type { VerovioToolkit } from 'verovio/esm';
import type { Catalog } from '../../domain/catalog.ts';
import { NARROW_PAGE_PX, scoreFolder, type ScoreManifest, type ScorePage, type ScoreRendering } from './scores.ts';
import { svgPagesToPdf, type PdfMeta } from './score-pdf.ts';

/** Engraving width in Verovio units (1/10 mm at scale 100); with scale 40 a page is 840 px wide. */
const VEROVIO_OPTIONS = {
  pageWidth: 2100,
  pageHeight: 2970,
  scale: 40,
  adjustPageHeight: true,
  // Ids derived from the input, so the same file renders to the same bytes in every build.
  xmlIdChecksum: true,
};

/**
 * The phone layout: a page NARROW_PAGE_PX wide at scale 36, a 25.9 px staff (the wide pages have
 * 28.8 px at scale 40). Slightly smaller than the wide pages so that two bars of a dense score
 * still fit a system without Verovio squeezing them; still above MIN_STAFF_PX.
 */
const NARROW_SCALE = 36;
const NARROW_OPTIONS = {
  ...VEROVIO_OPTIONS,
  scale: NARROW_SCALE,
  pageWidth: Math.round((NARROW_PAGE_PX * 100) / NARROW_SCALE),
};

interface Job {
  slug: string;
  title: string;
  composer: string;
  assetId: number;
  file: string | null;
  compressed: boolean;
  reason?: string;
}

/**
 * Every MusicXML (.musicxml or .mxl) score of the catalog to engrave: source scores and, since
 * issue 13, contributed arrangement scores (they live in the blob store: `blobPath` maps a digest
 * to its file; without it they are listed as not rendered).
 */
function jobs(catalog: Catalog, blobPath?: (sha256: string) => string): Job[] {
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
        title: `${work.content.title}: ${asset.title}`,
        composer: work.content.composer.name,
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

/** The SVG's own size in px, which the page reserves before the image loads. */
function svgSize(svg: string): { width: number; height: number } | null {
  const open = /<svg\b[^>]*>/.exec(svg)?.[0] ?? '';
  const w = /\swidth="([\d.]+)px"/.exec(open);
  const h = /\sheight="([\d.]+)px"/.exec(open);
  return w && h ? { width: Math.round(Number(w[1])), height: Math.round(Number(h[1])) } : null;
}

const TAG = /<([A-Za-z][\w:.-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'))?)*)\s*\/?>/g;
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'))?/g;

/**
 * Verovio writes text through an XML serializer, so a MusicXML title like "<script>" arrives
 * escaped. Check the tags anyway and refuse any image that could still be active when opened
 * on its own: script-like elements, event-handler attributes, script URLs.
 */
export function looksActive(svg: string): boolean {
  for (const [, name = '', attrs = ''] of svg.matchAll(TAG)) {
    if (/^(script|foreignobject|iframe|object|embed|handler|listener)$/i.test(name)) return true;
    for (const [, attr = '', dq, sq] of attrs.matchAll(ATTRIBUTE)) {
      if (/^on/i.test(attr)) return true;
      if (/(^|:)href$|^src$/i.test(attr) && /^\s*(javascript|data|vbscript):/i.test(dq ?? sq ?? '')) return true;
    }
  }
  return false;
}

export interface RenderSummary {
  manifest: ScoreManifest;
  rendered: number;
  failed: number;
  durationMs: number;
}

/** Render every score of the catalog into `dir`; returns (and writes) the manifest. */
export async function renderScores(
  catalog: Catalog,
  dir: string,
  options: { generatedAtUtc?: string; blobPath?: (sha256: string) => string } = {},
): Promise<RenderSummary> {
  const createdAt = new Date(options.generatedAtUtc ?? Date.now());
  const started = Date.now();
  const manifest: ScoreManifest = { scores: {} };
  const todo = jobs(catalog, options.blobPath);
  const renderable = todo.filter((j) => j.file !== null);
  let rendered = 0;
  let failed = 0;
  for (const j of todo)
    if (j.file === null) manifest.scores[`${j.slug}/${j.assetId}`] = { status: 'not-rendered', reason: j.reason ?? '' };

  if (renderable.length > 0) {
    const { default: createVerovioModule } = await import('verovio/wasm');
    const { VerovioToolkit, enableLog, enableLogToBuffer, LOG_WARNING } = await import('verovio/esm');
    const module = await createVerovioModule();
    // Warnings go to a buffer we read for the failure note, not to the build's output.
    enableLogToBuffer(1, module);
    enableLog(LOG_WARNING, module);
    const tk = new VerovioToolkit(module);
    for (const j of renderable) {
      const key = `${j.slug}/${j.assetId}`;
      let result: ScoreRendering;
      try {
        result = await renderOne(
          tk,
          j.compressed ? musicXmlFromMxl(readFileSync(j.file!)) : readFileSync(j.file!, 'utf8'),
          path.join(dir, 'files', scoreFolder(j.slug, j.assetId)),
          {
            title: j.title,
            author: j.composer,
            subject: 'Engraved by Verovio from the MusicXML source score',
            createdAt,
          },
        );
      } catch (err) {
        result = { status: 'failed', reason: `The renderer stopped with an error: ${(err as Error).message}` };
      }
      manifest.scores[key] = result;
      if (result.status === 'rendered') rendered++;
      else failed++;
    }
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { manifest, rendered, failed, durationMs: Date.now() - started };
}

function renderPages(
  tk: VerovioToolkit,
  pageCount: number,
  prefix: string,
): { pages: ScorePage[]; svgs: string[] } | { error: string } {
  const pages: ScorePage[] = [];
  const svgs: string[] = [];
  for (let n = 1; n <= pageCount; n++) {
    const svg = tk.renderToSVG(n);
    const size = svgSize(svg);
    if (!size) return { error: `Verovio produced no usable image for page ${n}.` };
    if (looksActive(svg)) return { error: 'The engraved image contained active content and was discarded.' };
    pages.push({ file: `${prefix}${n}.svg`, ...size });
    svgs.push(svg);
  }
  return { pages, svgs };
}

async function renderOne(tk: VerovioToolkit, xml: string, outDir: string, meta: PdfMeta): Promise<ScoreRendering> {
  tk.setOptions(VEROVIO_OPTIONS);
  tk.getLog(); // drop messages of the previous score
  if (!xml.includes('<score-partwise') && !xml.includes('<score-timewise')) {
    return { status: 'failed', reason: 'The file is not MusicXML (no score-partwise or score-timewise element).' };
  }
  if (!/<note[\s>]/.test(xml)) return { status: 'failed', reason: 'The file has no notes to engrave.' };
  const loaded = tk.loadData(xml);
  // Verovio reads damaged files leniently and engraves empty staves; its error log says so.
  const errors = tk
    .getLog()
    .split('\n')
    .filter((line) => line.startsWith('[Error]'))
    .map((line) => line.replace(/^\[Error\]\s*/, '').trim());
  if (!loaded || errors.length > 0) {
    return {
      status: 'failed',
      reason: `Verovio could not read this MusicXML file${errors.length > 0 ? ` (${errors.slice(0, 2).join('; ')})` : ''}.`,
    };
  }
  const pageCount = tk.getPageCount();
  if (pageCount < 1) return { status: 'failed', reason: 'Verovio found no page to engrave in this file.' };
  const wide = renderPages(tk, pageCount, 'page-');
  if ('error' in wide) return { status: 'failed', reason: wide.error };
  let midi: string | null = null;
  let midiBytes: Buffer | null = null;
  try {
    const b64 = tk.renderToMIDI();
    if (b64) {
      midiBytes = Buffer.from(b64, 'base64');
      // "MThd": a Standard MIDI File; anything else is not offered.
      if (midiBytes.subarray(0, 4).toString('latin1') === 'MThd') midi = 'score.mid';
    }
  } catch {
    midi = null;
  }
  // The printable PDF: exactly the wide pages, one PDF page each.
  let pdf: string | null = null;
  let pdfBytes: Buffer | null = null;
  try {
    pdfBytes = (await svgPagesToPdf(wide.svgs, meta)).bytes;
    pdf = 'score.pdf';
  } catch {
    pdf = null;
  }
  // The phone layout, engraved again at NARROW_PAGE_PX with the same staff size.
  tk.setOptions(NARROW_OPTIONS);
  tk.redoLayout();
  const narrow = renderPages(tk, tk.getPageCount(), 'narrow-page-');
  const narrowPages = 'error' in narrow ? [] : narrow.pages;
  mkdirSync(outDir, { recursive: true });
  wide.pages.forEach((p, i) => writeFileSync(path.join(outDir, p.file), wide.svgs[i]!));
  if (!('error' in narrow)) narrow.pages.forEach((p, i) => writeFileSync(path.join(outDir, p.file), narrow.svgs[i]!));
  if (midi && midiBytes) writeFileSync(path.join(outDir, midi), midiBytes);
  if (pdf && pdfBytes) writeFileSync(path.join(outDir, pdf), pdfBytes);
  return { status: 'rendered', pageCount, pages: wide.pages, midi, pdf, narrowPages };
}
