/**
 * Site data patched from the last build's (src/lib/site-data.ts, `siteDelta`; the facets, the title
 * order and the search page's filters patched with it: src/lib/site/facets.ts, works-index.ts,
 * search-options.ts): after every kind of change an apply makes, what the pages read equals what a
 * build made afresh from the same catalog reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import { loadCatalog, type Catalog, type LoadedWork } from '../../src/domain/catalog.ts';
import { dropSharedSiteData, shareCatalog, site, siteDelta } from '../../src/lib/site-data.ts';
import { composerOf, facets, type Facets } from '../../src/lib/site/facets.ts';
import { searchOptions } from '../../src/lib/site/search-options.ts';
import { worksInOrder } from '../../src/lib/site/works-index.ts';

const LAST_SITE = Symbol.for('pdma.build.lastSite');
const shelf = globalThis as { [LAST_SITE]?: unknown };

let dir: string;
let catalog: Catalog;
const env = { ...process.env };

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'site-patch-'));
  generateCatalog({ works: 240, outDir: path.join(dir, 'c'), seed: 7 });
  const loaded = loadCatalog(path.join(dir, 'c'));
  expect(loaded.messages).toEqual([]);
  catalog = loaded.catalog;
  process.env.ARCHIVE_CONTENT_DIR = path.join(dir, 'c');
  process.env.PUBLIC_BASE_URL = 'http://archive.test';
  process.env.ARCHIVE_GENERATED_AT = '2026-11-29T00:00:00Z';
  delete process.env.ARCHIVE_SCORES_MANIFEST;
  delete process.env.ARCHIVE_BUILD_SCOPE;
});

afterAll(() => {
  dropSharedSiteData();
  delete shelf[LAST_SITE];
  process.env = env;
  rmSync(dir, { recursive: true, force: true });
});

// A small deterministic generator, so a failure repeats.
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Everything the pages read of the site data, the facets and the orders, by slug. */
function view() {
  const data = site();
  const f = facets();
  const slugs = (works: readonly { entry: { slug: string } }[]) => works.map((w) => w.entry.slug);
  for (const w of data.works) expect(data.workBySlug.get(w.entry.slug)).toBe(w);
  const composers = new Set(f.composers);
  for (const w of data.works) expect(composers.has(composerOf(w)!)).toBe(true);
  return {
    works: slugs(data.works),
    entries: data.works.map((w) => w.entry),
    bySlug: data.workBySlug.size,
    records: data.works.filter((_, i) => i % 17 === 0).map((w) => [w.record, w.summary]),
    display: slugs(f.works),
    title: slugs(worksInOrder('title')),
    composers: f.composers.map((c) => ({ ...c, works: slugs(c.works) })),
    composerByWork: [...f.composerByWork].map(([slug, c]) => [slug, c.slug]).sort(),
    values: Object.fromEntries(
      Object.entries(f.values).map(([facet, values]) => [facet, values.map((v) => ({ ...v, works: slugs(v.works) }))]),
    ),
    instruments: data.instruments,
    profiles: data.profiles.map((p) => p.record),
    search: searchOptions(),
  };
}

/** A build of `next` as an incremental build makes it (patched when it can), and the same made afresh. */
function build(next: Catalog): {
  patched: boolean;
  got: ReturnType<typeof view>;
  fresh: ReturnType<typeof view>;
  facets: Facets;
} {
  dropSharedSiteData();
  shareCatalog(process.env.ARCHIVE_CONTENT_DIR!, next, { patch: true });
  const data = site();
  const patched = siteDelta(data) !== null;
  const got = view();
  const made = facets();
  // Made afresh (a build without `patch`, which lets the kept site data go), then the kept one put back.
  const kept = shelf[LAST_SITE];
  dropSharedSiteData();
  shareCatalog(process.env.ARCHIVE_CONTENT_DIR!, next);
  const fresh = view();
  expect(siteDelta(site())).toBeNull();
  shelf[LAST_SITE] = kept;
  dropSharedSiteData();
  return { patched, got, fresh, facets: made };
}

function edit(work: LoadedWork, change: (c: LoadedWork['content']) => Partial<LoadedWork['content']>): LoadedWork {
  return { ...work, content: { ...work.content, ...change(work.content) } };
}

