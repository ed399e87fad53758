/**
 * Engraving one MusicXML score: the wide pages (SVG), the phone pages, the MIDI rendition and the
 * printable PDF, as named files in memory. Runs inside an engraving worker
 * (src/lib/site/engrave-worker.ts) with that worker's own Verovio instance; the caller writes the
 * files and may keep them in the render cache (src/lib/site/render-cache.ts). The output depends
 * only on the score's bytes, Verovio's version, the options below, ENGRAVE_CODE_VERSION and the
 * PDF's metadata, which is exactly what the render cache key holds.
 */
import type { VerovioToolkit } from 'verovio/esm';
import { NARROW_PAGE_PX, type ScorePage, type ScoreRendering } from './scores.ts';
import { svgPagesToPdf, type PdfMeta } from './score-pdf.ts';
import { VEROVIO_OPTIONS } from './verovio-options.ts';

/**
 * Bump when this module (or score-pdf.ts) changes what it writes for the same input: every
 * render cache entry made by an older version then misses and the score is engraved again.
 */
export const ENGRAVE_CODE_VERSION = 2;

export { VEROVIO_OPTIONS };

/**
 * The phone layout: a page NARROW_PAGE_PX wide at scale 36, a 25.9 px staff (the wide pages have
 * 28.8 px at scale 40). Slightly smaller than the wide pages so that two bars of a dense score
 * still fit a system without Verovio squeezing them; still above MIN_STAFF_PX.
 */
const NARROW_SCALE = 36;
export const NARROW_OPTIONS = {
  ...VEROVIO_OPTIONS,
  scale: NARROW_SCALE,
  pageWidth: Math.round((NARROW_PAGE_PX * 100) / NARROW_SCALE),
};

/** The PDF's metadata as plain data (it crosses a thread boundary): the time as ISO 8601 UTC. */
export interface EngraveMeta {
  title: string;
  author: string;
  subject: string;
  /** Catalog numbers and genre, for the PDF's Keywords (absent: none). */
  keywords?: string;
  createdAtUtc: string;
}

export interface EngravedFile {
  name: string;
  bytes: Uint8Array;
}

/** A rendered or failed score and, when rendered, the files named by its pages, MIDI and PDF. */
export interface EngraveOutput {
  rendering: Extract<ScoreRendering, { status: 'rendered' | 'failed' }>;
  files: EngravedFile[];
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

function renderPages(
  tk: VerovioToolkit,
  pageCount: number,
  prefix: string,
): { pages: ScorePage[]; svgs: string[] } | { error: string } {
  const pages: ScorePage[] = [];
  const svgs: string[] = [];
  // Every page: the page count is Verovio's own for a file it loaded, so this is bounded by the layout.
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

/** The errors Verovio logged since the log was last read (loading a score logs its damage there). */
function loadErrors(tk: VerovioToolkit): string[] {
  return tk
    .getLog()
    .split('\n')
    .filter((line) => line.startsWith('[Error]'))
    .map((line) => line.replace(/^\[Error\]\s*/, '').trim());
}

const failed = (reason: string): EngraveOutput => ({ rendering: { status: 'failed', reason }, files: [] });

/** Engrave one score with `tk` (which this call leaves loaded with it). */
export async function engraveScore(tk: VerovioToolkit, xml: string, meta: EngraveMeta | null): Promise<EngraveOutput> {
  tk.setOptions(VEROVIO_OPTIONS);
  tk.getLog(); // drop messages of the previous score
  if (!xml.includes('<score-partwise') && !xml.includes('<score-timewise')) {
    return failed('The file is not MusicXML (no score-partwise or score-timewise element).');
  }
  if (!/<note[\s>]/.test(xml)) return failed('The file has no notes to engrave.');
  const loaded = tk.loadData(xml);
  // Verovio reads damaged files leniently and engraves empty staves; its error log says so.
  const errors = loadErrors(tk);
  if (!loaded || errors.length > 0) {
    return failed(
      `Verovio could not read this MusicXML file${errors.length > 0 ? ` (${errors.slice(0, 2).join('; ')})` : ''}.`,
    );
  }
  const pageCount = tk.getPageCount();
  if (pageCount < 1) return failed('Verovio found no page to engrave in this file.');
  const wide = renderPages(tk, pageCount, 'page-');
  if ('error' in wide) return failed(wide.error);
  const files: EngravedFile[] = [];
  let midi: string | null = null;
  try {
    const b64 = tk.renderToMIDI();
    if (b64) {
      const bytes = Buffer.from(b64, 'base64');
      // "MThd": a Standard MIDI File; anything else is not offered.
      if (bytes.subarray(0, 4).toString('latin1') === 'MThd') {
        midi = 'score.mid';
        files.push({ name: midi, bytes });
      }
    }
  } catch {
    midi = null;
  }
  // The printable PDF: exactly the wide pages, one PDF page each (not made without its metadata:
  // the engrave CLI on a corpus folder keeps only the engraving, a build adds the PDF).
  let pdf: string | null = null;
  if (meta) {
    const bytes = await makePdf(wide.svgs, meta);
    if (bytes) {
      files.push({ name: 'score.pdf', bytes });
      pdf = 'score.pdf';
    }
  }
  // The phone layout, engraved again at NARROW_PAGE_PX with the same staff size.
  tk.setOptions(NARROW_OPTIONS);
  tk.redoLayout();
  const narrow = renderPages(tk, tk.getPageCount(), 'narrow-page-');
  const narrowPages = 'error' in narrow ? [] : narrow.pages;
  wide.pages.forEach((p, i) => files.push({ name: p.file, bytes: Buffer.from(wide.svgs[i]!, 'utf8') }));
  if (!('error' in narrow))
    narrow.pages.forEach((p, i) => files.push({ name: p.file, bytes: Buffer.from(narrow.svgs[i]!, 'utf8') }));
  return { rendering: { status: 'rendered', pageCount, pages: wide.pages, midi, pdf, narrowPages }, files };
}

/** The printable PDF of the wide pages, or null when the converter failed. */
export async function makePdf(svgs: readonly string[], meta: EngraveMeta): Promise<Uint8Array | null> {
  try {
    const pdfMeta: PdfMeta = { ...meta, createdAt: new Date(meta.createdAtUtc) };
    return (await svgPagesToPdf(svgs, pdfMeta)).bytes;
  } catch {
    return null;
  }
}

/** What the review checks learn from loading a score (no pages are drawn). */
export interface ScoreLoadResult {
  loaded: boolean;
  errors: string[];
  pages: number;
}

/** Load a score for the review checks (the layout the checks have always used). */
export function loadForCheck(tk: VerovioToolkit, xml: string): ScoreLoadResult {
  tk.setOptions({ pageWidth: 2100, pageHeight: 2970, scale: 40, adjustPageHeight: false });
  tk.getLog(); // drop messages of the previous file
  const loaded = tk.loadData(xml);
  const errors = loadErrors(tk);
  return { loaded: Boolean(loaded), errors, pages: loaded ? tk.getPageCount() : 0 };
}

/** The first page as SVG (the desk's score preview). Throws when Verovio cannot load the file. */
export function previewFirstPage(tk: VerovioToolkit, xml: string): { svg: string; pages: number } {
  tk.setOptions({ ...VEROVIO_OPTIONS });
  tk.getLog();
  if (!tk.loadData(xml)) throw new Error('Verovio could not load this MusicXML file');
  const pages = tk.getPageCount();
  if (pages < 1) throw new Error('Verovio found no page to engrave');
  return { svg: tk.renderToSVG(1), pages };
}
