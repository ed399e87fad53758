/**
 * Every score file any tool takes (src/domain/score-files.ts, xml-text.ts, mxl.ts): the one list
 * of file names, every encoding a MusicXML file may have (UTF-8 with or without a BOM, UTF-16 LE
 * and BE with a BOM, the encoding its declaration names) and .mxl through its container's root
 * file; review's technical checks pass them and the engraver engraves them (UTF-16 included).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isScoreFileName,
  musicXmlText,
  SCORE_FILE_EXTENSIONS,
  scoreKindOfName,
  ScoreEncodingError,
} from '../../src/domain/score-files.ts';
import { rootfileOf } from '../../src/domain/mxl.ts';
import { musicXmlFacts } from '../../src/domain/corpus/musicxml-facts.ts';
import { runTechnicalChecks } from '../../api/review/checks.ts';
import { EngravePool } from '../../src/lib/site/engrave-pool.ts';
import { encode, encodedScores, scoreXml } from '../helpers/encoded-scores.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const SUITE = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'musicxml-test-suite');

describe('score file names', () => {
  it('are .musicxml, .xml and .mxl in any case, and nothing else', () => {
    expect(SCORE_FILE_EXTENSIONS.map((e) => e.ext)).toEqual(['.musicxml', '.xml', '.mxl']);
    expect(scoreKindOfName('a/Song.XML')).toBe('musicxml');
    expect(scoreKindOfName('x.MusicXML')).toBe('musicxml');
    expect(scoreKindOfName('q.mxl')).toBe('mxl');
    expect(isScoreFileName('works.csv')).toBe(false);
    expect(isScoreFileName('score.pdf')).toBe(false);
  });
});

describe('MusicXML text in every encoding', () => {
  for (const g of encodedScores()) {
    it(`${g.rel} (${g.encoding}${g.rel.endsWith('.mxl') ? ', compressed' : ''}) reads as the text it was written from`, () => {
      const text = musicXmlText(g.bytes, g.rel.endsWith('.mxl'));
      expect(text.charCodeAt(0)).not.toBe(0xfeff);
      expect(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
      const facts = musicXmlFacts(text);
      expect(facts.workTitle).toBe(g.text.workTitle);
      expect(facts.composer).toBe(g.text.composer);
    });
  }

  it('reads UTF-16 without a BOM by its first characters, and the declaration of another encoding', () => {
    const xml = scoreXml({ workTitle: 'Ständchen', composer: 'Franz Schubert', declared: 'UTF-16' });
    const le = encode(xml, 'utf-16le').subarray(2);
    expect(musicXmlFacts(musicXmlText(le)).workTitle).toBe('Ständchen');
    const w1252 = encode(scoreXml({ workTitle: 'Café', declared: 'windows-1252' }), 'iso-8859-1');
    expect(musicXmlFacts(musicXmlText(w1252)).workTitle).toBe('Café');
  });

  it('names an encoding it cannot read', () => {
    const bytes = strToU8(scoreXml({ workTitle: 'x', declared: 'x-no-such-encoding' }));
    expect(() => musicXmlText(bytes)).toThrow(ScoreEncodingError);
    expect(() => musicXmlText(bytes)).toThrow('declares the encoding "x-no-such-encoding"');
  });

  it('takes the first MusicXML rootfile of the container, in either quote, skipping a PDF listed first', () => {
    const c = (s: string) => strToU8(`<?xml version="1.0"?><container><rootfiles>${s}</rootfiles></container>`);
    expect(rootfileOf(c(`<rootfile full-path='a/b.xml'/>`))).toBe('a/b.xml');
    expect(
      rootfileOf(
        c(
          `<rootfile full-path="s.pdf" media-type="application/pdf"/><rootfile full-path="s.musicxml" media-type="application/vnd.recordare.musicxml+xml"/>`,
        ),
      ),
    ).toBe('s.musicxml');
    expect(rootfileOf(c(''))).toBeUndefined();
    // The container itself in UTF-16.
    expect(
      rootfileOf(
        encode(
          `<?xml version="1.0" encoding="UTF-16"?><container><rootfiles><rootfile full-path="ü.xml"/></rootfiles></container>`,
          'utf-16be',
        ),
      ),
    ).toBe('ü.xml');
    const zip = zipSync({
      'META-INF/container.xml': c(
        `<rootfile full-path="s.pdf" media-type="application/pdf"/><rootfile full-path="s.xml"/>`,
      ),
      'a.xml': strToU8('<nope/>'),
      's.xml': encode(scoreXml({ workTitle: 'Rootfile' }), 'utf-16le'),
    });
    expect(musicXmlFacts(musicXmlText(zip)).workTitle).toBe('Rootfile');
  });
});

describe('review checks and the engraver take every encoding', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-encodings-'));
  const pool = new EngravePool({ size: 1 });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the technical checks for each generated file and a test-suite file', async () => {
    const files = encodedScores().map((g) => {
      const file = path.join(dir, path.basename(g.rel));
      writeFileSync(file, g.bytes);
      return { file, kind: g.rel.endsWith('.mxl') ? ('mxl' as const) : ('musicxml' as const) };
    });
    files.push({ file: path.join(SUITE, '90a-Compressed-MusicXML.mxl'), kind: 'mxl' });
    files.push({ file: path.join(SUITE, '41a-MultiParts-Partorder.xml'), kind: 'musicxml' });
    for (const f of files) {
      const result = await runTechnicalChecks(f.kind, f.file);
      expect(result.passed, `${f.file}: ${result.summary}`).toBe(true);
    }
  }, 120_000);

  it('engraves UTF-16 scores (little- and big-endian) to pages and MIDI', async () => {
    for (const g of encodedScores().filter((x) => x.encoding.startsWith('utf-16'))) {
      const file = path.join(dir, `engrave-${path.basename(g.rel)}`);
      writeFileSync(file, g.bytes);
      const out = await pool.engrave({ file, compressed: g.rel.endsWith('.mxl') }, null);
      expect(out.rendering.status, `${g.rel}: ${JSON.stringify(out.rendering)}`).toBe('rendered');
      expect(out.files.some((f) => f.name.endsWith('.svg'))).toBe(true);
      expect(out.files.some((f) => f.name === 'score.mid')).toBe(true);
    }
    // The same text as UTF-8 gives the same pages: the encoding changes nothing engraved.
    const utf16 = encodedScores().find((x) => x.encoding === 'utf-16be')!;
    const utf8File = path.join(dir, 'same-as-utf8.xml');
    writeFileSync(utf8File, strToU8(musicXmlText(utf16.bytes)));
    const a = await pool.engrave({ file: utf8File, compressed: false }, null);
    const b = await pool.engrave(
      { file: path.join(dir, `engrave-${path.basename(utf16.rel)}`), compressed: false },
      null,
    );
    const page = (o: typeof a) => Buffer.from(o.files.find((f) => f.name.endsWith('.svg'))!.bytes).toString('utf8');
    expect(page(b)).toBe(page(a));
  }, 120_000);
});
