/**
 * The catalog-wide resolve scan is branch and bound (src/domain/resolve/resolve.ts, scanCatalog):
 * over 2,000 generated works, built into records and the resolve index by the domain code as the
 * build builds them, its ten candidates are exactly the best ten of a full scan that judges every
 * arrangement of the role and sorts them all, for many requests; readyCount is exact whenever the
 * answer says so; the bound classes survive the index round trip (and are derived the same from
 * an index written without them); and no request judges more arrangements than its bound.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildResolveCatalog,
  decodeResolveCatalog,
  encodeResolveCatalog,
  type ResolveCatalog,
} from '../../src/domain/resolve/catalog.ts';
import { KEY_READY, compileRequest, judge, textMasksOf } from '../../src/domain/resolve/evaluate.ts';
import { compareRanked } from '../../src/domain/resolve/rank.ts';
import { RESOLVE_LIMITS, planResolve, resolveMusic, type ResolveLimits } from '../../src/domain/resolve/resolve.ts';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import { profileHead } from '../../src/domain/catalog-index/profiles.ts';
import { generateCatalog, rng } from '../../scripts/generate-catalog.ts';
import { MUSIC_ROLES, type MusicRole } from '../../src/schemas/common.ts';
import type { MusicResolveInput } from '../../src/schemas/resolve.ts';
import { words } from '../../src/domain/text.ts';
import { catalogRecords } from '../helpers/resolve-fixture.ts';

const BASE = 'https://resolve-bound.example.test';
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-resolve-bound-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const generated = (() => {
  const content = path.join(root, 'content');
  generateCatalog({ works: 2000, outDir: content, seed: 11 });
  const built = catalogRecords(BASE, content);
  const records = built.records;
  const profiles = built.profiles.map(profileHead);
  const catalog = buildResolveCatalog(records, profiles, built.instruments);
  return { records, profiles, catalog };
})();

type Requirements = MusicResolveInput['requirements'];

function body(role: MusicRole, requirements: Partial<Requirements> = {}, narrationPresent = false): MusicResolveInput {
  return {
    channel: { channelKey: 'bound-test', intendedRole: role, narrationPresent },
    requirements: { requiredFormats: ['mp3'], ...requirements } as Requirements,
  };
}

/** Judge every arrangement of the role and sort them all: the reference. */
function fullScan(catalog: ResolveCatalog, input: MusicResolveInput) {
  const q = compileRequest(catalog, input);
  const lists = catalog.byRole.get(q.role)!;
  const text = { style: 0, instrumentation: 0, mood: 0, grade: 0 };
  const all = [...lists.staticReady, ...lists.rest].map((index) => ({
    index,
    key: judge(catalog, index, q, textMasksOf(catalog, q, index, text), null),
  }));
  all.sort((x, y) => compareRanked(catalog.cols, x.key, x.index, y.key, y.index));
  return { top: all.slice(0, 10), ready: all.filter((x) => x.key & KEY_READY).length, total: all.length };
}

// Words the generated catalog uses (and some it does not), drawn by a seeded generator.
const STYLE = [
  'calm',
  'piano',
  'strings',
  'harpsichord',
  'bright',
  'warm',
  'organ',
  'solo',
  'quartet',
  'zzzz',
  'baroque',
  'romantic',
];
const MOOD = ['calm', 'warm', 'bright', 'dark', 'gentle', 'solemn', 'tender', 'playful', 'qqqq'];
const FORMATS = [[], ['mp3'], ['wav'], ['mp3', 'musicxml'], ['midi'], ['flac'], ['pdf', 'mp3']];

function randomRequests(count: number): MusicResolveInput[] {
  const rand = rng(2026);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const words = (list: string[]) => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(list)).join(' ');
  return Array.from({ length: count }, () => {
    const r: Partial<Requirements> = { requiredFormats: pick(FORMATS) };
    if (rand() < 0.5) r.style = words(STYLE);
    if (rand() < 0.5) r.mood = words(MOOD);
    if (rand() < 0.3) r.instrumentation = words(STYLE);
    if (rand() < 0.4) r.targetDurationSeconds = pick([5, 15, 30, 60, 120, 600]);
    if (rand() < 0.2) r.requireMusicXml = true;
    if (rand() < 0.2) r.requireApprovedRenderingProfile = true;
    return body(pick(MUSIC_ROLES), r, rand() < 0.3);
  });
}

const label = (catalog: ResolveCatalog, x: { index: number; key: number }) =>
  `${catalog.works.slugs.at(catalog.arrangementWork[x.index]!)}#${catalog.cols.id[x.index]}:${x.key}`;

