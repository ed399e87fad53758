/**
 * A resolve catalog laid over a base's (src/domain/resolve/catalog-layer.ts): over a generated
 * catalog built into records by the domain code, random edits, additions, removals, rewordings
 * (arrangement and title words no base work has) and moves (a composer no base work has, sorting
 * first or last) give a layered catalog, from the two overlay files' round trips, whose resolve
 * answers equal those of a resolve catalog freshly built from the changed catalog, for
 * catalog-wide requests of every role, requests naming a work by slug (changed, added, removed,
 * untouched) and by title or composer words, and a channel without music. Only the count of
 * arrangements judged one by one and the note that states it may differ. Under a small
 * per-request bound, the candidates still agree whenever both rankings say they are complete. The
 * layered slugs find live works only, and overlays that do not fit the base are refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applySteps, edited, resolveFixture, worksOverlayOf } from '../helpers/resolve-fixture.ts';
import { buildResolveCatalog, encodeResolveCatalog, type ResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { ResolveLayerError, layerResolveCatalog, liveWorks } from '../../src/domain/resolve/catalog-layer.ts';
import { resolveMusic, type ResolveLimits } from '../../src/domain/resolve/resolve.ts';
import {
  decodeWorksOverlay,
  encodeWorksOverlay,
  type WorksOverlay,
} from '../../src/domain/catalog-index/works-overlay.ts';
import {
  buildResolveOverlay,
  decodeResolveOverlay,
  encodeResolveOverlay,
  type ResolveOverlay,
} from '../../src/domain/catalog-index/resolve-overlay.ts';
import { rng } from '../../scripts/generate-catalog.ts';
import { MUSIC_ROLES, type MusicRole } from '../../src/schemas/common.ts';
import type { MusicResolveInput, ResolveResult } from '../../src/schemas/resolve.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { words } from '../../src/domain/text.ts';
import { PROPERTY_BACKSTOP_MS } from '../helpers/property-budget.ts';

const BASE_URL = 'https://resolve-layer.example.test';
const ctx = { baseUrl: BASE_URL, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' };
const f = resolveFixture(BASE_URL);

/** Words no generated work has: only the overlay's vocabulary holds them. */
const NOVEL = ['glimmering', 'zephyrine', 'celesta', 'wistful', 'brassy', 'misty', 'quixotic', 'velvety'];

/** `record` with a novel word added to its title and to each arrangement's style, instrumentation and moods. */
function reworded(record: WorkRecord, pick: number): WorkRecord {
  const r = structuredClone(record);
  const novel = (k: number) => NOVEL[(pick + k) % NOVEL.length]!;
  r.title = `${r.title} ${novel(0)}`;
  r.arrangements.forEach((a, k) => {
    a.style = `${a.style}, ${novel(k + 1)}`;
    a.instrumentation = `${a.instrumentation} and ${novel(k + 2)}`;
    a.moods = [...a.moods, novel(k + 3)];
  });
  return r;
}

/** Composers no generated work has, sorting before and after every generated one. */
const MOVED = [
  { name: 'Anna Aardvark', sortName: 'Aardvark, Anna' },
  { name: 'Zoe Zyzzyva', sortName: 'Zyzzyva, Zoe' },
];

type Step =
  | { kind: 'edit'; target: number; donor: number; fields: number }
  | { kind: 'reword'; target: number; pick: number }
  | { kind: 'move'; target: number; last: boolean }
  | { kind: 'add'; spare: number }
  | { kind: 'remove'; target: number };

/** The catalog after `steps`: every current record, and the added or changed ones. */
function apply(steps: Step[]) {
  return applySteps(f, steps, (record, s) => {
    if (s.kind === 'edit') return edited(record, f.baseRecords[s.donor % f.baseRecords.length]!, s.fields);
    if (s.kind === 'reword') return reworded(record, s.pick);
    if (s.kind !== 'move') throw new Error(`not a rewriting step: ${s.kind}`);
    // First or last in listing order, under a composer only the overlay's words hold.
    const r = structuredClone(record);
    r.composer = { ...r.composer, ...MOVED[s.last ? 1 : 0]!, aliases: [] };
    return r;
  });
}

