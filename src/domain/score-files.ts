/**
 * What a score file is, once for every tool: the file names the build, the engraver
 * (`npm run engrave`), review's technical checks, the desk's preview and the importer accept, and
 * how their bytes become MusicXML text (any encoding XML allows: src/domain/xml-text.ts; a
 * compressed `.mxl` through its container's root file: src/domain/mxl.ts). Pure.
 */
import { musicXmlFromMxl } from './mxl.ts';
import { decodeMusicXml } from './xml-text.ts';

export { decodeMusicXml, ScoreEncodingError } from './xml-text.ts';

/** The kinds of score file (asset kinds of the content model). */
export type ScoreKind = 'musicxml' | 'mxl';

/** File name endings of score files, lower case, with the kind each is. */
export const SCORE_FILE_EXTENSIONS: ReadonlyArray<{ ext: string; kind: ScoreKind; mediaType: string }> = [
  { ext: '.musicxml', kind: 'musicxml', mediaType: 'application/vnd.recordare.musicxml+xml' },
  { ext: '.xml', kind: 'musicxml', mediaType: 'application/vnd.recordare.musicxml+xml' },
  { ext: '.mxl', kind: 'mxl', mediaType: 'application/vnd.recordare.musicxml' },
];

/** The kind of a score file by its name ("song.XML" -> musicxml), or null when the name is no score file's. */
export function scoreKindOfName(name: string): ScoreKind | null {
  const lower = name.toLowerCase();
  return SCORE_FILE_EXTENSIONS.find((e) => lower.endsWith(e.ext))?.kind ?? null;
}

/** Whether a file name is a score file's (`.musicxml`, `.xml`, `.mxl`, any case). */
export function isScoreFileName(name: string): boolean {
  return scoreKindOfName(name) !== null;
}

/** The media type of a score file by its name, or null. */
export function scoreMediaTypeOfName(name: string): string | null {
  const lower = name.toLowerCase();
  return SCORE_FILE_EXTENSIONS.find((e) => lower.endsWith(e.ext))?.mediaType ?? null;
}

/**
 * A score file's MusicXML text: unpacked from a zip (an .mxl, or any file that starts like one),
 * else decoded. Throws MxlError or ScoreEncodingError with a one-line reason.
 */
export function musicXmlText(bytes: Uint8Array, compressed = false): string {
  const zip = bytes.length >= 2 && bytes[0] === 0x50 && bytes[1] === 0x4b;
  return compressed || zip ? musicXmlFromMxl(bytes) : decodeMusicXml(bytes);
}
