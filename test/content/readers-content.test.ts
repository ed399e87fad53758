/**
 * Content rules for readers: a linked web page carries its own terms (the lint refuses
 * "public-domain" on a Wikipedia article or an IMSLP catalog page), genres come from the
 * repository's vocabulary (genres.json) with a broader term for facets, and a partial score says
 * which bars it holds (the lint counts them). Each rule is broken alone in a copy of the small
 * valid fixture; the shipped sample content passes them all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { editFile, fixtureCopies, MINI_WORK } from '../helpers/fixture-copies.ts';
import { countMusicXmlBars, formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';
import { checkPageRights, hostTerms, pageRightsWords } from '../../src/domain/page-rights.ts';
import { broaderGenre, narrowerGenres } from '../../src/domain/genres.ts';
import { excerptWords } from '../../src/domain/records.ts';
import { expectEach } from '../helpers/expect-each.ts';

const WORK = MINI_WORK;
const copies = fixtureCopies('pdma-lint17-');
const copyFixture = copies.copy;
const edit = editFile;
const lint = (dir: string) => loadCatalog(dir).messages.map(formatLintMessage);

/** A second source asset: a linked web page with the given address and terms. */
function addPage(dir: string, url: string, rightsStatus: string, license: string | null): void {
  edit(dir, WORK, (t) =>
    t.replace(
      'arrangements:\n',
      [
        '  - id: 9',
        '    kind: source-page',
        '    title: A page about the minuet',
        `    url: ${url}`,
        `    sourcePageUrl: ${url}`,
        '    mediaType: text/html',
        `    rightsStatus: ${rightsStatus}`,
        `    license: ${license ?? 'null'}`,
        '    attribution: null',
        '    reviewState: human-reviewed',
        '    access: public',
        'arrangements:',
        '',
      ].join('\n'),
    ),
  );
}

afterEach(() => copies.removeAll());

describe('rights of linked pages', () => {
  it('refuses a Wikipedia article labeled public-domain, and names the page\'s own license', () => {
    const dir = copyFixture();
    addPage(dir, 'https://en.wikipedia.org/wiki/Minuet_in_G_major', 'public-domain', null);
    expect(lint(dir)).toEqual([
      `${WORK}: /sourceAssets/1/rightsStatus: is "public-domain", but https://en.wikipedia.org/wiki/Minuet_in_G_major is a Wikipedia article: its text is licensed CC BY-SA 4.0 by its authors (reuse needs attribution and share-alike), whatever the status of the music it describes. A linked page has its own terms, not the work's: use rightsStatus "third-party-license" with license "CC-BY-SA-4.0"`,
      `${WORK}: /sourceAssets/1/license: must be "CC-BY-SA-4.0" for a Wikipedia page, the license of the page's own text (got null)`,
    ]);
  });

  it('refuses an IMSLP work page labeled public-domain: it is a catalog page', () => {
    const dir = copyFixture();
    addPage(dir, 'https://imslp.org/wiki/Minuet_in_G_major,_BWV_Anh.114_(Petzold,_Christian)', 'public-domain', null);
    const messages = lint(dir);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(`${WORK}: /sourceAssets/1/rightsStatus: is "public-domain", but https://imslp.org/wiki/`);
    expect(messages[0]).toContain('is an IMSLP work page: a catalog page');
    expect(messages[0]).toContain('use rightsStatus "catalog-page"');
  });

  it('accepts linked pages labeled with their own terms, and pages of unknown hosts as written', () => {
    const dir = copyFixture();
    addPage(dir, 'https://de.wikipedia.org/wiki/Menuett', 'third-party-license', 'CC-BY-SA-4.0');
    expect(lint(dir)).toEqual([]);
    const other = copyFixture();
    addPage(other, 'https://www.loc.gov/item/some-public-domain-page/', 'public-domain', null);
    expect(lint(other)).toEqual([]);
  });

  it('a score file that links an IMSLP page is not itself a page', () => {
    // The fixture's MusicXML asset names an IMSLP source page and is public-domain: allowed.
    expect(checkPageRights({ kind: 'musicxml', sourcePageUrl: 'https://imslp.org/wiki/X', rightsStatus: 'public-domain', license: null })).toEqual([]);
  });

  it('says a linked page\'s terms in words', () => {
    expect(hostTerms('https://fr.wikipedia.org/wiki/Gymnop%C3%A9dies')?.license).toBe('CC-BY-SA-4.0');
    expect(hostTerms('https://evil.example/wikipedia.org')).toBeNull();
    expect(pageRightsWords({ title: 'IMSLP: Gymnopédies', kind: 'source-page', url: 'https://imslp.org/wiki/Gymnop%C3%A9dies_(Satie,_Erik)', sourcePage: 'https://imslp.org/wiki/x', rightsStatus: 'catalog-page', license: null })).toBe(
      '“IMSLP: Gymnopédies” is an IMSLP work page: a catalog page that lists scans and editions, each with its own copyright tag there; the page itself makes no file public domain, so check the tag of the scan you use.',
    );
    expect(pageRightsWords({ title: 'Score', kind: 'musicxml', url: null, sourcePage: 'https://imslp.org/wiki/x', rightsStatus: 'public-domain', license: null })).toBeNull();
  });
});