const genresOf = (rs: WorkRecord[]) => JSON.stringify([...new Set(rs.flatMap((r) => [r.genre, r.period]))].sort());
const baseGenres = genresOf(f.baseRecords);

/**
 * The two overlays of a change, through their files, or null when the meaning vocabulary changed
 * (a new genre or period, or the last work of one removed): then a build merges instead of laying.
 */
function overlaysOf(current: Map<string, WorkRecord>, changed: Map<string, WorkRecord>) {
  const { overlay, vocabularyChanges } = buildResolveOverlay({
    meaning: f.base.meaning,
    profiles: f.profiles,
    instruments: f.instruments,
    changed: [...changed.values()],
  });
  if (vocabularyChanges.length > 0 || genresOf([...current.values()]) !== baseGenres) return null;
  const works = worksOverlayOf(f, current, changed);
  return {
    rows: decodeResolveOverlay(encodeResolveOverlay(overlay)),
    works: decodeWorksOverlay(encodeWorksOverlay(works)),
  };
}

const layerOf = (works: WorksOverlay, rows: ResolveOverlay) =>
  layerResolveCatalog(f.loadedBase, works, rows, new Map(f.profiles.map((p) => [p.slug, p])));

type Requirements = MusicResolveInput['requirements'];

function body(
  role: MusicRole,
  requirements: Partial<Requirements> = {},
  narrationPresent = false,
  named: Pick<MusicResolveInput, 'workSlug' | 'title' | 'composer'> = {},
): MusicResolveInput {
  return {
    ...named,
    channel: { channelKey: 'layer-test', intendedRole: role, narrationPresent },
    requirements: { requiredFormats: ['mp3'], ...requirements } as Requirements,
  };
}

const BASE_WORDS = ['calm', 'piano', 'strings', 'harpsichord', 'bright', 'warm', 'organ', 'solemn', 'tender', 'zzzz'];
const FORMATS = [[], ['mp3'], ['musicxml'], ['wav', 'mp3'], ['mp3', 'musicxml'], ['flac']];