describe('site data patched from the last build', () => {
  it('equals site data made afresh after every kind of change, build after build', () => {
    const next = random(29);
    let works = catalog.works.slice();
    let serial = 0;
    const pick = () => Math.floor(next() * works.length);
    const first = build({ ...catalog, works });
    expect(first.patched).toBe(false);
    expect(first.got).toEqual(first.fresh);
    // The facets of the last build (the changes below pick works by them).
    let f = first.facets;
    const changes: Array<(ws: LoadedWork[]) => LoadedWork[]> = [
      // A one-field correction.
      (ws) => ws.map((w, i) => (i === 0 ? edit(w, (c) => ({ title: `${c.title} (corrected)` })) : w)),
      // The first work of a composer re-spelled (same folded sort name): the composer's names follow it.
      (ws) => {
        const first = f.composers[3]!.works[0]!.entry.slug;
        return ws.map((w) =>
          w.content.slug === first
            ? edit(w, (c) => ({
                composer: {
                  ...c.composer,
                  name: c.composer.name.toUpperCase(),
                  sortName: c.composer.sortName.toUpperCase(),
                },
              }))
            : w,
        );
      },
      // An alias on one work of a composer.
      (ws) =>
        ws.map((w, i) =>
          i === pick()
            ? edit(w, (c) => ({ composer: { ...c.composer, aliases: [...c.composer.aliases, 'Alias X'] } }))
            : w,
        ),
      // A work moved to a new composer whose sort name another composer has: both slugs take the birth year.
      (ws) => {
        const other = f.composers[5]!;
        const i = pick();
        return ws.map((w, j) =>
          j === i
            ? edit(w, (c) => ({
                composer: {
                  ...c.composer,
                  name: other.name,
                  sortName: other.sortName,
                  born: '1600-01-01',
                  died: '1650-01-01',
                },
              }))
            : w,
        );
      },
      // Every work of one composer removed: the composer goes.
      (ws) => {
        const gone = new Set(f.composers[7]!.works.map((w) => w.entry.slug));
        return ws.filter((w) => !gone.has(w.content.slug));
      },
      // The first work of a period re-spelled in another case: the value keeps its slug and takes the new label.
      (ws) => {
        const value = f.values.period[0]!;
        const first = value.works[0]!.entry.slug;
        return ws.map((w) => (w.content.slug === first ? edit(w, (c) => ({ period: c.period.toUpperCase() })) : w));
      },
      // Genre and instruments changed; an instrument named twice counts once.
      (ws) =>
        ws.map((w, i) =>
          i === pick() ? edit(w, () => ({ genre: 'Chorale prelude', instruments: ['organ', 'organ', 'celesta'] })) : w,
        ),
      // Roles changed (an arrangement's intended role), and the profiles the arrangements use.
      (ws) =>
        ws.map((w, i) =>
          i === pick()
            ? edit(w, (c) => ({
                arrangements: c.arrangements.map((a) => ({
                  ...a,
                  intendedRole: 'outro' as const,
                  alsoSuits: [],
                })),
              }))
            : w,
        ),
      // New works (copies under new slugs), some removed.
      (ws) => [
        ...ws.filter(() => next() > 0.02),
        ...Array.from({ length: 3 }, () => {
          const w = ws[pick()]!;
          return edit(w, (c) => ({ slug: `new-work-${++serial}`, title: `New work ${serial}` }));
        }),
      ],
      // Every work of the smallest instrument value removed: the value goes.
      (ws) => {
        const values = f.values.instrument;
        const gone = new Set(values[values.length - 1]!.works.map((w) => w.entry.slug));
        return ws.filter((w) => !gone.has(w.content.slug));
      },
    ];
    for (let round = 0; round < 3; round++) {
      for (const change of changes) {
        // In folder (slug) order, as the loader and an incremental build's plan give them.
        works = change(works).sort((a, b) => (a.content.slug < b.content.slug ? -1 : 1));
        const made = build({ ...catalog, works });
        expect(made.patched).toBe(true);
        expect(made.got).toEqual(made.fresh);
        f = made.facets;
      }
    }
  });

  it('makes each build its records, with its own settings, from the works it keeps', () => {
    const works = catalog.works.slice();
    const before = build({ ...catalog, works });
    process.env.ARCHIVE_READER_SIGNIN = 'github';
    process.env.ARCHIVE_GENERATED_AT = '2026-11-30T00:00:00Z';
    try {
      const next = works.map((w, i) => (i === 1 ? edit(w, (c) => ({ title: `${c.title}!` })) : w));
      const { patched, got, fresh } = build({ ...catalog, works: next });
      expect(patched).toBe(true);
      expect(got.records).toEqual(fresh.records);
      // The settings change what the sampled records say, so records kept from the last build would show.
      expect(got.records).not.toEqual(before.got.records);
    } finally {
      delete process.env.ARCHIVE_READER_SIGNIN;
      process.env.ARCHIVE_GENERATED_AT = '2026-11-29T00:00:00Z';
    }
  });

  it('makes the site data afresh when the instruments change, or too many works did', () => {
    const works = catalog.works.slice();
    build({ ...catalog, works });
    const instruments = catalog.instruments.map((i) => (i.slug === 'piano' ? { ...i, name: 'Pianoforte' } : i));
    const renamed = build({ ...catalog, works, instruments });
    expect(renamed.patched).toBe(false);
    expect(renamed.got).toEqual(renamed.fresh);
    const many = build({ ...catalog, works: works.map((w) => edit(w, (c) => ({ title: `${c.title}.` }))) });
    expect(many.patched).toBe(false);
    expect(many.got).toEqual(many.fresh);
  });
});
