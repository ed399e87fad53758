/**
 * The text of an XML document's bytes, in whatever encoding XML allows (XML 1.0, Appendix F):
 * UTF-8 with or without a byte-order mark, UTF-16 little- or big-endian (Sibelius writes UTF-16
 * with a BOM), or the encoding its XML declaration names (ISO-8859-1, windows-1252 ...). The
 * text handed on has no BOM and a declaration that says UTF-8, because the checks and Verovio
 * read a JavaScript string, not the original bytes, and must not be told another encoding. Pure;
 * used for MusicXML files and the container of an .mxl (src/domain/score-files.ts, mxl.ts).
 */

export class ScoreEncodingError extends Error {}

/** How far into the file the XML declaration is looked for (it must be first; a BOM may precede it). */
const DECLARATION_WINDOW = 512;

/** The encoding of an XML document's bytes: a BOM, else the UTF-16 form of "<?", else the declaration's, else UTF-8. */
export function xmlEncodingOf(bytes: Uint8Array): { encoding: string; bomLength: number } {
  const b = bytes;
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { encoding: 'utf-8', bomLength: 3 };
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return { encoding: 'utf-16le', bomLength: 2 };
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return { encoding: 'utf-16be', bomLength: 2 };
  // UTF-16 without a BOM (XML 1.0 Appendix F): the first "<" and the next character interleaved with zero bytes.
  if (b.length >= 4 && b[0] === 0x00 && b[1] === 0x3c && b[2] === 0x00) return { encoding: 'utf-16be', bomLength: 0 };
  if (b.length >= 4 && b[0] === 0x3c && b[1] === 0x00 && b[3] === 0x00) return { encoding: 'utf-16le', bomLength: 0 };
  // An ASCII-compatible encoding: the declaration, read as Latin-1 (its own characters are ASCII), names it.
  const head = latin1(b.subarray(0, DECLARATION_WINDOW));
  const declared = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*(["'])([A-Za-z][A-Za-z0-9._-]{0,39})\1/.exec(head)?.[2];
  return { encoding: declared ? declared.toLowerCase() : 'utf-8', bomLength: 0 };
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (const byte of bytes) s += String.fromCharCode(byte);
  return s;
}

/**
 * The text of an uncompressed MusicXML file in whatever encoding it declares; throws
 * ScoreEncodingError naming an encoding this runtime cannot read. A byte that is not valid in the
 * encoding becomes U+FFFD, as Node's own UTF-8 reading always did: real files from old tools
 * carry the odd stray byte in a credit line, and refusing the whole score for it helps nobody.
 */
export function decodeMusicXml(bytes: Uint8Array): string {
  const { encoding, bomLength } = xmlEncodingOf(bytes);
  let decoder: TextDecoder;
  try {
    // UTF-16 declared in a file with no BOM and no zero bytes is the declaration's mistake: read it as it is written.
    decoder = new TextDecoder(/^utf-?16$/.test(encoding) && bomLength === 0 ? 'utf-8' : encoding, {
      ignoreBOM: true,
    });
  } catch {
    throw new ScoreEncodingError(`The MusicXML file declares the encoding "${encoding}", which cannot be read`);
  }
  return withUtf8Declaration(decoder.decode(bytes.subarray(bomLength)));
}

/** The text with a declaration that no longer names another encoding (and no BOM). */
function withUtf8Declaration(text: string): string {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return t.replace(/^(\s*<\?xml\b[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2/, '$1$2UTF-8$2');
}