describe('the bounded catalog-wide scan ranks exactly as a full scan (2,000 generated works)', () => {
  const { catalog } = generated;
  const unbounded: ResolveLimits = { maxJudged: Number.MAX_SAFE_INTEGER, countBudget: 0 };
  const requests = [
    ...MUSIC_ROLES.map((role) => body(role, {})),
    body('music-bed', { style: 'calm', mood: 'warm' }),
    body('music-lead', { requiredFormats: [], style: 'piano', targetDurationSeconds: 15 }, true),
    body('outro', { requireApprovedRenderingProfile: true, requireMusicXml: true, instrumentation: 'strings' }),
    body('music-bed', {
      requiredFormats: ['wav', 'flac'],
      style: 'zzz qqq',
      mood: 'calm warm bright dark',
      targetDurationSeconds: 3,
    }),
    ...randomRequests(60),
  ];

  it('the same ten candidates, in the same order, for every request; readyCount exact when it says so', () => {
    let pruned = 0;
    for (const input of requests) {
      const full = fullScan(catalog, input);
      const want = full.top.map((x) => label(catalog, x));
      // The ranking proof alone (no counting, no hard bound): exactly the best ten.
      const bare = planResolve(catalog, input, unbounded);
      if (!bare.musicAllowed) throw new Error('music is allowed');
      expect(
        bare.scan.top.map((x) => label(catalog, x)),
        JSON.stringify(input),
      ).toEqual(want);
      expect(bare.scan.rankingComplete).toBe(true);
      expect(bare.scan.evaluated).toBe(full.total);
      if (bare.scan.judged < full.total) pruned++;
      // The served limits: the same ten whenever the ranking is complete, and readyCount exact when complete.
      const served = planResolve(catalog, input);
      if (!served.musicAllowed) throw new Error('music is allowed');
      expect(served.scan.judged).toBeLessThanOrEqual(RESOLVE_LIMITS.maxJudged);
      if (served.scan.rankingComplete) expect(served.scan.top.map((x) => label(catalog, x))).toEqual(want);
      if (served.scan.readyCountComplete) expect(served.scan.readyCount, JSON.stringify(input)).toBe(full.ready);
      else expect(served.scan.readyCount).toBeLessThanOrEqual(full.ready);
    }
    // The bound does prune: most requests judge fewer arrangements than the role has.
    expect(pruned).toBeGreaterThan(requests.length / 2);
  });

  it('the answer says how complete it is', () => {
    const r = resolveMusic(catalog, body('music-bed', { style: 'calm' }), {
      baseUrl: BASE,
      catalogGeneratedAtUtc: '2026-01-01T00:00:00Z',
    });
    expect(r.search.rankingComplete).toBe(true);
    expect(r.search.arrangementsJudged).toBeLessThanOrEqual(r.search.arrangementsEvaluated);
    expect(r.search.arrangementsEvaluated).toBe(
      catalog.byRole.get('music-bed')!.staticReady.length + catalog.byRole.get('music-bed')!.rest.length,
    );
    expect(r.search.note).toContain(`${r.search.arrangementsJudged} judged one by one`);
  });
});

describe('the per-request bound', () => {
  const { catalog } = generated;
  // Nothing is ready: a format the archive does not store, words no arrangement has, a duration nothing fits.
  const nothingReady = body('music-bed', {
    requiredFormats: ['flac'],
    style: 'zzzz',
    mood: 'qqqq',
    targetDurationSeconds: 1,
  });

  it('a body for which nothing is ready judges no more than the bound, and says so', () => {
    expect(fullScan(catalog, nothingReady).ready).toBe(0);
    const limits: ResolveLimits = { maxJudged: 50, countBudget: 20 };
    const r = resolveMusic(
      catalog,
      nothingReady,
      { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' },
      undefined,
      limits,
    );
    expect(r.search.arrangementsJudged).toBe(50);
    expect(r.search.rankingComplete).toBe(false);
    expect(r.search.readyCountComplete).toBe(false);
    expect(r.search.note).toContain('per-request bound of 50 judged arrangements');
    expect(r.search.note).toContain('rankingComplete: false');
    expect(r.candidates).toHaveLength(10);
    expect(r.verdict).toBe('prepare');
  });

  it('with the served limits too, whatever the body', () => {
    for (const input of [nothingReady, ...randomRequests(20)]) {
      const plan = planResolve(catalog, input);
      if (!plan.musicAllowed) throw new Error('music is allowed');
      expect(plan.scan.judged).toBeLessThanOrEqual(RESOLVE_LIMITS.maxJudged);
    }
  });

  it('a title naming many works judges no more than the bound either, and still counts every work it names', () => {
    // The most common title word of the generated catalog.
    const counts = new Map<string, number>();
    for (const r of generated.records)
      for (const w of new Set(words(r.title))) if (w.length > 2) counts.set(w, (counts.get(w) ?? 0) + 1);
    const [common, works] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    expect(works).toBeGreaterThan(30);
    const limits: ResolveLimits = { maxJudged: 30, countBudget: 10 };
    const r = resolveMusic(
      catalog,
      { ...body('music-bed'), title: common },
      { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' },
      undefined,
      limits,
    );
    expect(r.search.by).toBe('title-composer');
    expect(r.search.matchedWorks).toBeGreaterThanOrEqual(works);
    expect(r.search.workSlugs).toHaveLength(20);
    expect(r.search.arrangementsJudged).toBe(30);
    expect(r.search.rankingComplete).toBe(false);
    expect(r.search.note).toContain('rankingComplete: false');
  });
});

describe('bound classes in the index file', () => {
  const { catalog, profiles } = generated;
  it('survive the round trip, and an index written without them derives the same', () => {
    const bytes = encodeResolveCatalog(catalog);
    const decoded = decodeResolveCatalog(decodeIndex(bytes, 'resolve.idx'), profiles);
    // The same file as an index written before the order sections existed.
    const file = decodeIndex(bytes, 'resolve.idx');
    expect(file.has('role.music-bed.order')).toBe(true);
    const older = decodeResolveCatalog(
      { ...file, has: (name: string) => !/\.(order|classStart)$/.test(name) && file.has(name) },
      profiles,
    );
    for (const role of MUSIC_ROLES) {
      const built = catalog.byRole.get(role)!;
      for (const back of [decoded.byRole.get(role)!, older.byRole.get(role)!]) {
        expect(Array.from(back.order)).toEqual(Array.from(built.order));
        expect(Array.from(back.classStart)).toEqual(Array.from(built.classStart));
      }
      expect([...built.order].sort((a, b) => a - b)).toEqual(
        [...built.staticReady, ...built.rest].sort((a, b) => a - b),
      );
    }
  });
});
