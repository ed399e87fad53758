/**
 * A plain folder of real MusicXML files (not OpenScore's) brought in through review
 * (docs/imports.md, "A plain folder of scores"): `npm run import` as a real process against the
 * archive on loopback. The folder is written at test time: the project's own small scores in every
 * encoding and shape (UTF-8 with and without a BOM, UTF-16 LE and BE, ISO-8859-1, .mxl with a
 * container), a work in three movement files, a works.csv with good rows, a work of two movement
 * rows and three bad rows, and files of the MusicXML test suite (../shared/corpora, copied only
 * into the temporary folder). Everything goes into one review batch with the facts of works.csv
 * where it gives them; the bad rows are refused with their row and column; a re-run adds nothing;
 * applied, the UTF-16 song and the movements engrave, the work page lists the movements, and the
 * PDF, MIDI and zip carry the work's title and composer.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../helpers/process.ts';
import { PROJECT_ROOT, listenOnLoopback } from '../helpers/app.ts';
import { LABELED_ADMIN_KEY, openReviewHarness, type ReviewHarness } from '../review/harness.ts';
import { expectEach } from '../helpers/expect-each.ts';
import { encodedScore, writeEncodedScores } from '../helpers/encoded-scores.ts';
import { midiMetadata } from '../../src/lib/site/midi-meta.ts';

const SUITE = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'musicxml-test-suite');
const BATCH = 'test-folder';
const SOURCE = 'https://scores.example.org/test-folder';

const COLUMNS =
  'file,title,originalTitle,composer,composerBorn,composerDied,lyricist,lyricistBorn,lyricistDied,firstPublished,catalogNumber,work,movement,movementTitle,genre,instruments,license,attribution,sourceUrl,opus';
const ROWS = [
  // row 2: a song, every fact from the row
  'songs/plain-utf8.musicxml,Spring Faith,Frühlingsglaube,Ágnes Próba,1801,1850,Jürgen Prüfung,1790,1849,1845,Op. 3 No. 1,,,,Lied,voice; piano,CC0-1.0,Test folder of the archive,https://scores.example.org/spring,',
  // row 3: the UTF-16 song: its title from the file (marked), the rest from the row
  'sibelius/utf16le.xml,,,Ágnes Próba,1801,1850,,,,1846,Op. 3 No. 2,,,,Lied,voice,CC0-1.0,,,',
  // rows 4-5: two movements of one work, listed out of order
  'sonata/a.xml,Sonatine in C,,Ágnes Próba,1801,1850,,,,1847,Op. 4,Sonatine,2,Rondo,Chamber piece,Violino,CC0-1.0,,,',
  'sonata/b.xml,,,Ágnes Próba,,,,,,,,Sonatine,1,Allegro,,,,,,',
  // row 6: the same song again (an exact duplicate of row 2's)
  'songs/again.xml,Spring Faith,,Ágnes Próba,1801,1850,,,,1845,Op. 3 No. 1,,,,Lied,voice,CC0-1.0,,,',
  // rows 7-9: refused (a bad year, an unknown column, a missing file)
  'songs/bom-utf8.xml,,,Clémence Épreuve,1790,18x9,,,,,,,,,,,,,,',
  'finale/latin1.xml,,,,,,,,,,,,,,,,,,,12',
  'missing/nowhere.xml,Lost,,Ágnes Próba,,,,,,,,,,,,,,,,',
  // rows 10-11: test-suite files whose own headers name no composer
  '99a-Sibelius5-IgnoreBeaming.xml,Beaming test,,Zoë Essai,,,,,,,,,,,,,,,,',
  '90a-Compressed-MusicXML.mxl,Compressed test,,Zoë Essai,,,,,,,,,,,,,,,,',
];

let dir: string;
let h: ReviewHarness;
let server: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runImport(args: string[]): Promise<Run> {
  const run = await runScript('import.ts', [dir, ...args, '--server', server, '--json'], {
    ARCHIVE_ADMIN_KEY: LABELED_ADMIN_KEY,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}
const summaryOf = (run: Run) => JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, any>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-folder-'));
  writeEncodedScores(dir);
  const put = (rel: string, bytes: Uint8Array) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), bytes);
  };
  put('songs/again.xml', encodedScore({ workTitle: 'Spring Faith', composer: 'Ágnes Próba', step: 'G' }, 'utf-8'));
  put('sonata/a.xml', encodedScore({ workTitle: 'x', movementTitle: 'Rondo', step: 'C' }, 'utf-16be'));
  put('sonata/b.xml', encodedScore({ workTitle: 'x', movementTitle: 'Allegro', step: 'D' }, 'utf-8'));
  // Three movement files with no rows: one work by their own headers.
  (['I', 'II', 'III'] as const).forEach((n, i) =>
    put(
      `movements/${n}.xml`,
      encodedScore(
        {
          workTitle: 'Drei Stücke',
          composer: 'Clémence Épreuve',
          movementNumber: n,
          movementTitle: ['Präludium', 'Arie', 'Gigue'][i]!,
          step: (['E', 'F', 'G'] as const)[i],
        },
        'utf-8',
      ),
    ),
  );
  for (const f of [
    '99a-Sibelius5-IgnoreBeaming.xml',
    '90a-Compressed-MusicXML.mxl',
    '51b-Header-Quotes.xml',
    '41a-MultiParts-Partorder.xml',
  ])
    copyFileSync(path.join(SUITE, f), path.join(dir, f));
  writeFileSync(path.join(dir, 'works.csv'), `${COLUMNS}\n${ROWS.join('\n')}\n`);
  h = await openReviewHarness({});
  server = await listenOnLoopback(h.app);
}, 180_000);
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const batch = async () => {
  const res = await h.get(`/api/v1/admin/batches/${BATCH}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.items as Array<Record<string, any>>;
};
const submission = async (code: string) =>
  (await h.get(`/api/v1/admin/contributions/${code}`)).json().data.submission as Record<string, any>;

describe('a plain folder of scores through review', () => {
  let first: Record<string, any>;

  it('imports every readable work into one batch, facts from works.csv where given, bad rows refused by row and column', async () => {
    const run = await runImport(['--batch', BATCH, '--source-url', SOURCE]);
    // Refused rows make the exit code 1; everything else went in.
    expect(run.code, run.stderr + run.stdout).toBe(1);
    first = summaryOf(run);
    expect(first.failed).toEqual([]);
    expect(first.refusedRows).toEqual([
      { row: 7, column: 'composerDied', detail: expect.stringContaining('"18x9" is not a year') },
      { row: 8, column: 'opus', detail: expect.stringContaining('is not a column of works.csv') },
      { row: 9, column: 'file', detail: expect.stringContaining('"missing/nowhere.xml"') },
    ]);
    const items = await batch();
    const titles = items.map((i) => i.title).sort();
    expect(titles).toEqual(
      [
        'Spring Faith',
        'Spring Faith',
        'Ævintýri',
        'Sonatine in C',
        'Sørgmarsj',
        'Œuvre pour voix',
        'Þorraþræll',
        'Drei Stücke',
        'Beaming test',
        'Compressed test',
        '"Quotes" in header fields',
      ].sort(),
    );
    expect(first.submitted).toBe(items.length);
    // 41a names no title and no composer: skipped with the reason, never invented.
    expect(first.skipped).toContainEqual(
      expect.objectContaining({
        title: '41a-MultiParts-Partorder.xml',
        reason: 'no title: works.csv gives none and the file names none (work-title, movement-title)',
      }),
    );
    // Every encoding and shape, each read right: titles and composers with their letters.
    const by = (title: string) => items.find((i) => i.title === title)!;
    expect(by('Sørgmarsj')).toMatchObject({ composer: 'Søren Prøve', factsFrom: 'score-file' });
    expect(by('Þorraþræll')).toMatchObject({ composer: 'Páll Prófari', factsFrom: 'score-file' });
    expect(by('"Quotes" in header fields')).toMatchObject({ composer: 'Some "Tester" Name', factsFrom: 'score-file' });
    expect(by('Ævintýri')).toMatchObject({ composer: 'Ágnes Próba', factsFrom: 'works-csv' });
    expect((await submission(by('Ævintýri').trackingCode)).rationale).toContain(
      'Read from the score file itself, not from a table: title (work-title)',
    );
    // Facts and dates from the row.
    const spring = items.find((i) => i.itemKey === 'songs-plain-utf8')!;
    const body = await submission(spring.trackingCode);
    expect(body.work).toMatchObject({
      originalTitle: 'Frühlingsglaube',
      // The row's first publication is a fact, its evidence the row (cited with the row's page).
      firstPublishedFact: {
        bound: 'exact',
        year: 1845,
        evidence: [
          {
            url: 'https://scores.example.org/spring',
            note: expect.stringMatching(
              /^works\.csv row 2 \(firstPublished "1845"\) of .*, for songs\/plain-utf8\.musicxml\.$/,
            ),
          },
        ],
      },
      catalogNumbers: [{ catalog: 'Op.', number: '3 No. 1' }],
      composerFacts: { name: 'Ágnes Próba', born: '1801', died: '1850' },
      lyricist: { name: 'Jürgen Prüfung', born: '1790', died: '1849' },
      lyricistFacts: {
        name: 'Jürgen Prüfung',
        born: '1790',
        died: '1849',
        evidenceUrls: ['https://scores.example.org/spring'],
        evidenceNote: expect.stringMatching(/^works\.csv row 2 \(lyricistBorn, lyricistDied, lyricist\)/),
      },
      genre: 'Lied',
      instruments: ['voice', 'piano'],
    });
    expect(body.rights).toMatchObject({ compositionStatus: 'public-domain', license: 'CC0-1.0' });
    expect(body.assets[0].sourcePageUrl).toBe('https://scores.example.org/spring');
    // The same song twice (row 6 comes first in path order): an exact duplicate; Op. 3 No. 2 is another work.
    const again = items.find((i) => i.itemKey === 'songs-again')!;
    expect(spring.duplicateOf).toBe(`batch item ${again.itemKey}`);
    expect(spring.duplicateMatch).toEqual({
      matched: ['composer', 'catalog number Op. 3 No. 1', 'title'],
      exact: true,
    });
    expect(items.filter((i) => i.duplicateOf !== null)).toHaveLength(1);
    // Movements: the rows' two, in their order; the three files by their headers.
    const sonatine = await submission(by('Sonatine in C').trackingCode);
    expect(sonatine.work.movements).toEqual([
      { number: 1, title: 'Allegro' },
      { number: 2, title: 'Rondo' },
    ]);
    expect(sonatine.assets.map((a: Record<string, unknown>) => a.movement)).toEqual([1, 2]);
    // An instrument by an alias of the published vocabulary (instruments.json: "violino") is its slug.
    expect(sonatine.work.instruments).toEqual(['violin']);
    const pieces = await submission(by('Drei Stücke').trackingCode);
    expect(pieces.work.movements.map((m: { title: string }) => m.title)).toEqual(['Präludium', 'Arie', 'Gigue']);
    expect(pieces.assets).toHaveLength(3);
  }, 300_000);

  it('re-running the import adds nothing', async () => {
    const run = await runImport(['--batch', BATCH, '--source-url', SOURCE]);
    const s = summaryOf(run);
    expect(s.submitted).toBe(0);
    expect(s.alreadySubmitted).toBe(first.submitted);
    expect((await batch()).length).toBe(first.submitted);
  }, 300_000);

  it('applied: the UTF-16 song and the movements engrave, the page lists the movements, PDF, MIDI and zip name the work', async () => {
    const items = await batch();
    const chosen = items.filter((i) => ['Sonatine in C', 'Ævintýri'].includes(i.title) || i.itemKey === 'songs-again');
    const accepted = await h.actOnBatch(BATCH, 'accept', { items: chosen.map((i) => i.trackingCode) });
    expect(accepted.data, accepted.body).toMatchObject({ state: 'completed', actedOn: 3, failed: 0 });
    const applied = await h.actOnBatch(BATCH, 'apply', { items: chosen.map((i) => i.trackingCode) });
    expect(applied.data, applied.body).toMatchObject({ state: 'completed', actedOn: 3, failed: 0 });

    const sonatine = chosen.find((i) => i.title === 'Sonatine in C')!.workSlug as string;
    const record = (await h.get(`/api/v1/works/${sonatine}`)).json().data;
    expect(record.movements.map((m: { number: number; title: string }) => [m.number, m.title])).toEqual([
      [1, 'Allegro'],
      [2, 'Rondo'],
    ]);
    const page = (await h.get(`/works/${sonatine}/`)).body;
    expect(page).toContain('data-movement="1"');
    expect(page).toContain('data-movement="2"');
    // Each movement's score engraved (the first is UTF-16 big-endian).
    for (const m of record.movements) expect(page).toContain(`data-score="${sonatine}/${m.assetIds[0]}"`);

    // People and publication landed as facts whose evidence is the works.csv row, accepted by the key.
    const again = (await h.get(`/api/v1/works/${chosen.find((i) => i.itemKey === 'songs-again')!.workSlug}`)).json()
      .data;
    expect(again.publication).toMatchObject({
      bound: 'exact',
      year: 1845,
      from: 'work',
      evidence: [
        {
          url: SOURCE,
          note: expect.stringMatching(/^works\.csv row 6 \(firstPublished "1845"\)/),
          acceptedBy: 'alice',
        },
      ],
    });
    expect(again.composer.slug).toBe(record.composer.slug);
    const composer = (await h.get(`/api/v1/people/${record.composer.slug}`)).json().data;
    expect(composer).toMatchObject({ name: 'Ágnes Próba', born: '1801', died: '1850' });
    expectEach(
      composer.evidence,
      (e: { note: string; acceptedBy: string | null }) =>
        /works\.csv row \d+ \(composerBorn, composerDied/.test(e.note) && e.acceptedBy === 'alice',
    );

    const utf16 = chosen.find((i) => i.title === 'Ævintýri')!.workSlug as string;
    const utf16Page = (await h.get(`/works/${utf16}/`)).body;
    expect(utf16Page).toMatch(/data-score="[^"]+"/);

    // The Rondo's PDF and MIDI carry the work, the movement and the composer.
    const rondo = record.sourceAssets.find((a: { id: number }) => a.id === record.movements[1].assetIds[0]);
    const pdf = await h.app.inject({ url: new URL(rondo.links.pdf).pathname });
    expect(pdf.statusCode).toBe(200);
    const info = pdfInfo(pdf.rawPayload);
    expect(info.Title).toBe('Sonatine in C: II. Rondo — Ágnes Próba');
    expect(info.Author).toBe('Ágnes Próba');
    expect(info.Keywords).toBe('Op. 4; Chamber piece; movement 2');
    const midi = await h.app.inject({ url: new URL(rondo.links.pdf).pathname.replace(/score\.pdf$/, 'score.mid') });
    expect(midi.statusCode).toBe(200);
    expect(midiMetadata(midi.rawPayload).title).toBe('Sonatine in C: II. Rondo — Ágnes Próba');
    const zip = await h.app.inject({ url: new URL(record.links.filesZip).pathname });
    expect(zip.statusCode).toBe(200);
    expect(zip.rawPayload.toString('utf8')).toContain('Sonatine in C, Op. 4 — Ágnes Próba (1801–1850)');
  }, 900_000);
});

/** The PDF's document information strings (PDFKit writes them as literals, UTF-16BE with a BOM when not ASCII). */
function pdfInfo(bytes: Buffer): Record<string, string> {
  const text = bytes.toString('latin1');
  const out: Record<string, string> = {};
  for (const key of ['Title', 'Author', 'Subject', 'Keywords']) {
    const ref = new RegExp(`/${key} ([0-9]+) 0 R`).exec(text)?.[1];
    const raw = ref ? new RegExp(`\\n${ref} 0 obj\\n([\\s\\S]*?)\\nendobj`).exec(text)?.[1] : undefined;
    if (!raw) continue;
    if (raw.startsWith('<')) {
      const hex = Buffer.from(raw.replace(/[<>\s]/g, ''), 'hex');
      out[key] =
        hex[0] === 0xfe && hex[1] === 0xff ? hex.subarray(2).swap16().toString('utf16le') : hex.toString('latin1');
    } else {
      const literal = Buffer.from(
        raw
          .slice(1, -1)
          .replace(/\\([nrtbf()\\]|[0-7]{1,3})/g, (_m, e: string) =>
            /^[0-7]/.test(e)
              ? String.fromCharCode(parseInt(e, 8))
              : (({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[e] ?? e),
          ),
        'latin1',
      );
      out[key] =
        literal[0] === 0xfe && literal[1] === 0xff
          ? Buffer.from(literal.subarray(2)).swap16().toString('utf16le')
          : literal.toString('latin1');
    }
  }
  return out;
}