/** The requests compared in one run: words, titles and slugs taken from the changed and the untouched works. */
function requestsOf(current: Map<string, WorkRecord>, changed: Map<string, WorkRecord>, seed: number) {
  const rand = rng(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const changedRecords = [...changed.values()];
  const untouched = [...current.values()].filter((r) => !changed.has(r.slug));
  const removed = f.baseRecords.filter((r) => !current.has(r.slug));
  const edits = changedRecords.filter((r) => f.baseSlugs.has(r.slug));
  const added = changedRecords.filter((r) => !f.baseSlugs.has(r.slug));
  const arrangements = changedRecords.flatMap((r) => r.arrangements);
  const fieldWords = (of: (a: WorkRecord['arrangements'][number]) => string) => [
    ...new Set(arrangements.flatMap((a) => words(of(a)))),
  ];
  // Words of the changed arrangements (the novel ones among them only the overlay holds).
  const overlayWords = {
    style: fieldWords((a) => a.style),
    instrumentation: fieldWords((a) => a.instrumentation),
    mood: fieldWords((a) => a.moods.join(' ')),
  };
  const text = (field: keyof typeof overlayWords) => {
    const from = overlayWords[field].length > 0 && rand() < 0.7 ? overlayWords[field] : BASE_WORDS;
    return Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(from)).join(' ');
  };
  const rich = (): Partial<Requirements> => {
    const r: Partial<Requirements> = { requiredFormats: pick(FORMATS) };
    if (rand() < 0.6) r.style = text('style');
    if (rand() < 0.5) r.mood = text('mood');
    if (rand() < 0.4) r.instrumentation = text('instrumentation');
    if (rand() < 0.4) r.targetDurationSeconds = pick([5, 15, 30, 60, 120, 600]);
    if (rand() < 0.2) r.requireMusicXml = true;
    if (rand() < 0.2) r.requireApprovedRenderingProfile = true;
    return r;
  };
  const role = () => pick(MUSIC_ROLES);
  const narration = () => rand() < 0.3;

  const catalogWide: MusicResolveInput[] = [
    ...MUSIC_ROLES.map((r) => body(r, { requiredFormats: pick(FORMATS) }, narration())),
    ...MUSIC_ROLES.map((r) => body(r, rich(), narration())),
    ...Array.from({ length: 4 }, () => body(role(), rich(), narration())),
    body('music-bed', { requiredFormats: ['musicxml'], requireMusicXml: true, requireApprovedRenderingProfile: true }),
    body('music-lead', { requiredFormats: ['wav', 'mp3'], targetDurationSeconds: 60 }, true),
  ];
  const slugs = [
    ...edits.slice(0, 2).map((r) => r.slug),
    ...added.slice(0, 1).map((r) => r.slug),
    ...removed.slice(0, 2).map((r) => r.slug),
    pick(untouched).slug,
    'no-such-work',
  ];
  const byTitle = (r: WorkRecord) => pick([r.title, words(r.title).slice(0, 2).join(' '), words(r.title).at(-1)!]);
  const named: MusicResolveInput[] = [
    ...slugs.map((slug) => body(role(), rich(), narration(), { workSlug: slug })),
    ...changedRecords.slice(0, 3).map((r) => body(role(), rich(), narration(), { title: byTitle(r) })),
    ...untouched.slice(0, 2).map((r) => body(role(), rich(), narration(), { title: byTitle(r) })),
    ...removed.slice(0, 1).map((r) => body(role(), rich(), narration(), { title: r.title })),
    body(role(), rich(), narration(), { composer: pick(MOVED).name }),
    body(role(), rich(), narration(), { composer: pick(MOVED).sortName, title: pick(['major', 'minor']) }),
    // A common word: many works, base and overlay ones merged in listing order, more than the 20 listed.
    body(role(), rich(), narration(), { title: pick(['major', 'minor', 'no']) }),
    body(role(), rich(), narration(), { composer: pick([...changedRecords, ...untouched]).composer.name }),
    body(role(), rich(), narration(), {
      title: words(pick(untouched).title)[0]!,
      composer: pick([...changedRecords, ...untouched]).composer.name,
    }),
    body(role(), rich(), narration(), { title: pick(NOVEL) }),
  ];
  return { catalogWide, named, removed, edits, added, untouched };
}

/** The answer less what depends on scan order: how many were judged one by one, and the note saying so. */
function comparable(r: ResolveResult) {
  // A copy of the answer and its search only (the rest is compared as it is, never changed).
  const { arrangementsJudged: _judged, note: _note, ...search } = r.search;
  return { ...r, search };
}

/** Sound whatever was judged: at most ten live candidates, each the current record's arrangement. */
function wellFormed(r: ResolveResult, current: Map<string, WorkRecord>, limits: ResolveLimits) {
  expect(r.candidates.length).toBeLessThanOrEqual(10);
  expect(r.search.arrangementsJudged).toBeLessThanOrEqual(limits.maxJudged);
  expect(r.search.arrangementsJudged).toBeLessThanOrEqual(r.search.arrangementsEvaluated);
  if (r.verdict !== 'no-music') expect(r.verdict).toBe(r.candidates[0]?.ready ? 'reuse' : 'prepare');
  // Each candidate as the current records say it should read (one comparison: this runs thousands of times).
  const asRecorded = r.candidates.map((c, k) => {
    const record = current.get(c.workSlug);
    const a = record?.arrangements.find((x) => x.id === c.arrangementId);
    return { position: k + 1, workSlug: record?.slug, arrangementTitle: a?.title, workTitle: record?.title };
  });
  expect(
    r.candidates.map((c) => ({
      position: c.position,
      workSlug: c.workSlug,
      arrangementTitle: c.arrangementTitle,
      workTitle: c.workTitle,
    })),
  ).toEqual(asRecorded);
}

const BOUNDS: ResolveLimits[] = [
  { maxJudged: 5, countBudget: 3 },
  { maxJudged: 25, countBudget: 3 },
];

