/**
 * Serves one immutable build folder (`dist/client` or a rebuild under ARCHIVE_DATA_DIR) with the
 * archive's URL mapping, exact content types, strong ETags, conditional GET and byte ranges.
 * Build folders never change after they are complete, so each file is hashed once and small
 * files are kept in memory up to a budget.
 */
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.xml': 'application/xml',
  '.musicxml': 'application/vnd.recordare.musicxml+xml',
  '.mxl': 'application/vnd.recordare.musicxml',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.mid': 'audio/midi',
  '.midi': 'audio/midi',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.wasm': 'application/wasm',
  '.pf_meta': 'application/octet-stream',
};

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Anything api/http/send-file.ts can serve: a file on disk (or already in memory) with its headers. */
export interface ServableFile {
  absPath: string;
  size: number;
  /** Strong entity tag, quotes included. */
  etag: string;
  contentType: string;
  cacheControl: string;
  /** The bytes, when already in memory. */
  body?: Buffer;
  /** Suggested file name for Content-Disposition. */
  downloadName?: string;
}

/** A file of the build folder: what send-file serves, plus its path inside the build. */
export type StaticFile = ServableFile & {
  /** Path inside the build folder, with forward slashes. */
  relPath: string;
};

export type Resolution = { kind: 'file'; file: StaticFile } | { kind: 'redirect'; location: string } | { kind: 'none' };

const KEEP_IN_MEMORY_MAX_FILE = 1024 * 1024;
const MEMORY_BUDGET = 64 * 1024 * 1024;

export function strongEtag(digest: Buffer): string {
  return `"${digest.toString('base64url').slice(0, 27)}"`;
}

export class StaticSite {
  readonly root: string;
  private readonly cache = new Map<string, StaticFile | null>();
  private cachedBytes = 0;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** Map a URL path to candidate files, in the order the nginx config tries them. */
  static candidates(urlPath: string): { files: string[]; directoryRedirect?: string } {
    if (urlPath === '/api/v1' || urlPath === '/api/v1/') return { files: ['api/v1/index.json'] };
    // One static page shows any tracking code; it reads the code from its own URL.
    if (/^\/track\/[^/]+\/?$/.test(urlPath)) return { files: ['track/index.html'] };
    const rel = urlPath.replace(/^\/+/, '');
    if (urlPath.startsWith('/api/v1/')) {
      if (rel.endsWith('/')) return { files: [`${rel}index.json`] };
      return { files: [rel, `${rel}/index.json`] };
    }
    if (rel === '' || rel.endsWith('/')) return { files: [`${rel}index.html`] };
    return { files: [rel], directoryRedirect: `${rel}/index.html` };
  }

  /**
   * The hot path: a file already hashed and held in memory, found without touching the disk or
   * awaiting anything. Returns undefined when the slower `resolve` must decide.
   */
  peek(urlPath: string): StaticFile | undefined {
    if (urlPath.includes('%') || urlPath.includes('..')) return undefined;
    for (const rel of StaticSite.candidates(urlPath).files) {
      const hit = this.cache.get(rel);
      if (hit) return hit.body ? hit : undefined;
    }
    return undefined;
  }

  async resolve(urlPath: string): Promise<Resolution> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return { kind: 'none' };
    }
    if (decoded.includes('\0') || decoded.split('/').some((s) => s === '..' || s === '.')) return { kind: 'none' };
    const { files, directoryRedirect } = StaticSite.candidates(decoded);
    for (const rel of files) {
      const file = await this.load(rel);
      if (file) return { kind: 'file', file };
    }
    if (directoryRedirect && (await this.load(directoryRedirect))) return { kind: 'redirect', location: `${urlPath}/` };
    return { kind: 'none' };
  }

  private async load(rel: string): Promise<StaticFile | null> {
    const hit = this.cache.get(rel);
    if (hit !== undefined) return hit;
    const absPath = path.join(this.root, rel);
    if (!absPath.startsWith(this.root + path.sep)) return null;
    let stat;
    try {
      stat = await fs.stat(absPath);
    } catch {
      return null; // not cached: a missing file costs one stat, and the map stays bounded
    }
    if (!stat.isFile()) return null;
    const file: StaticFile = {
      relPath: rel,
      absPath,
      size: stat.size,
      etag: '',
      contentType: contentTypeFor(rel),
      cacheControl: rel.startsWith('_astro/') ? 'public, max-age=31536000, immutable' : 'public, max-age=60, stale-while-revalidate=300',
    };
    if (stat.size <= KEEP_IN_MEMORY_MAX_FILE) {
      const body = await fs.readFile(absPath);
      file.etag = strongEtag(createHash('sha256').update(body).digest());
      if (this.cachedBytes + body.length <= MEMORY_BUDGET) {
        file.body = body;
        this.cachedBytes += body.length;
      }
    } else {
      const hash = createHash('sha256');
      for await (const chunk of createReadStream(absPath)) hash.update(chunk as Buffer);
      file.etag = strongEtag(hash.digest());
    }
    this.cache.set(rel, file);
    return file;
  }
}

/** True when an If-None-Match header matches `etag` (weak comparison, as RFC 9110 13.1.2 asks). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

export type RangeResult = { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

/**
 * Parse a Range header for one range of `size` bytes. Several ranges, or an If-Range that no
 * longer matches, fall back to the full representation, which RFC 9110 allows.
 */
export function parseRange(header: string | undefined, size: number, ifRange: string | undefined, etag: string): RangeResult {
  if (!header) return { kind: 'full' };
  if (ifRange !== undefined && ifRange.trim() !== etag) return { kind: 'full' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'full' };
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return { kind: 'full' };
  }
  if (start >= size || size === 0) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}
