/**
 * The one MIME table of the archive: `mime-db` (through `mime-types`, which resolves an extension
 * claimed by several types the same way every time). The front server types files with
 * `contentTypeFor`, and the generated nginx.conf lists the same table (`nginxTypesBlock`), so the
 * two can never disagree about a file (they once carried two hand-written tables that did).
 *
 * Types that someone declared (a contributor's or archivist's `mediaType`/`contentType`) are
 * never trusted for inline display: `safeDeclaredType` passes only inert types (audio, video,
 * raster images, PDF, zip, JSON, plain text, MusicXML) and turns everything else, HTML, SVG, XML
 * and scripts included, into `application/octet-stream`. Those files are also sent with
 * `Content-Disposition: attachment` and `X-Content-Type-Options: nosniff`.
 */
import mime from 'mime-types';

/** Extensions the archive serves that mime-db does not know (Pagefind's index files). */
const EXTRA_OCTET_STREAM = ['pagefind', 'pf_filter', 'pf_fragment', 'pf_index', 'pf_meta'];

/** `text/*` answers say their charset; every text file the archive writes is UTF-8. */
function withCharset(type: string): string {
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}

/** The Content-Type of a file, from its extension (application/octet-stream when unknown). */
export function contentTypeFor(file: string): string {
  const type = mime.lookup(file);
  return type === false ? 'application/octet-stream' : withCharset(type);
}

/** Extension -> type, exactly as `contentTypeFor` resolves it, grouped by type (sorted, stable). */
export function mimeTable(): Array<{ type: string; extensions: string[] }> {
  const byType = new Map<string, string[]>();
  for (const [ext, type] of Object.entries(mime.types)) {
    if (!/^[a-z0-9][a-z0-9._+-]*$/i.test(ext)) continue; // nginx cannot quote odd names; none are ours
    const list = byType.get(type) ?? [];
    list.push(ext);
    byType.set(type, list);
  }
  return [...byType.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, extensions]) => ({ type, extensions: extensions.sort() }));
}

/**
 * The nginx `types { }` block and charset lines of the same table (indented for a server or
 * location block). `storedFiles` keeps only what `storedFileType` serves as typed, for the
 * location of files stored with a work; everything else there falls to application/octet-stream.
 */
export function nginxTypesBlock(indent = '    ', options: { storedFiles?: boolean } = {}): string {
  const table = mimeTable()
    .map(({ type, extensions }) => ({
      type,
      extensions: options.storedFiles
        ? extensions.filter((e) => storedFileType(`f.${e}`) !== 'application/octet-stream')
        : extensions,
    }))
    .filter((t) => t.extensions.length > 0);
  const lines = table.map(({ type, extensions }) => `${indent}    ${type} ${extensions.join(' ')};`);
  if (!options.storedFiles) lines.push(`${indent}    application/octet-stream ${EXTRA_OCTET_STREAM.join(' ')};`);
  // text/html is always in nginx's charset_types (listing it again is a warning).
  const textTypes = table.map((t) => t.type).filter((t) => t.startsWith('text/') && t !== 'text/html');
  return [
    `${indent}charset utf-8;`,
    `${indent}charset_types ${textTypes.length > 0 ? textTypes.join(' ') : 'text/plain'};`,
    // mime-db has about 1,200 extensions; nginx's default hash (1024) would warn at every start.
    `${indent}types_hash_max_size 4096;`,
    `${indent}types {`,
    ...lines,
    `${indent}}`,
    `${indent}default_type application/octet-stream;`,
  ].join('\n');
}

/** Declared types served as declared; a `*` entry admits the whole top-level type. */
const INERT_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'application/pdf',
  'application/zip',
  'application/json',
  'application/octet-stream',
  'application/vnd.recordare.musicxml',
  'application/vnd.recordare.musicxml+xml',
  'text/plain',
  'text/csv',
  'text/markdown',
]);

/**
 * The type to serve a file with whose type someone declared: the declared essence (lower-case,
 * parameters dropped) when it is inert, else `application/octet-stream`. Never HTML, SVG, XML or
 * script, whatever was declared. MusicXML is XML, but it is only ever sent as an attachment.
 */
export function safeDeclaredType(declared: string | null | undefined): string {
  const essence = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  const m = /^([a-z0-9][a-z0-9!#$&^_.+-]{0,126})\/([a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/.exec(essence);
  if (!m) return 'application/octet-stream';
  if (m[1] === 'audio' || m[1] === 'video') {
    // An audio/video type is inert unless it claims to be XML (e.g. a made-up audio/x+xml).
    return /xml|html|script/.test(m[2]!) ? 'application/octet-stream' : essence;
  }
  return INERT_TYPES.has(essence)
    ? essence.startsWith('text/')
      ? withCharset(essence)
      : essence
    : 'application/octet-stream';
}

/**
 * Files stored with a work (`/works/{slug}/files/{file}`) come from contributors through review:
 * typed by extension, but a type that would render actively (HTML, SVG, XML, script) is served
 * as application/octet-stream, so a browser downloads it instead of running it.
 */
export function storedFileType(file: string): string {
  const type = contentTypeFor(file);
  return safeDeclaredType(type) === 'application/octet-stream' && !type.startsWith('application/octet-stream')
    ? 'application/octet-stream'
    : type;
}
