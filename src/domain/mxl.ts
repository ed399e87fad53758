/**
 * Compressed MusicXML (.mxl): a zip whose META-INF/container.xml names the score's root file
 * (MusicXML 4.0, "Compressed MusicXML files"). This reads the root file's text so the .mxl goes
 * through exactly the same checks and engraving as a .musicxml file. Bounded: at most
 * MAX_ENTRIES entries are looked at and no entry larger than MAX_XML_BYTES (declared or actual)
 * is inflated, so a zip bomb is refused instead of filling memory.
 */
import { unzipSync } from 'fflate';
import { decodeMusicXml, ScoreEncodingError } from './xml-text.ts';

export const MAX_XML_BYTES = 20 * 1024 * 1024;
const MAX_ENTRIES = 1000;

export class MxlError extends Error {}

/** The MusicXML text inside an .mxl file; throws MxlError with a one-line reason. */
export function musicXmlFromMxl(bytes: Uint8Array): string {
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b)
    throw new MxlError('Not a compressed MusicXML file: it is not a zip archive');
  let seen = 0;
  let tooLarge: string | null = null;
  const pick = (wanted: (name: string) => boolean) => {
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(bytes, {
        filter: (f) => {
          if (++seen > MAX_ENTRIES) return false;
          if (!wanted(f.name)) return false;
          if (f.originalSize > MAX_XML_BYTES) {
            tooLarge = f.name;
            return false;
          }
          return true;
        },
      });
    } catch (err) {
      throw new MxlError(`The .mxl archive cannot be read: ${(err as Error).message}`);
    }
    return files;
  };
  const container = pick((n) => n === 'META-INF/container.xml')['META-INF/container.xml'];
  const named = container ? rootfileOf(container) : undefined;
  seen = 0;
  const files = pick((n) => (named ? n === named : !n.startsWith('META-INF/') && /\.(xml|musicxml)$/i.test(n)));
  if (tooLarge)
    throw new MxlError(
      `The score in the .mxl archive (${tooLarge}) is larger than ${MAX_XML_BYTES} bytes uncompressed`,
    );
  const name = named ?? Object.keys(files).sort()[0];
  const data = name ? files[name] : undefined;
  if (!data)
    throw new MxlError(
      named
        ? `The .mxl archive names ${named} as its score, but has no such file`
        : 'The .mxl archive holds no MusicXML file',
    );
  if (data.length > MAX_XML_BYTES)
    throw new MxlError(`The score in the .mxl archive is larger than ${MAX_XML_BYTES} bytes uncompressed`);
  return scoreText(data);
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