describe('a layered resolve catalog', () => {
  it(
    'answers as a fresh resolve catalog of the changed catalog, but for the count judged one by one',
    () => {
      let compared = 0;
      let requests = 0;
      let overlayCandidates = 0;
      let boundedComplete = 0;
      let boundedIncomplete = 0;
      const step: fc.Arbitrary<Step> = fc.oneof(
        fc.record({
          kind: fc.constant('edit' as const),
          target: fc.nat(),
          donor: fc.nat(),
          fields: fc.integer({ min: 1, max: 63 }),
        }),
        fc.record({ kind: fc.constant('reword' as const), target: fc.nat(), pick: fc.nat() }),
        fc.record({ kind: fc.constant('move' as const), target: fc.nat(), last: fc.boolean() }),
        fc.record({ kind: fc.constant('add' as const), spare: fc.nat() }),
        fc.record({ kind: fc.constant('remove' as const), target: fc.nat() }),
      );
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), fc.nat(), (steps, seed) => {
          const { current, changed } = apply(steps);
          const overlays = overlaysOf(current, changed);
          if (!overlays) return;
          const list = [...current.values()];
          const fresh = buildResolveCatalog(list, f.profiles, f.instruments);
          const layered = layerOf(overlays.works, overlays.rows);
          const records = (order: number) => current.get(layered.works.slugs.at(order))!;
          const q = requestsOf(current, changed, seed);

          // The layered slugs: live works only, changed and added ones under the overlay's ids.
          const layer = layered.layer!;
          expect(layer.baseWorks).toBe(f.loadedBase.works.count);
          for (const r of q.removed) expect(layered.works.slugs.indexOf(r.slug)).toBe(-1);
          for (const slug of changed.keys()) {
            const id = layered.works.slugs.indexOf(slug);
            expect(id).toBeGreaterThanOrEqual(layer.baseWorks);
            expect(layered.works.slugs.at(id)).toBe(slug);
          }
          for (const r of q.untouched)
            expect(layered.works.slugs.indexOf(r.slug)).toBe(f.loadedBase.works.slugs.indexOf(r.slug));
          expect(layered.works.slugs.count).toBe(list.length);
          expect(Array.from(layered.works.slugs.bySlug, (id) => layered.works.slugs.at(id))).toEqual(
            [...current.keys()].sort(),
          );
          // The first slug without the merge (the contribution template's fallback work).
          expect(layered.works.slugs.at(layered.works.slugs.first()!)).toBe([...current.keys()].sort()[0]);
          expect(liveWorks(layered)).toBe(list.length);
          expect(liveWorks(fresh)).toBe(list.length);

          for (const input of [
            ...q.catalogWide,
            ...q.named,
            { ...q.catalogWide[0]!, channel: { ...q.catalogWide[0]!.channel, musicAllowed: false } },
          ]) {
            const want = resolveMusic(fresh, input, ctx);
            const got = resolveMusic(layered, input, ctx, records);
            expect(comparable(got), JSON.stringify(input)).toEqual(comparable(want));
            // Named works are judged in listing order in both: even the note agrees.
            if (input.workSlug || input.title || input.composer) expect(got.search.note).toBe(want.search.note);
            wellFormed(got, current, { maxJudged: 2000, countBudget: 1000 });
            if (got.candidates.some((c) => changed.has(c.workSlug))) overlayCandidates++;
            requests++;
          }

          // Small per-request bounds: named works are judged in the same order, so they agree in
          // full; catalog-wide, the candidates agree whenever both rankings are complete (a full
          // ranking judges 10 to about 160 of this catalog's arrangements, so under 25 some are).
          const bounded = [
            ...q.named.slice(0, 3),
            ...q.named.slice(-4),
            ...q.catalogWide.filter((_, k) => k % 3 === 0),
          ];
          for (const limits of BOUNDS) {
            for (const input of bounded) {
              const want = resolveMusic(fresh, input, ctx, undefined, limits);
              const got = resolveMusic(layered, input, ctx, records, limits);
              wellFormed(want, current, limits);
              wellFormed(got, current, limits);
              const label = `${JSON.stringify(limits)} ${JSON.stringify(input)}`;
              if (input.workSlug || input.title || input.composer) {
                expect(got, label).toEqual(want);
              } else if (got.search.rankingComplete && want.search.rankingComplete) {
                boundedComplete++;
                expect(got.candidates, label).toEqual(want.candidates);
                expect(got.verdict).toBe(want.verdict);
                expect(got.missing, label).toEqual(want.missing);
                expect(got.search.matchedWorks).toBe(want.search.matchedWorks);
                expect(got.search.workSlugs).toEqual(want.search.workSlugs);
                expect(got.search.arrangementsEvaluated).toBe(want.search.arrangementsEvaluated);
                if (got.search.readyCountComplete && want.search.readyCountComplete) {
                  expect(got.search.readyCount).toBe(want.search.readyCount);
                  expect(got.summary).toBe(want.summary);
                }
              } else boundedIncomplete++;
            }
          }
          compared++;
        }),
        {
          numRuns: 40,
          // Removals only (an empty overlay of rows), additions only, and many works changed.
          examples: [
            [[{ kind: 'remove', target: 5 }], 1],
            [
              [
                { kind: 'add', spare: 1 },
                { kind: 'add', spare: 2 },
              ],
              2,
            ],
            [
              Array.from({ length: 60 }, (_, k): Step =>
                k % 2 ? { kind: 'reword', target: k * 7, pick: k } : { kind: 'move', target: k * 7, last: k % 4 === 0 },
              ),
              3,
            ],
          ],
        },
      );
      // Most runs keep every genre and period, so they reach the comparisons.
      expect(compared).toBeGreaterThan(20);
      expect(requests).toBeGreaterThan(compared * 30);
      // The overlay's works do rank among the candidates; bounded catalog-wide scans both complete and stop.
      expect(overlayCandidates).toBeGreaterThan(compared);
      expect(boundedComplete).toBeGreaterThan(compared);
      expect(boundedIncomplete).toBeGreaterThan(compared);
    },
    PROPERTY_BACKSTOP_MS,
  );
});

