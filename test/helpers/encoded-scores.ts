/**
 * Small MusicXML scores written at test time in every encoding and shape a real folder of scores
 * holds (the project's own text, so tests may ship it): UTF-8 with and without a byte-order mark,
 * UTF-16 little- and big-endian with a BOM (as Sibelius writes), ISO-8859-1 named in the XML
 * declaration, and compressed .mxl whose container names a root file in a sub-folder (one of them
 * UTF-16 inside). Each has its own title and creator with letters outside ASCII, so a test can
 * tell that the right text came out. The composers and poets are made up (test data, never facts
 * about real people).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';

export interface ScoreText {
  workTitle: string;
  movementTitle?: string;
  movementNumber?: string;
  composer?: string;
  lyricist?: string;
  rights?: string;
  /** The encoding named in the declaration (default UTF-8). */
  declared?: string;
  /** A different pitch makes a different file (digest) of the same shape. */
  step?: 'C' | 'D' | 'E' | 'F' | 'G' | 'A' | 'B';
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A two-bar score for voice (or any one part), with the header facts given. */
export function scoreXml(t: ScoreText): string {
  const step = t.step ?? 'C';
  const note = `<note><pitch><step>${step}</step><octave>5</octave></pitch><duration>4</duration><voice>1</voice><type>whole</type></note>`;
  return [
    `<?xml version="1.0" encoding="${t.declared ?? 'UTF-8'}"?>`,
    '<!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 3.1 Partwise//EN" "http://www.musicxml.org/dtds/partwise.dtd">',
    '<score-partwise version="3.1">',
    `  <work><work-title>${esc(t.workTitle)}</work-title></work>`,
    t.movementNumber ? `  <movement-number>${esc(t.movementNumber)}</movement-number>` : '',
    t.movementTitle ? `  <movement-title>${esc(t.movementTitle)}</movement-title>` : '',
    '  <identification>',
    t.composer ? `    <creator type="composer">${esc(t.composer)}</creator>` : '',
    t.lyricist ? `    <creator type="lyricist">${esc(t.lyricist)}</creator>` : '',
    t.rights ? `    <rights>${esc(t.rights)}</rights>` : '',
    '  </identification>',
    '  <part-list><score-part id="P1"><part-name>Voice</part-name></score-part></part-list>',
    '  <part id="P1">',
    `    <measure number="1"><attributes><divisions>1</divisions><key><fifths>0</fifths></key><time><beats>4</beats><beat-type>4</beat-type></time><clef><sign>G</sign><line>2</line></clef></attributes>${note}</measure>`,
    `    <measure number="2">${note}</measure>`,
    '  </part>',
    '</score-partwise>',
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

export type Encoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'iso-8859-1';

/** The text's bytes in an encoding (UTF-16 with its byte-order mark). */
export function encode(text: string, encoding: Encoding): Uint8Array {
  if (encoding === 'utf-8') return strToU8(text);
  if (encoding === 'utf-8-bom') return new Uint8Array([0xef, 0xbb, 0xbf, ...strToU8(text)]);
  if (encoding === 'iso-8859-1') {
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c > 0xff) throw new Error(`"${text[i]}" has no ISO-8859-1 byte`);
      out[i] = c;
    }
    return out;
  }
  const out = new Uint8Array(2 + text.length * 2);
  const le = encoding === 'utf-16le';
  out[0] = le ? 0xff : 0xfe;
  out[1] = le ? 0xfe : 0xff;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[2 + i * 2] = le ? c & 0xff : c >> 8;
    out[3 + i * 2] = le ? c >> 8 : c & 0xff;
  }
  return out;
}

/** A score as bytes in an encoding; the declaration names the encoding unless said otherwise. */
export function encodedScore(t: ScoreText, encoding: Encoding): Uint8Array {
  const declared =
    t.declared ?? (encoding.startsWith('utf-16') ? 'UTF-16' : encoding === 'iso-8859-1' ? 'ISO-8859-1' : 'UTF-8');
  return encode(scoreXml({ ...t, declared }), encoding);
}

/** A compressed MusicXML file: the container names `root` (in a sub-folder), which holds `score`; a PDF rootfile follows it. */
export function mxlOf(score: Uint8Array, root = 'music/score.xml'): Uint8Array {
  const container = `<?xml version="1.0" encoding="UTF-8"?>
<container>
  <rootfiles>
    <rootfile full-path='${root}' media-type="application/vnd.recordare.musicxml+xml"/>
    <rootfile full-path="music/score.pdf" media-type="application/pdf"/>
  </rootfiles>
</container>`;
  return zipSync({
    mimetype: strToU8('application/vnd.recordare.musicxml'),
    'META-INF/container.xml': strToU8(container),
    // A decoy MusicXML file listed first in the archive: only the container's root file is the score.
    'aaa-decoy.xml': strToU8('<score-partwise version="3.1"></score-partwise>'),
    [root]: score,
    'music/score.pdf': strToU8('%PDF-1.4 not really'),
  });
}

/** One file of the generated folder: where it goes, its bytes, and the facts written in it. */
export interface GeneratedScore {
  rel: string;
  bytes: Uint8Array;
  text: ScoreText;
  encoding: Encoding;
}

/** The generated scores: each encoding and shape once, titles and creators with letters outside ASCII. */
export function encodedScores(): GeneratedScore[] {
  const s = (rel: string, encoding: Encoding, text: ScoreText, compressed = false): GeneratedScore => ({
    rel,
    bytes: compressed ? mxlOf(encodedScore(text, encoding)) : encodedScore(text, encoding),
    text,
    encoding,
  });
  return [
    s('songs/plain-utf8.musicxml', 'utf-8', {
      workTitle: 'Frühlingsglaube',
      composer: 'Ágnes Próba',
      lyricist: 'Jürgen Prüfung',
      step: 'C',
    }),
    s('songs/bom-utf8.xml', 'utf-8-bom', {
      workTitle: 'Die Blümlein sprießen',
      composer: 'Clémence Épreuve',
      step: 'D',
    }),
    s('sibelius/utf16le.xml', 'utf-16le', {
      workTitle: 'Ævintýri',
      composer: 'Þóra Prófun',
      rights: 'Public domain',
      step: 'E',
    }),
    s('sibelius/deeper/utf16be.xml', 'utf-16be', {
      workTitle: 'Sørgmarsj',
      composer: 'Søren Prøve',
      step: 'F',
    }),
    s('finale/latin1.xml', 'iso-8859-1', { workTitle: 'Chanson à boire', composer: 'Zoë Essai', step: 'G' }),
    s(
      'compressed/container.mxl',
      'utf-8',
      { workTitle: 'Œuvre pour voix', composer: 'Mélanie Essai', step: 'A' },
      true,
    ),
    s(
      'compressed/utf16-inside.mxl',
      'utf-16le',
      { workTitle: 'Þorraþræll', composer: 'Páll Prófari', step: 'B' },
      true,
    ),
  ];
}

/** Write the generated scores under `dir`; answers them. */
export function writeEncodedScores(dir: string): GeneratedScore[] {
  const scores = encodedScores();
  for (const g of scores) {
    mkdirSync(path.dirname(path.join(dir, g.rel)), { recursive: true });
    writeFileSync(path.join(dir, g.rel), g.bytes);
  }
  return scores;
}