describe('genre vocabulary', () => {
  const vocabulary = JSON.stringify([
    { name: 'Minuet', broader: 'Keyboard music' },
    { name: 'Suite movement', broader: 'Chamber music' },
  ]);

  it('accepts a genre from genres.json and refuses one that is not in it', () => {
    const dir = copyFixture();
    writeFileSync(path.join(dir, 'genres.json'), vocabulary);
    expect(lint(dir)).toEqual([]);
    edit(dir, WORK, (t) => t.replace('genre: Minuet', 'genre: Keyboard piece (minuet)'));
    expect(lint(dir)).toEqual([
      `${WORK}: /genre: "Keyboard piece (minuet)" is not a term of genres.json; use one of its terms, or add this one there with its broader term`,
    ]);
  });

  it('asks for the term as written, and reports duplicate terms', () => {
    const dir = copyFixture();
    writeFileSync(path.join(dir, 'genres.json'), JSON.stringify([{ name: 'Minuet', broader: 'Keyboard music' }, { name: 'minuet', broader: 'Dance' }]));
    edit(dir, WORK, (t) => t.replace('genre: Minuet', 'genre: MINUET'));
    expect(lint(dir)).toEqual([
      'genres.json: /1/name: duplicate genre "minuet" (also at /0/name)',
      `${WORK}: /genre: must be written "Minuet" as in genres.json (got "MINUET")`,
    ]);
  });

  it('groups narrow terms under their broader term', () => {
    const terms = JSON.parse(vocabulary);
    expect(broaderGenre(terms, 'suite movement')).toBe('Chamber music');
    expect(broaderGenre(terms, 'Opera')).toBe('Opera');
    expect(broaderGenre(null, 'Minuet')).toBe('Minuet');
    expect(narrowerGenres(terms, 'Keyboard music')).toEqual(['Minuet']);
  });
});

describe('excerpts', () => {
  it('counts the bars of a stored MusicXML file and refuses a wrong count', () => {
    const dir = copyFixture();
    const xml = readFileSync(path.join(dir, 'works', 'bach-minuet-in-g', 'score.musicxml'), 'utf8');
    const bars = countMusicXmlBars(xml)!;
    expect(bars).toBeGreaterThan(0);
    const add = (count: number, total: number) => (t: string) =>
      t.replace('    access: public\narrangements:', `    access: public\n    excerpt:\n      bars: "1–${count}"\n      barCount: ${count}\n      totalBars: ${total}\narrangements:`);
    edit(dir, WORK, add(bars, 32));
    expect(lint(dir)).toEqual([]);
    const wrong = copyFixture();
    edit(wrong, WORK, add(bars + 1, bars));
    expect(lint(wrong)).toEqual([
      `${WORK}: /sourceAssets/0/excerpt/barCount: is ${bars + 1}, more than totalBars ${bars}`,
      `${WORK}: /sourceAssets/0/excerpt/barCount: is ${bars + 1}, but works/bach-minuet-in-g/score.musicxml holds ${bars} bars`,
    ]);
  });

  it('labels an excerpt in words', () => {
    expect(excerptWords({ bars: '1–9', barCount: 9, totalBars: 78 })).toBe('Excerpt: bars 1–9 (9 of 78 bars)');
    expect(excerptWords({ bars: 'the main theme', barCount: 4, totalBars: null })).toBe("Excerpt: the main theme (4 bars; the whole work's bar count is not recorded)");
  });
});

describe('the shipped sample content', () => {
  it('passes the lint, labels its linked pages with their own terms and its scores as excerpts', () => {
    const { catalog, messages } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
    expect(messages.map(formatLintMessage)).toEqual([]);
    const pages = catalog.works.flatMap((w) => w.content.sourceAssets.filter((a) => a.kind === 'source-page'));
    const wikipedia = pages.filter((a) => hostTerms(a.url ?? a.sourcePageUrl)?.site === 'Wikipedia');
    expectEach(wikipedia, (a) => a.rightsStatus === 'third-party-license' && a.license === 'CC-BY-SA-4.0');
    expect(pages.some((a) => a.rightsStatus === 'public-domain' && hostTerms(a.url ?? a.sourcePageUrl) !== null)).toBe(false);
    const scores = catalog.works.flatMap((w) => w.content.sourceAssets.filter((a) => a.kind === 'musicxml' && a.file));
    expect(scores.length).toBeGreaterThan(0);
    expectEach(scores, (a) => a.excerpt);
    // The genre facet has a handful of broader terms, not one value per work.
    const broader = new Set(catalog.works.map((w) => broaderGenre(catalog.genres, w.content.genre)));
    expect(broader.size).toBeLessThanOrEqual(6);
  });
});
