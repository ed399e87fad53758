/**
 * Serves one immutable build folder (`dist/client` or a rebuild under ARCHIVE_DATA_DIR) with the
 * archive's URL mapping, exact content types, strong ETags, conditional GET and byte ranges.
 * Build folders never change after they are complete, so a file's ETag, once computed, holds
 * for the folder's life. Two caches, each bounded by bytes (ARCHIVE_STATIC_CACHE_MB and
 * ARCHIVE_STATIC_FACTS_MB, so memory follows the configuration and not the number of distinct
 * files asked for): file facts (path, size, ETag, type, header lines; least recently used out,
 * each counted at an estimate of its heap size, see factBytes) and the bytes of small files (the
 * oldest kept that was not asked for again out, see keep). A catalog larger than the caches still
 * answers every file: a miss reads the file once (open, fstat, one read), hashes it and answers
 * from those bytes (see fast-static.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { contentTypeFor, storedFileType } from '../http/media-types.ts';
import { chooseEncoding } from '../http/accept-encoding.ts';
import { IMMUTABLE_CACHE_CONTROL, STATIC_CACHE_CONTROL } from '../http/cache-policy.ts';
import { CODINGS, PRECOMPRESSED_FILE, type Coding } from '../../src/lib/site/precompress.ts';
import { SiteView } from '../../src/lib/site/layers.ts';

// One MIME table for the server and nginx.conf (mime-db, see api/http/media-types.ts).
export { contentTypeFor };

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
  /** The content coding of these bytes (a precompressed form of the file, see StaticFile.encodings). */
  contentEncoding?: Coding;
  /** The answer depends on Accept-Encoding: every answer for this path says `Vary: Accept-Encoding`. */
  vary?: boolean;
}

/** A file of the build folder: what send-file serves, plus its path inside the build. */
export type StaticFile = ServableFile & {
  /** Path inside the build folder, with forward slashes. */
  relPath: string;
  /** The fast path's header lines for this file, built on its first answer (api/site/fast-static.ts). */
  answerHeaders?: AnswerHeaders;
  /** Asked for since its bytes were last passed over for eviction (second chance, see keep). */
  recentlyUsed?: boolean;
  /**
   * The file's precompressed forms written by the build beside it (`<file>.br`, `<file>.gz`;
   * src/lib/site/precompress.ts), each with its own size and strong ETag; see selectEncoding.
   */
  encodings?: Partial<Record<Coding, StaticFile>>;
  /** The codings of `encodings`, in the server's order (br, gzip). */
  codings?: Coding[];
};

/**
 * The representation of `file` to answer a request with Accept-Encoding `header`: the file itself,
 * or one of its precompressed forms (api/http/accept-encoding.ts). Files without forms are
 * returned as they are, whatever the header says.
 */
export function selectEncoding(file: StaticFile, header: string | undefined): StaticFile {
  if (file.encodings === undefined || file.codings === undefined) return file;
  const chosen = chooseEncoding(header, file.codings);
  return chosen === 'identity' ? file : (file.encodings[chosen] ?? file);
}

/** Header lines of a static file's 200 and 304, as flat [name, value, ...] arrays for writeHead. */
export interface AnswerHeaders {
  h304: string[];
  h200: string[];
  /** The Content-Length the 200 lines carry. */
  length: number;
}

export type Resolution = { kind: 'file'; file: StaticFile } | { kind: 'redirect'; location: string } | { kind: 'none' };

/** Files up to this size are read whole (and may be kept in memory); larger ones are streamed. */
export const SMALL_FILE_MAX = 1024 * 1024;
/** Known files up to this size are read again on the request thread when their bytes left memory (see bytesOfSync). */
export const SYNC_READ_MAX = 256 * 1024;
/** Default bytes of small files kept in memory (ARCHIVE_STATIC_CACHE_MB; see keep for which go first). */
export const STATIC_CACHE_BYTES = 64 * 1024 * 1024;
/** Default heap the file facts may take (ARCHIVE_STATIC_FACTS_MB), counted with factBytes. */
export const STATIC_FACTS_BYTES = 32 * 1024 * 1024;

/**
 * What one known file's facts cost on V8's heap, estimated from its strings: the object and its
 * fields, two paths, the ETag, the two header arrays the fast path builds (mostly shared strings),
 * and the Map entry; a file with precompressed forms carries one more object per form. The
 * constant was measured and rounded up, so the budget holds as a bound rather than an average:
 * 40,000 generated record files answered through the fast path, with collections forced before
 * and after, took 977 bytes of heap each, and this counts 1,022.
 */
