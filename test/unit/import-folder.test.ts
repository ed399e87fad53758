/**
 * A plain folder of scores as an import adapter (src/domain/corpus/folder.ts, csv.ts): works.csv
 * gives the facts where it has them and the file's header the rest (marked as such); a bad row is
 * refused with its row and column named and the other rows go in; rows of one `work` (or files of
 * one folder that name their movements) become one work with ordered movements.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/domain/corpus/csv.ts';
import { folderWorks, WORKS_CSV_COLUMNS, type FolderInput } from '../../src/domain/corpus/folder.ts';
import { musicXmlFacts } from '../../src/domain/corpus/musicxml-facts.ts';
import { planWork, type ImportFile, type WorkFacts } from '../../src/domain/corpus/plan.ts';
import { stagedFileUrl } from '../../api/imports/staged-files.ts';
import { slugify } from '../../src/domain/review/proposal.ts';
import { scoreXml, type ScoreText } from '../helpers/encoded-scores.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { expectEach } from '../helpers/expect-each.ts';
import { buildContributionChange } from '../../src/domain/review/proposal.ts';
import { resolveWork } from '../../src/domain/people.ts';
import type { WorkFile } from '../../src/schemas/work.ts';
import { proposalInput } from '../review/proposal-input.ts';

function file(relPath: string, text: ScoreText): ImportFile {
  const xml = scoreXml(text);
  return {
    relPath,
    sha256: createHash('sha256').update(xml).digest('hex'),
    byteLength: xml.length,
    kind: relPath.endsWith('.mxl') ? 'mxl' : 'musicxml',
    facts: musicXmlFacts(xml),
  };
}

const FILES = [
  file('a.xml', { workTitle: 'CANTO', composer: 'a lyric line, not a composer', step: 'C' }),
  file('b.musicxml', {
    workTitle: 'Ständchen',
    composer: 'Søren Prøve',
    lyricist: 'Þóra Prófun',
    rights: 'Public domain',
    step: 'D',
  }),
  file('c.xml', { workTitle: 'bwv101.7', step: 'E' }),
  file('sonata/1.xml', { workTitle: 'x', movementTitle: 'Rondo', step: 'F' }),
  file('sonata/2.xml', { workTitle: 'x', movementTitle: 'Allegro', step: 'G' }),
  file('suite/one.xml', {
    workTitle: 'Kleine Suite',
    composer: 'Zoë Essai',
    movementNumber: 'I',
    movementTitle: 'Prélude',
    step: 'A',
  }),
  file('suite/two.xml', {
    workTitle: 'Kleine Suite',
    composer: 'Zoë Essai',
    movementNumber: 'II',
    movementTitle: 'Gigue',
    step: 'B',
  }),
];

const input = (csv: string | null, more: Partial<FolderInput> = {}): FolderInput => ({
  batch: { id: 'folder-test', title: 'Import of the folder test' },
  files: FILES,
  table: csv === null ? null : parseCsv(csv),
  sourceUrl: 'https://scores.example.org/folder',
  instruments: [
    { slug: 'violin', name: 'Violin', aliases: ['violino'] },
    { slug: 'voice', name: 'Voice' },
  ],
  currentYear: 2026,
  ...more,
});
const works = (i: FolderInput) => folderWorks(i).works.filter((w): w is WorkFacts => !('skip' in w));
const byFile = (ws: WorkFacts[], rel: string) => ws.find((w) => w.scores.some((s) => s.file.relPath === rel))!;

describe('works.csv', () => {
  it('has the columns docs/imports.md documents, in its order', () => {
    const doc = readFileSync(path.join(PROJECT_ROOT, 'docs', 'imports.md'), 'utf8');
    const table = /\| Column \| Meaning \|\n\|---\|---\|\n((?:\|.*\n)+)/.exec(doc)![1]!;
    const documented = table
      .trimEnd()
      .split('\n')
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]));
    expect(documented).toHaveLength(20);
    expect(WORKS_CSV_COLUMNS).toEqual(documented);
  });

  it('reads quoted fields, a BOM and CRLF line ends as spreadsheets write them', () => {
    const t = parseCsv('\uFEFFfile,title\r\n"a.xml","Lieder, ""ohne"" Worte"\r\n"b.musicxml","two\nlines"\r\n');
    expect(t.header).toEqual(['file', 'title']);
    expect(t.rows.map((r) => r.cells)).toEqual([
      ['a.xml', 'Lieder, "ohne" Worte'],
      ['b.musicxml', 'two\nlines'],
    ]);
    expect(parseCsv('file\n"a.xml').problems).toEqual([
      { line: 2, detail: 'a quoted field is never closed (a missing ")' },
    ]);
  });

  it('takes titles, composers, dates and catalog numbers from the rows; what a row lacks from the file, marked', () => {
    const csv = [
      'file,title,composer,composerBorn,composerDied,composerWikidata,firstPublished,catalogNumber,genre,instruments,license,sourceUrl',
      'a.xml,Canto notturno,Ágnes Próba,1801,1850,https://www.wikidata.org/wiki/Q42,1840,Op. 3 No. 1,Lied,Voice,CC0-1.0,https://scores.example.org/a',
      'c.xml,Chorale,Ágnes Próba,1801-02-03,1850,,,BWV 101.7,,violino,,',
      'b.musicxml,,,,,,,,,,,',
    ].join('\n');
    const plan = folderWorks(input(csv));
    expect(plan.errors).toEqual([]);
    const ws = plan.works.filter((w): w is WorkFacts => !('skip' in w));
    const a = byFile(ws, 'a.xml');
    expect(a).toMatchObject({
      title: 'Canto notturno',
      composer: { name: 'Ágnes Próba', sortName: 'Próba, Ágnes', born: '1801', died: '1850', wikidataId: 'Q42' },
      firstPublished: '1840',
      catalogNumbers: [{ catalog: 'Op.', number: '3 No. 1' }],
      genre: 'Lied',
      instruments: ['voice'],
      rights: { editionStatus: 'public-domain', license: 'CC0-1.0' },
      factsFrom: 'works-csv',
      provenance: null,
      slug: 'agnes-proba-canto-notturno',
    });
    expect(byFile(ws, 'c.xml')).toMatchObject({
      catalogNumbers: [{ catalog: 'BWV', number: '101.7' }],
      instruments: ['violin'],
      rights: { editionStatus: 'unknown', fileStatus: 'unknown' },
    });
    // A row that gives only the file: everything else from the file, and the item says so.
    const b = byFile(ws, 'b.musicxml');
    expect(b).toMatchObject({
      title: 'Ständchen',
      composer: { name: 'Søren Prøve', born: 'unknown' },
      factsFrom: 'works-csv',
    });
    expect(b.lyricist?.name).toBe('Þóra Prófun');
    expect(b.provenance).toBe(
      'Read from the score file itself, not from a table: title (work-title), composer (creator), lyricist (creator), rights statement (rights); check them before accepting.',
    );
    // The rights decided from the row's facts: public domain everywhere (died 1850, published 1840).
    const planned = planWork(a, { asOfYear: 2026, stagedUrl: stagedFileUrl });
    expect(planned.kind === 'submit' && planned.body.rights.compositionStatus).toBe('public-domain');
  });

  it("records the row's people and first publication as facts whose evidence cites the row", () => {
    const csv = [
      'file,title,composer,composerBorn,composerDied,lyricist,lyricistBorn,lyricistDied,firstPublished,sourceUrl',
      'b.musicxml,Ständchen,Søren Prøve,1790,1850,Þóra Prófun,1795,1860,1840,https://scores.example.org/b',
    ].join('\n');
    const w = byFile(works(input(csv)), 'b.musicxml');
    const planned = planWork(w, { asOfYear: 2026, stagedUrl: stagedFileUrl });
    if (planned.kind !== 'submit') throw new Error(`not planned: ${planned.reason}`);
    const body = planned.body.work!;
    const row = /works\.csv row 2 \(.*\) of Import of the folder test, for b\.musicxml/;
    expect(body.composerFacts).toMatchObject({ born: '1790', died: '1850' });
    expect(body.composerFacts?.evidenceNote).toMatch(row);
    expect(body.lyricistFacts).toMatchObject({
      name: 'Þóra Prófun',
      born: '1795',
      died: '1860',
      evidenceUrls: ['https://scores.example.org/b'],
    });
    expect(body.lyricistFacts?.evidenceNote).toMatch(/works\.csv row 2 \(lyricistBorn, lyricistDied, lyricist\)/);
    expect(body.firstPublishedFact).toEqual({
      bound: 'exact',
      year: 1840,
      evidence: [
        {
          url: 'https://scores.example.org/b',
          note: 'works.csv row 2 (firstPublished "1840") of Import of the folder test, for b.musicxml.',
        },
      ],
    });
    // The proposal writes both people as records and the publication as the work's fact, each
    // with the row as its evidence and who accepted it; the rights are derived from them.
    const change = buildContributionChange(
      proposalInput(planned.body, {
        work: null,
        workFileSha256: null,
        asOfYear: 2026,
        accepted: { by: 'editor-key', atUtc: '2026-12-07T10:00:00Z' },
      }),
    );
    if (change.kind !== 'work') throw new Error('expected a work change');
    const people = new Map((change.people ?? []).map((p) => [p.slug, p.after]));
    expect(change.after.composer).toBe('prove-soren');
    expect(change.after.lyricist).toBe('profun-thora');
    const lyricist = people.get('profun-thora')!;
    expect(lyricist).toMatchObject({ born: '1795', died: '1860' });
    expectEach(lyricist.evidence, (e) => row.test(e.note) && e.acceptedBy === 'editor-key');
    expect(change.after.firstPublished).toMatchObject({
      bound: 'exact',
      year: 1840,
      evidence: [expect.objectContaining({ note: expect.stringMatching(row), acceptedBy: 'editor-key' })],
    });
    const resolved = resolveWork(change.after as WorkFile, people, 2026);
    expect(resolved.problems).toEqual([]);
    expect(resolved.content!.rights.composition.status).toBe('public-domain');
    expect(resolved.content!.publication).toMatchObject({ bound: 'exact', year: 1840, from: 'work' });
    // Without the row's columns, nothing is recorded as a fact: no publication, no dates.
    const bare = byFile(works(input('file,sourceUrl\nb.musicxml,https://scores.example.org/b')), 'b.musicxml');
    const barePlan = planWork(bare, { asOfYear: 2026, stagedUrl: stagedFileUrl });
    if (barePlan.kind !== 'submit') throw new Error('not planned');
    expect(barePlan.body.work?.firstPublishedFact).toBeUndefined();
    expect(barePlan.body.work?.lyricistFacts).toMatchObject({ born: 'unknown', died: 'unknown' });
    expect(barePlan.body.work?.lyricistFacts?.evidenceNote).toMatch(/Read from the score file b\.musicxml/);
  });

  it('refuses a bad row with its row and column named, and the other rows go in', () => {
    const csv = [
      'file,title,composer,composerDied,firstPublished,opus,movement',
      'a.xml,One,Ágnes Próba,18x9,,,',
      'b.musicxml,Two,Ágnes Próba,1850,,12,',
      'missing/nowhere.xml,Three,Ágnes Próba,,,,',
      'c.xml,Four,Ágnes Próba,1850,2999,,',
      'suite/one.xml,Five,Zoë Essai,,,,III',
      'sonata/1.xml,Six,Zoë Essai,,,,',
    ].join('\n');
    const plan = folderWorks(input(csv));
    expect(plan.errors).toEqual([
      {
        row: 2,
        column: 'composerDied',
        detail: '"18x9" is not a year (YYYY or YYYY-MM-DD, at most 2026, or "unknown")',
      },
      {
        row: 3,
        column: 'opus',
        detail: `is not a column of works.csv (the columns are ${WORKS_CSV_COLUMNS.join(', ')})`,
      },
      {
        row: 4,
        column: 'file',
        detail: 'names "missing/nowhere.xml", which is no score file (.musicxml, .xml, .mxl) in the folder',
      },
      {
        row: 5,
        column: 'firstPublished',
        detail: '"2999" is not a year (YYYY, at most 2026, "unpublished" or "unknown")',
      },
      { row: 6, column: 'movement', detail: 'needs a work value naming the work the movement belongs to' },
    ]);
    const ws = plan.works.filter((w): w is WorkFacts => !('skip' in w));
    const files = ws.flatMap((w) => w.scores.map((s) => s.file.relPath)).sort();
    // Nothing of a refused row goes in (not even its file, from its own facts); the rest does.
    // (sonata/2.xml has no row and its file names no composer: skipped, with that reason.)
    expect(files).toEqual(['sonata/1.xml', 'suite/two.xml']);
    expect(byFile(ws, 'sonata/1.xml')).toMatchObject({ title: 'Six', factsFrom: 'works-csv' });
  });

  it('makes the rows of one work its movements, in order; a row that disagrees is refused', () => {
    const csv = [
      'file,work,movement,movementTitle,title,composer',
      'sonata/1.xml,Sonatine,2,Rondo,Sonatine in C,Ágnes Próba',
      'sonata/2.xml,sonatine,1,,,Ágnes Próba',
      'a.xml,Sonatine,3,Finale,,Søren Prøve',
    ].join('\n');
    const plan = folderWorks(input(csv));
    expect(plan.errors).toEqual([
      { row: 4, column: 'composer', detail: '"Søren Prøve" differs from row 2 of the same work ("Ágnes Próba")' },
    ]);
    const sonatine = byFile(
      plan.works.filter((w): w is WorkFacts => !('skip' in w)),
      'sonata/1.xml',
    );
    expect(sonatine.title).toBe('Sonatine in C');
    expect(sonatine.movements).toEqual([
      { number: 1, title: 'Allegro' },
      { number: 2, title: 'Rondo' },
    ]);
    expect(sonatine.scores.map((s) => [s.file.relPath, s.movement])).toEqual([
      ['sonata/2.xml', 1],
      ['sonata/1.xml', 2],
    ]);
    const planned = planWork(sonatine, { asOfYear: 2026, stagedUrl: stagedFileUrl });
    if (planned.kind !== 'submit') throw new Error(planned.reason);
    expect(planned.body.assets.map((a) => a.movement)).toEqual([1, 2]);
    expect(planned.body.work?.movements).toHaveLength(2);
  });
});

describe('a folder without works.csv', () => {
  it('takes the facts from each file, marked so, and files that name their movements as one work', () => {
    const ws = works(input(null));
    const suite = byFile(ws, 'suite/one.xml');
    expect(suite).toMatchObject({
      title: 'Kleine Suite',
      composer: { name: 'Zoë Essai' },
      movements: [
        { number: 1, title: 'Prélude' },
        { number: 2, title: 'Gigue' },
      ],
      factsFrom: 'score-file',
    });
    expect(byFile(ws, 'b.musicxml')).toMatchObject({
      title: 'Ständchen',
      factsFrom: 'score-file',
      rights: { editionStatus: 'public-domain', attribution: 'Public domain' },
    });
    expect(byFile(ws, 'b.musicxml').provenance).toMatch(/^Read from the score file itself/);
    // A file that names no composer cannot become a work, and says why.
    const skipped = folderWorks(input(null)).works.filter((w) => 'skip' in w);
    expect(skipped.map((w) => ('skip' in w ? [w.itemKey, w.skip] : []))).toContainEqual([
      'c',
      'no composer: works.csv gives none and the file names none (creator)',
    ]);
  });

  it('needs a source page for the folder (or each row)', () => {
    const skipped = folderWorks(input(null, { sourceUrl: null })).works.filter((w) => 'skip' in w);
    expect(skipped.some((w) => 'skip' in w && /no source page/.test(w.skip))).toBe(true);
  });

  it('makes new slugs that keep letters in their usual Latin spelling', () => {
    expect(
      ['Die Blümlein sprießen', 'Ævintýri', 'Sørgmarsj', 'Il pleure dans mon cœur', 'Þorraþræll', 'Łódź'].map(slugify),
    ).toEqual([
      'die-blumlein-spriessen',
      'aevintyri',
      'sorgmarsj',
      'il-pleure-dans-mon-coeur',
      'thorrathraell',
      'lodz',
    ]);
  });

  it('gives each work a stable item key and a slug with its letters', () => {
    const ws = works(input(null));
    expect(byFile(ws, 'b.musicxml')).toMatchObject({ itemKey: 'b', slug: 'soren-prove-standchen' });
    expect(byFile(ws, 'suite/one.xml').itemKey).toBe('suite-kleine-suite');
  });
});

describe('docs/imports.md', () => {
  it('gives an example works.csv that reads without a refused row', () => {
    const doc = readFileSync(path.join(PROJECT_ROOT, 'docs', 'imports.md'), 'utf8');
    const csv = /```csv\n([\s\S]*?)```/.exec(doc)![1]!;
    const table = parseCsv(csv);
    const files = table.rows.map((r, i) =>
      file(r.cells[0]!, { workTitle: `Example ${i}`, composer: 'Anna Muster', step: 'C' }),
    );
    const plan = folderWorks({ ...input(csv), files });
    expect(plan.errors).toEqual([]);
    const ws = plan.works.filter((w): w is WorkFacts => !('skip' in w));
    expect(ws).toHaveLength(3);
    expect(byFile(ws, 'quartet/1.musicxml').movements.map((m) => m.title)).toEqual(['Allegro', 'Adagio']);
    expect(byFile(ws, 'sibelius/export.xml').factsFrom).toBe('works-csv');
  });
});
