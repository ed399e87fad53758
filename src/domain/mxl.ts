/**
 * Compressed MusicXML (.mxl): a zip whose META-INF/container.xml names the score's root file
 * (MusicXML 4.0, "Compressed MusicXML files"). This reads the root file's text so the .mxl goes
 * through exactly the same checks and engraving as a .musicxml file. Bounded: at most
 * MAX_ENTRIES entries are looked at and no entry larger than MAX_XML_BYTES (declared or actual)
 * is inflated, so a zip bomb is refused instead of filling memory.
 */
import { unzipSync } from 'fflate';

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
  const named = container
    ? /<rootfile\b[^>]*\bfull-path\s*=\s*"([^"]+)"/.exec(new TextDecoder().decode(container))?.[1]
    : undefined;
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
  return new TextDecoder().decode(data);
}