export function factBytes(file: StaticFile): number {
  const own = 720 + 2 * (file.relPath.length + file.absPath.length);
  if (file.encodings === undefined) return own;
  let forms = 0;
  for (const form of Object.values(file.encodings))
    if (form) forms += 720 + 2 * (form.relPath.length + form.absPath.length);
  return own + forms;
}

/** The caches' sizes and budgets, for /metrics and the memory tests. */
export interface StaticCacheStats {
  /** Bytes of small files held in memory, and their budget. */
  bodyBytes: number;
  bodyBudget: number;
  /** Estimated heap of the known files' facts (factBytes), and its budget. */
  factBytes: number;
  factBudget: number;
  files: number;
}

export function strongEtag(digest: Buffer): string {
  return `"${digest.toString('base64url').slice(0, 27)}"`;
}

export class StaticSite {
  /** The folder of the view's own files (a plain build's `client/`, a layer's delta). */
  readonly root: string;
  /** Where each path's file is (a layered build: its delta, its base, or deleted; src/lib/site/layers.ts). */
  private readonly view: SiteView;
  /** Known files by path inside the build, least recently used first (a hit is re-inserted). */
  private readonly cache = new Map<string, StaticFile>();
  private cachedBytes = 0;
  /** Sum of factBytes over `cache`. */
  private knownBytes = 0;
  /**
   * Files whose bytes are in memory, in the order they were kept. Eviction takes the oldest not
   * asked for since it was last passed over (second chance, as an OS page cache does): a hit costs
   * one flag, and eviction never walks files that hold no bytes.
   */
  private readonly withBytes = new Set<StaticFile>();
  private readonly memoryBudget: number;
  private readonly factBudget: number;

  /**
   * `memoryBudget`: bytes of small files kept in memory (0 keeps none: every answer reads its
   * file). `factBudget`: estimated heap of the known files' facts; at least one file is always
   * known (the one being answered).
   */
  constructor(root: string | SiteView, options: { memoryBudget?: number; factBudget?: number } = {}) {
    this.view = typeof root === 'string' ? SiteView.plain(root) : root;
    this.root = this.view.client;
    this.memoryBudget = options.memoryBudget ?? STATIC_CACHE_BYTES;
    this.factBudget = options.factBudget ?? STATIC_FACTS_BYTES;
  }

