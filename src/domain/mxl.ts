/**
 * Compressed MusicXML (.mxl): a zip whose META-INF/container.xml names the score's root file
 * (MusicXML 4.0, "Compressed MusicXML files"). This reads the root file's text so the .mxl goes
 * through exactly the same checks and engraving as a .musicxml file. Bounded (src/domain/zip-read.ts):
 * an archive of more than MAX_ENTRIES entries is refused unread, and an entry is inflated with a
 * running count of the bytes it writes, stopped as soon as it passes MAX_XML_BYTES whatever its
 * header declares, so a zip bomb (honest or lying about its size) is refused in milliseconds.
 */
import { readZipEntry, zipDirectory, ZipReadError, type ZipEntry } from './zip-read.ts';
import { decodeMusicXml, ScoreEncodingError } from './xml-text.ts';

export const MAX_XML_BYTES = 20 * 1024 * 1024;
const MAX_ENTRIES = 1000;

export class MxlError extends Error {}

/** The MusicXML text inside an .mxl file; throws MxlError with a one-line reason. */
export function musicXmlFromMxl(bytes: Uint8Array): string {
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b)
    throw new MxlError('Not a compressed MusicXML file: it is not a zip archive');
  let entries: ZipEntry[];
  try {
    entries = zipDirectory(bytes, MAX_ENTRIES);
  } catch (err) {
    throw new MxlError(
      err instanceof ZipReadError && err.reason === 'entries'
        ? `The .mxl archive is refused: ${err.message}`
        : `The .mxl archive cannot be read: ${(err as Error).message}`,
    );
  }
  // Only the container and the one score are inflated, each with a running cap on what it writes.
  const read = (entry: ZipEntry): Uint8Array => {
    try {
      return readZipEntry(bytes, entry, MAX_XML_BYTES);
    } catch (err) {
      if (err instanceof ZipReadError && err.reason === 'bytes')
        throw new MxlError(`The .mxl archive is refused: ${err.message}`);
      throw new MxlError(`The .mxl archive cannot be read: ${(err as Error).message}`);
    }
  };
  const containerEntry = entries.find((e) => e.name === 'META-INF/container.xml');
  const container = containerEntry ? read(containerEntry) : undefined;
  const named = container ? rootfileOf(container) : undefined;
  const chosen = named
    ? entries.find((e) => e.name === named)
    : entries
        .filter((e) => !e.name.startsWith('META-INF/') && /\.(xml|musicxml)$/i.test(e.name))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0];
  if (!chosen)
    throw new MxlError(
      named
        ? `The .mxl archive names ${named} as its score, but has no such file`
        : 'The .mxl archive holds no MusicXML file',
    );
  return scoreText(read(chosen));
}

/**
 * The score's path in the archive as META-INF/container.xml names it: the first `<rootfile>`
 * whose media type is MusicXML (or unstated; MusicXML 4.0 puts the score first, and a PDF or
 * image may follow it). Either quote, any encoding the container declares. Undefined when none.
 */
export function rootfileOf(container: Uint8Array): string | undefined {
  let text: string;
  try {
    text = decodeMusicXml(container);
  } catch {
    return undefined;
  }
  for (const m of text.slice(0, 64 * 1024).matchAll(/<rootfile\b([^>]*)>/g)) {
    const attrs = m[1]!;
    const path = /\bfull-path\s*=\s*(["'])([^"']+)\1/.exec(attrs)?.[2];
    const type = /\bmedia-type\s*=\s*(["'])([^"']*)\1/.exec(attrs)?.[2];
    if (path && (type === undefined || /musicxml|\bxml\b/i.test(type))) return path;
  }
  return undefined;
}

/** The root file's bytes as MusicXML text, in the encoding it declares (src/domain/xml-text.ts). */
function scoreText(data: Uint8Array): string {
  try {
    return decodeMusicXml(data);
  } catch (err) {
    throw new MxlError(`The score in the .mxl archive cannot be read: ${(err as ScoreEncodingError).message}`);
  }
}