describe('laying overlays that do not fit the base', () => {
  // Two base works edited (one reworded), one added, one removed.
  const { current, changed } = apply([
    { kind: 'edit', target: 10, donor: 200, fields: 8 },
    { kind: 'reword', target: 40, pick: 1 },
    { kind: 'add', spare: 3 },
    { kind: 'remove', target: 70 },
  ]);
  const overlays = overlaysOf(current, changed)!;
  const edit = [...changed.keys()].find((slug) => f.baseSlugs.has(slug))!;

  it('is refused, naming what does not fit', () => {
    expect(overlays).not.toBeNull();
    const { works, rows } = overlays;
    expect(() => layerOf(works, rows)).not.toThrow();
    expect(() => layerOf({ ...works, base: { ...works.base, count: works.base.count + 1 } }, rows)).toThrow(
      ResolveLayerError,
    );
    expect(() => layerOf(works, { works: rows.works.slice(1) })).toThrow(ResolveLayerError);
    expect(() => layerOf(works, { works: rows.works.slice(1) })).toThrow(/do not hold the same works/);
    const id = f.loadedBase.works.slugs.indexOf(edit);
    expect(works.tombstones).toContain(id);
    const untombed = { ...works, tombstones: works.tombstones.filter((t) => t !== id) };
    expect(() => layerOf(untombed, rows)).toThrow(ResolveLayerError);
    expect(() => layerOf(untombed, rows)).toThrow(/without a tombstone/);
    expect(() => layerOf({ ...works, tombstones: [...works.tombstones, f.loadedBase.works.count] }, rows)).toThrow(
      ResolveLayerError,
    );
    expect(() => layerResolveCatalog(layerOf(works, rows), works, rows)).toThrow(/itself layered/);
  });

  it('is never written as a resolve index', () => {
    const layered: ResolveCatalog = layerOf(overlays.works, overlays.rows);
    expect(() => encodeResolveCatalog(layered)).toThrow(/layered catalog is not written/);
  });
});