  stats(): StaticCacheStats {
    return {
      bodyBytes: this.cachedBytes,
      bodyBudget: this.memoryBudget,
      factBytes: this.knownBytes,
      factBudget: this.factBudget,
      files: this.cache.size,
    };
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
   * The hot path: a file already known (its ETag computed), found without touching the disk or
   * awaiting anything; its bytes are there when it is small and still in the memory cache.
   * Returns undefined when the slower `resolve` must decide.
   */
  peek(urlPath: string): StaticFile | undefined {
    if (urlPath.includes('%') || urlPath.includes('..')) return undefined;
    for (const rel of StaticSite.candidates(urlPath).files) {
      const hit = this.cache.get(rel);
      if (hit) {
        this.touch(rel, hit);
        hit.recentlyUsed = true;
        return hit;
      }
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

  /**
   * The bytes of a known small file, read on this thread (the file is immutable and was read
   * before, so it is almost always in the page cache: one open, fstat, read and close, a few
   * microseconds, instead of four trips through the thread pool). Kept if the budget allows.
   * Throws when the file is gone (a retired build).
   */
  bytesOfSync(file: StaticFile): Buffer {
    if (file.body) return file.body;
    const body = readFileSync(file.absPath);
    this.keep(file, body);
    return body;
  }

  /** The bytes of a small file: from memory, or read again (and kept if the budget allows). */
  async bytesOf(file: StaticFile): Promise<Buffer> {
    if (file.body) return file.body;
    const body = await fs.readFile(file.absPath);
    this.keep(file, body);
    return body;
  }

  private touch(rel: string, file: StaticFile): void {
    this.cache.delete(rel);
    this.cache.set(rel, file);
  }

  /**
   * Keep `body` in memory for `file` if it fits, dropping the bytes of the oldest kept files that
   * were not asked for since they were last passed over (each pass clears the flag, so this ends).
   */
  private keep(file: StaticFile, body: Buffer): void {
    if (file.body || body.length > this.memoryBudget) return;
    file.body = body;
    file.recentlyUsed = false;
    this.cachedBytes += body.length;
    this.withBytes.add(file);
    while (this.cachedBytes > this.memoryBudget) {
      const old = this.withBytes.values().next().value as StaticFile;
      if (old === file) break; // only the new file is left (it fits the budget by itself)
      this.withBytes.delete(old);
      if (old.recentlyUsed) {
        old.recentlyUsed = false;
        this.withBytes.add(old);
        continue;
      }
      this.dropBytes(old);
    }
  }

  private dropBytes(file: StaticFile): void {
    if (!file.body) return;
    this.cachedBytes -= file.body.length;
    file.body = undefined;
    this.withBytes.delete(file);
  }

  /** Add a file just read to the known files; returns the one to answer with. */
  private remember(file: StaticFile): StaticFile {
    const previous = this.cache.get(file.relPath);
    if (previous !== undefined) {
      // Two concurrent first requests for one file: the one found first stays, counted once.
      this.dropBytes(file);
      for (const form of Object.values(file.encodings ?? {})) this.dropBytes(form);
      return previous;
    }
    this.cache.set(file.relPath, file);
    this.knownBytes += factBytes(file);
    while (this.knownBytes > this.factBudget && this.cache.size > 1) {
      const [oldest, old] = this.cache.entries().next().value as [string, StaticFile];
      this.cache.delete(oldest);
      this.knownBytes -= factBytes(old);
      this.dropBytes(old);
      for (const form of Object.values(old.encodings ?? {})) this.dropBytes(form);
    }
    return file;
  }

  private async load(rel: string): Promise<StaticFile | null> {
    const hit = this.cache.get(rel);
    if (hit !== undefined) {
      this.touch(rel, hit);
      hit.recentlyUsed = true;
      return hit;
    }
    // As path.join did before layers: `a//b` is `a/b`; nothing outside the site.
    const normal = path.posix.normalize(rel);
    if (normal.startsWith('../') || normal === '..' || normal.startsWith('/') || normal === '.') return null;
    const absPath = this.view.locate(normal);
    if (absPath === null) return null; // deleted by a layer
    // Files stored with a work came from contributors: never typed as HTML, SVG, XML or script.
    const contentType = /^works\/[^/]+\/files\//.test(rel) ? storedFileType(rel) : contentTypeFor(rel);
    const file = await this.read(rel, absPath, contentType);
    if (file === null) return null;
    if (PRECOMPRESSED_FILE.test(rel)) {
      // The compressed forms share the file's type and cache policy; each has its own bytes and ETag.
      const encodings: Partial<Record<Coding, StaticFile>> = {};
      const codings: Coding[] = [];
      for (const { coding, suffix } of CODINGS) {
        const formPath = this.view.locate(`${normal}${suffix}`);
        if (formPath === null) continue;
        const form = await this.read(`${rel}${suffix}`, formPath, contentType);
        if (form === null) continue;
        form.contentEncoding = coding;
        form.vary = true;
        encodings[coding] = form;
        codings.push(coding);
      }
      if (codings.length > 0) {
        file.vary = true;
        file.encodings = encodings;
        file.codings = codings;
      }
    }
    return this.remember(file);
  }

  /** One file's facts (size, strong ETag) and, when small, its bytes (kept if the budget allows); null when it is not a file. */
  private async read(rel: string, absPath: string, contentType: string): Promise<StaticFile | null> {
    let handle;
    try {
      handle = await fs.open(absPath, 'r');
    } catch {
      return null; // not cached: a missing file costs one open, and the cache stays bounded
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return null;
      const file: StaticFile = {
        relPath: rel,
        answerHeaders: undefined,
        recentlyUsed: false,
        absPath,
        size: stat.size,
        etag: '',
        contentType,
        cacheControl: rel.startsWith('_astro/') ? IMMUTABLE_CACHE_CONTROL : STATIC_CACHE_CONTROL,
      };
      if (stat.size <= SMALL_FILE_MAX) {
        // One read of the whole file: its hash is the ETag, and the same bytes answer the request.
        // Its own allocation, not a slice of Node's shared 8 KiB pool: a kept small file would
        // otherwise hold a whole pool slab alive, so the cache's real size would exceed its count.
        const body = Buffer.allocUnsafeSlow(stat.size);
        let read = 0;
        while (read < stat.size) {
          const { bytesRead } = await handle.read(body, read, stat.size - read, read);
          if (bytesRead === 0) break;
          read += bytesRead;
        }
        const bytes = read === stat.size ? body : body.subarray(0, read);
        file.size = bytes.length;
        file.etag = strongEtag(createHash('sha256').update(bytes).digest());
        this.keep(file, bytes);
        // Callers that find the bytes gone (evicted at once) read them again through bytesOf.
        return file;
      }
      const hash = createHash('sha256');
      for await (const chunk of createReadStream(absPath, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
      file.etag = strongEtag(hash.digest());
      return file;
    } finally {
      await handle.close();
    }
  }
}
