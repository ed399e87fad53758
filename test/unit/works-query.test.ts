import { describe, expect, it } from 'vitest';
import { composerNameForms, filterWorks, indexWork, paginate } from '../../src/domain/works-query.ts';
import type { WorkRecord, WorkSummary } from '../../src/schemas/work.ts';

function work(
  slug: string,
  composer: { name: string; sortName: string; aliases?: string[] },
  extra: Partial<WorkRecord> = {},
): { record: WorkRecord; summary: WorkSummary } {
  const record = {
    slug,
    title: extra.title ?? slug,
    originalTitle: null,
    composer: { born: '1700', died: '1800', aliases: [], ...composer },
    period: 'Classical',
    genre: extra.genre ?? 'Sonata',
    year: '1790',
    workNumber: extra.workNumber ?? null,
    catalogNumbers: extra.catalogNumbers ?? [],
    summary: '',
    key: null,
    instrumentation: '',
    instruments: extra.instruments ?? [{ slug: 'piano', name: 'Piano', family: 'keyboards' }],
    arrangements: extra.arrangements ?? [],
  } as unknown as WorkRecord;
  return { record, summary: { slug } as WorkSummary };
}

const aliases = new Map([['cello', ['violoncello']]]);
const index = [
  work(
    'bach-suite',
    { name: 'Johann Sebastian Bach', sortName: 'Bach, Johann Sebastian', aliases: ['J. S. Bach'] },
    {
      title: 'Cello Suite No. 1',
      genre: 'Suite',
      workNumber: 'BWV 1007',
      catalogNumbers: [{ catalog: 'BWV', number: '1007' }],
      instruments: [{ slug: 'cello', name: 'Cello', family: 'strings' }],
    },
  ),
  work('dvorak-largo', { name: 'Antonín Dvořák', sortName: 'Dvořák, Antonín' }, { title: 'Largo', genre: 'Symphony' }),
  work(
    'offenbach-barcarolle',
    { name: 'Jacques Offenbach', sortName: 'Offenbach, Jacques' },
    { title: 'Barcarolle', genre: 'Opera' },
  ),
].map((w) => indexWork(w.record, w.summary, aliases));

const slugs = (f: Parameters<typeof filterWorks>[1]) => filterWorks(index, f).map((w) => w.summary.slug);

describe('composer name forms', () => {
  it('adds initials forms', () => {
    expect(composerNameForms('Johann Sebastian Bach', 'Bach, Johann Sebastian', [])).toContain('j s bach');
  });
  it.each(['Bach, J.S.', 'J. S. Bach', 'Johann Sebastian Bach', 'bach', 'BACH J S'])('finds Bach as %s', (name) => {
    expect(slugs({ composer: name })).toEqual(['bach-suite']);
  });
  it('finds Dvořák without accents and does not confuse Offenbach with Bach', () => {
    expect(slugs({ composer: 'dvorak' })).toEqual(['dvorak-largo']);
    expect(slugs({ composer: 'bach' })).not.toContain('offenbach-barcarolle');
  });
});

describe('filters', () => {
  it('matches catalog numbers in the free query', () => {
    expect(slugs({ query: 'BWV 1007' })).toEqual(['bach-suite']);
  });
  it('matches instrument aliases', () => {
    expect(slugs({ instrument: 'violoncello' })).toEqual(['bach-suite']);
  });
  it('combines filters with AND and sorts by composer sort name', () => {
    expect(slugs({ genre: 'symphony', composer: 'dvorak' })).toEqual(['dvorak-largo']);
    expect(slugs({})).toEqual(['bach-suite', 'dvorak-largo', 'offenbach-barcarolle']);
  });
});

describe('paginate', () => {
  it('slices pages and counts them', () => {
    const items = Array.from({ length: 45 }, (_, i) => i);
    expect(paginate(items, 1, 20)).toMatchObject({ items: items.slice(0, 20), total: 45, totalPages: 3 });
    expect(paginate(items, 3, 20).items).toEqual([40, 41, 42, 43, 44]);
    expect(paginate(items, 4, 20).items).toEqual([]);
  });
});
