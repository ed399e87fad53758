/**
 * Hostile scores, built at test time (nothing multi-megabyte is committed): a billion laughs, an
 * external entity (XXE), an honest and a lying zip bomb, an archive of too many entries, a path
 * traversal inside an archive, a score of 20,000 measures and one of 200 parts, and text that
 * would be a link in Markdown. The set the hardening issue (58) names, shared by the unit tests
 * and the slow test that sends them all through a real server.
 */
import { deflateRawSync, constants as zlibConstants, crc32 } from 'node:zlib';

export interface ZipInput {
  name: string;
  /** The bytes as stored in the archive (already deflated when `method` is 8). */
  stored: Uint8Array;
  method: 0 | 8;
  /** The size the archive declares for the entry once inflated. */
  declaredSize: number;
  crc?: number;
}

/** A plain zip (no ZIP64) of the given entries, written as a zip tool would, sizes as declared. */
export function zipArchive(entries: ZipInput[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // names in UTF-8
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.crc ?? 0, 14);
    local.writeUInt32LE(e.stored.length, 18);
    local.writeUInt32LE(e.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt32LE(e.crc ?? 0, 16);
    central.writeUInt32LE(e.stored.length, 20);
    central.writeUInt32LE(e.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, Buffer.from(e.stored));
    centrals.push(central, name);
    offset += 30 + name.length + e.stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

/** An entry holding `text`, deflated honestly. */
export function deflatedEntry(name: string, text: string | Uint8Array): ZipInput {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text);
  return { name, stored: deflateRawSync(bytes), method: 8, declaredSize: bytes.length, crc: crc32(bytes) };
}

export const containerXml = (rootPath: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<container><rootfiles><rootfile full-path="${rootPath}" media-type="application/vnd.recordare.musicxml+xml"/></rootfiles></container>\n`;

/**
 * A raw deflate stream that inflates to `mebibytes` MiB of spaces: one mebibyte of spaces
 * deflated with a full flush (byte-aligned, its dictionary reset, so every copy is the same bytes),
 * repeated, then a final empty block. 2 GiB take about 2 MB.
 */
export function spacesDeflated(mebibytes: number): Uint8Array {
  const one = deflateRawSync(Buffer.alloc(1 << 20, 0x20), { finishFlush: zlibConstants.Z_FULL_FLUSH });
  const parts: Buffer[] = [];
  for (let i = 0; i < mebibytes; i++) parts.push(one);
  parts.push(Buffer.from([0x03, 0x00]));
  return new Uint8Array(Buffer.concat(parts));
}

const TWO_GIB_IN_MIB = 2048;

/** An .mxl whose score entry inflates to 2 GiB of spaces and says so (declared 2 GiB). */
export function honestZipBomb(): Uint8Array {
  return zipArchive([
    deflatedEntry('META-INF/container.xml', containerXml('score.xml')),
    { name: 'score.xml', stored: spacesDeflated(TWO_GIB_IN_MIB), method: 8, declaredSize: 2 ** 31 },
  ]);
}

/** An .mxl whose score entry declares 1,000 bytes and inflates to 2 GiB of spaces. */
export function lyingZipBomb(): Uint8Array {
  return zipArchive([
    deflatedEntry('META-INF/container.xml', containerXml('score.xml')),
    { name: 'score.xml', stored: spacesDeflated(TWO_GIB_IN_MIB), method: 8, declaredSize: 1000 },
  ]);
}

/** An .mxl of `count` tiny entries with its container and score last (past any entry cap). */
export function manyEntriesZip(count: number, score: string): Uint8Array {
  const entries: ZipInput[] = [];
  for (let i = 0; i < count; i++) entries.push(deflatedEntry(`filler/${i}.txt`, 'x'));
  entries.push(deflatedEntry('META-INF/container.xml', containerXml('score.xml')), deflatedEntry('score.xml', score));
  return zipArchive(entries);
}

/** An .mxl whose container names a score outside the archive's root (`../../…`). */
export function traversalMxl(score: string, escape = '../../../../tmp/pdma-traversal-score.xml'): Uint8Array {
  return zipArchive([deflatedEntry('META-INF/container.xml', containerXml(escape)), deflatedEntry(escape, score)]);
}

const HEAD = `<?xml version="1.0" encoding="UTF-8"?>`;

function partList(parts: number): string {
  let out = '<part-list>';
  for (let p = 1; p <= parts; p++) out += `<score-part id="P${p}"><part-name>Part ${p}</part-name></score-part>`;
  return `${out}</part-list>`;
}

function measures(count: number, first = true): string {
  const out: string[] = [];
  for (let m = 1; m <= count; m++)
    out.push(
      `<measure number="${m}">${m === 1 && first ? '<attributes><divisions>1</divisions><key><fifths>0</fifths></key><time><beats>4</beats><beat-type>4</beat-type></time><clef><sign>G</sign><line>2</line></clef></attributes>' : ''}<note><pitch><step>${'CDEFGAB'[m % 7]}</step><octave>4</octave></pitch><duration>4</duration><type>whole</type></note></measure>`,
    );
  return out.join('');
}

/** A plain score of `parts` parts of `measureCount` measures, one whole note each. */
export function plainScore(parts: number, measureCount: number, title = 'A generated score'): string {
  let body = '';
  for (let p = 1; p <= parts; p++) body += `<part id="P${p}">${measures(measureCount)}</part>`;
  return `${HEAD}\n<score-partwise version="4.0"><work><work-title>${title}</work-title></work>${partList(parts)}${body}</score-partwise>\n`;
}

/** 20,000 measures in one part (about 3 MB of MusicXML). */
export const twentyThousandMeasures = () => plainScore(1, 20_000, 'Twenty thousand measures');

/** 200 parts of 8 measures. */
export const twoHundredParts = () => plainScore(200, 8, 'Two hundred parts');

/** The billion laughs: ten levels of ten entities, expanded in the title. */
export function billionLaughs(): string {
  const defs = ['<!ENTITY lol "lol">'];
  for (let i = 1; i <= 9; i++)
    defs.push(`<!ENTITY lol${i} "${Array.from({ length: 10 }, () => `&lol${i === 1 ? '' : i - 1};`).join('')}">`);
  return plainScore(1, 4)
    .replace(HEAD, `${HEAD}\n<!DOCTYPE score-partwise [\n  ${defs.join('\n  ')}\n]>`)
    .replace('A generated score', '&lol9;');
}

/** An external entity naming a local file (XXE). */
export function externalEntity(): string {
  return plainScore(1, 4)
    .replace(HEAD, `${HEAD}\n<!DOCTYPE score-partwise [\n  <!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>`)
    .replace('A generated score', '&xxe;');
}

/** Texts a contribution may carry that would be links, images or markup in a Markdown renderer. */
export const INJECTED_TEXTS = [
  '[t](javascript:alert(1))',
  '![i](javascript:alert(2))',
  '<javascript:alert(3)>',
  '[r][x]\n\n[x]: javascript:alert(4)',
  '<img src=x onerror=alert(5)>',
  '[d](data:text/html;base64,PHNjcmlwdD5hbGVydCg2KTwvc2NyaXB0Pg==)',
  '[e](JaVaScRiPt:alert(7) "t")',
  '[f](<javascript:alert(8)>)',
  '[g]( javascript:alert(9) )',
  '[h](java&#115;cript:alert(10))',
  '[i](&#106;avascript:alert(11))',
  '\\[j](javascript:alert(12))',
  '`[k](javascript:alert(13))`',
  '*[l](javascript:alert(14))*',
  '[m](javascript:alert%2815%29)',
] as const;
