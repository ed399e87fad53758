/**
 * Matching requirement words by meaning, and honest order and fit (pure domain over the shipped
 * sample catalog): whole words only, word forms, synonyms (the archive's own and WordNet's),
 * broader terms, each reason saying how a word matched and naming the words that matched
 * nothing; the loop repeat limit per role; a shown score that never rises down the list; a
 * prepare summary that names the failed preference.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { resolveMusic } from '../../src/domain/resolve/resolve.ts';
import { compactResolve } from '../../src/domain/resolve/compact.ts';
import { baseForms } from '../../src/domain/vocabulary/stem.ts';
import { vocabularyWarnings } from '../../src/domain/vocabulary/meaning.ts';
import { lintContent } from '../../src/domain/content-lint.ts';
import { MAX_LOOP_REPEATS } from '../../src/domain/audio/arrangement.ts';
import type { MusicRole } from '../../src/schemas/common.ts';
import type { MusicResolveInput, ResolveResult } from '../../src/schemas/resolve.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { expectEach } from '../helpers/expect-each.ts';
import { catalogRecords } from '../helpers/resolve-fixture.ts';

const BASE = 'https://meaning.example.test';
const { records: SAMPLE, profiles: PROFILES, instruments: INSTRUMENTS } = catalogRecords(BASE);
const catalog = buildResolveCatalog(SAMPLE, PROFILES, INSTRUMENTS);

function resolve(
  role: MusicRole,
  requirements: Partial<MusicResolveInput['requirements']>,
  extra: Partial<MusicResolveInput> = {},
): ResolveResult {
  return resolveMusic(
    catalog,
    {
      ...extra,
      channel: { channelKey: 'meaning', intendedRole: role },
      requirements: { requiredFormats: [], ...requirements },
    },
    { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' },
  );
}

const reasonOf = (r: ResolveResult, k: number, requirement: string) =>
  r.candidates[k]!.reasons.find((x) => x.requirement === requirement)!;

describe('matching by meaning', () => {
  it.each([
    ['mood', 'restful', 'calm', 'synonym of "calm"'],
    ['mood', 'gloomy', 'melancholy', 'synonym of "somber"'],
    ['mood', 'merry', 'bright', 'synonym of "joyful"'],
  ] as const)('%s "%s" finds %s music, and the reason says how', (field, word, mood, how) => {
    const r = resolve('music-bed', { [field]: word });
    const fitting = r.candidates.filter((c) => c.reasons.find((x) => x.requirement === field)!.passed);
    expect(fitting.length, r.summary).toBeGreaterThan(0);
    expect(fitting.some((c) => c.moods.includes(mood) || c.moods.some((m) => m !== mood))).toBe(true);
    expect(reasonOf(r, 0, field).passed).toBe(true);
    expect(reasonOf(r, 0, field).detail).toContain(`"${word}": ${how}`);
  });

  it('"restful" finds the same ready calm beds as "calm"', () => {
    const ready = (r: ResolveResult) =>
      r.candidates.filter((c) => c.ready).map((c) => `${c.workSlug}#${c.arrangementId}`);
    const calm = resolve('music-bed', { mood: 'calm' });
    const restful = resolve('music-bed', { mood: 'restful' });
    expect(restful.verdict).toBe('reuse');
    expect(ready(restful)).toEqual(ready(calm));
    expect(reasonOf(calm, 0, 'mood').detail).toContain('"calm": exact');
  });

  it('"keys" finds piano arrangements through the keyboard family', () => {
    const r = resolve('music-bed', { instrumentation: 'keys' });
    expect(r.verdict).toBe('reuse');
    const piano = r.candidates.find((c) => c.instrumentation === 'Piano')!;
    expect(piano).toBeDefined();
    const detail = piano.reasons.find((x) => x.requirement === 'instrumentation')!.detail;
    expect(detail).toMatch(/synonym of "keyboard", the broader term of "piano"/);
  });

  it('a broader term finds the narrower one ("calm" finds "serene")', () => {
    const r = resolve('music-bed', { mood: 'calm' }, { workSlug: 'bach-air-orchestral-suite-3' });
    const serene = r.candidates.find((c) => c.moods.includes('serene') && !c.moods.includes('calm'))!;
    const reason = serene.reasons.find((x) => x.requirement === 'mood')!;
    expect(reason.passed).toBe(true);
    expect(reason.detail).toContain('"calm": broader term of "serene"');
  });

  it('word forms match ("calming", "calmer"), never a word inside another ("lo" in "solo")', () => {
    expect(reasonOf(resolve('music-bed', { mood: 'calming' }), 0, 'mood').detail).toContain(
      '"calming": word form of "calm"',
    );
    expect(resolve('music-bed', { mood: 'calmer' }).verdict).toBe('reuse');
    const lofi = resolve('music-bed', { style: 'lo-fi' });
    for (const c of lofi.candidates) {
      const reason = c.reasons.find((x) => x.requirement === 'style')!;
      expect(reason.passed, `${c.workSlug}#${c.arrangementId}: ${c.style}`).toBe(false);
      expect(reason.detail).toContain('no match for "lo", "fi"');
    }
    expect(lofi.candidates.some((c) => /solo/.test(c.style))).toBe(true);
  });

  it('a word ending in -ous or -ss is matched as sent, plurals by their base form', () => {
    const records = structuredClone(SAMPLE);
    records.find((w) => w.slug === 'satie-gymnopedie-1')!.arrangements[0]!.moods = ['vaporous'];
    const own = buildResolveCatalog(records, PROFILES, INSTRUMENTS);
    const r = resolveMusic(
      own,
      {
        workSlug: 'satie-gymnopedie-1',
        channel: { channelKey: 'm', intendedRole: 'music-bed' },
        requirements: { requiredFormats: [], mood: 'vaporous' },
      },
      { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' },
    );
    const c = r.candidates.find((x) => x.moods.includes('vaporous'))!;
    expect(c.reasons.find((x) => x.requirement === 'mood')!.detail).toContain('"vaporous": exact');
    expect(reasonOf(resolve('music-bed', { instrumentation: 'pianos' }), 0, 'instrumentation').passed).toBe(true);
  });

  it('a word that means nothing matches nothing, and is named so the caller can rephrase', () => {
    const r = resolve('music-bed', { mood: 'calm zzyzx' });
    const d = reasonOf(r, 0, 'mood').detail;
    expect(d).toContain('1 of 2 word(s) match');
    expect(d).toContain('no match for "zzyzx"');
    expectEach(
      resolve('music-bed', { mood: 'zzyzx' }).candidates,
      (c) => !c.reasons.find((x) => x.requirement === 'mood')!.passed,
    );
  });

  it('the vocabulary carries WordNet synonyms mapped onto the terms, and base forms are conservative', () => {
    const doc = catalog.meaning.document();
    const calm = doc.facets.mood.find((t) => t.term === 'calm')!;
    expect(calm.synonyms).toEqual(expect.arrayContaining(['restful', 'tranquil', 'unagitated']));
    expect(calm.related).toEqual(expect.arrayContaining(['placid']));
    expect(doc.facets.mood.find((t) => t.term === 'serene')!.broader).toBe('calm');
    expect(doc.facets.instrumentation.find((t) => t.term === 'piano')!.broader).toBe('keyboard');
    expect(doc.facets.instrumentation.find((t) => t.term === 'keyboard')!.synonyms).toContain('keys');
    expect(doc.facets.instrumentation.find((t) => t.term === 'violin')!.synonyms).toContain('fiddle');
    expect(doc.facets.mood.find((t) => t.term === 'joyful')!.synonyms).toContain('merry');
    expect(baseForms('strings')).toContain('string');
    expect(baseForms('string')).toEqual([]);
    expect(baseForms('solo')).toEqual([]);
  });
});

describe('honest order and fit', () => {
  it('a 19 s loop is not ready for a 4-hour sleep lead: 758 repeats, over the role limit', () => {
    const r = resolve('music-sleep-lead', { targetDurationSeconds: 14400 }, { workSlug: 'satie-gymnopedie-1' });
    const loop = r.candidates.find((c) => c.loopable && c.durationSeconds === 19)!;
    expect(loop.fit).toMatchObject({ kind: 'edit', repeats: 758, maxRepeats: MAX_LOOP_REPEATS['music-sleep-lead'] });
    expect(loop.ready).toBe(false);
    const reason = loop.reasons.find((x) => x.requirement === 'duration')!;
    expect(reason.passed).toBe(false);
    expect(reason.detail).toContain('would play 758 times, more than the 30 repeats allowed for music-sleep-lead');
    // Within the limit the same loop is ready, and its repeats are in fit.
    const short = resolve('music-sleep-lead', { targetDurationSeconds: 300 }, { workSlug: 'satie-gymnopedie-1' });
    const ok = short.candidates.find((c) => c.arrangementId === loop.arrangementId)!;
    expect(ok.fit).toMatchObject({ kind: 'loop', repeats: 16 });
    expect(ok.ready).toBe(true);
  });

  it.each<[MusicRole, Partial<MusicResolveInput['requirements']>]>([
    ['music-bed', {}],
    ['music-bed', { mood: 'restful' }],
    ['music-bed', { style: 'lo-fi' }],
    ['music-sleep-lead', { targetDurationSeconds: 14400 }],
    ['intro', { requiredFormats: ['mp3', 'musicxml'], mood: 'bright' }],
    ['music-lead', { instrumentation: 'harpsichord', targetDurationSeconds: 30 }],
  ])('%s %j: the shown score never rises down the list', (role, req) => {
    const scores = resolve(role, req).candidates.map((c) => c.score);
    for (let k = 1; k < scores.length; k++) expect(scores[k], scores.join(', ')).toBeLessThanOrEqual(scores[k - 1]!);
    const r = resolve(role, req);
    for (const c of r.candidates) if (c.ready) expect(c.score).toBeGreaterThanOrEqual(60);
    for (const c of r.candidates) if (!c.ready) expect(c.score).toBeLessThan(60);
  });

  it('a prepare summary names the failed preference when cleared candidates fail only it', () => {
    const r = resolve('music-bed', { style: 'lo-fi' });
    expect(r.verdict).toBe('prepare');
    expect(r.summary).not.toMatch(/^Nothing is ready/);
    expect(r.summary).toMatch(/fail only the preference style "lo-fi"/);
    const sleep = resolve('music-sleep-lead', { targetDurationSeconds: 14400 });
    expect(sleep.summary).toMatch(/preference duration 14400 s/);
  });
});

describe('the compact answer', () => {
  it('a catalog-wide answer with ten candidates is at most 8,000 bytes and keeps the order and verdict', () => {
    const full = resolve('music-bed', { mood: 'calm', targetDurationSeconds: 60, requiredFormats: ['mp3'] });
    expect(full.candidates).toHaveLength(10);
    const compact = compactResolve(full, {
      full: `${BASE}/api/v1/music/resolve/answers/${'0'.repeat(32)}`,
      vocabulary: `${BASE}/api/v1/music/vocabulary`,
    });
    const bytes = Buffer.byteLength(
      JSON.stringify({ apiVersion: 'v1', generatedAtUtc: '2026-11-26T00:00:00.000Z', data: compact }),
    );
    expect(bytes).toBeLessThanOrEqual(8000);
    expect(compact.verdict).toBe(full.verdict);
    expect(compact.candidates.map((c) => `${c.workSlug}#${c.arrangementId}`)).toEqual(
      full.candidates.map((c) => `${c.workSlug}#${c.arrangementId}`),
    );
    for (const [k, c] of compact.candidates.entries()) {
      expect(c.failing.length === 0).toBe(full.candidates[k]!.ready);
      expect(c.rights).toContain(full.candidates[k]!.rights.edition.status);
    }
  });

  it('stays within 8,000 bytes when every candidate fails many checks (reasons are cut to fit)', () => {
    const full = resolve('music-bed', {
      requiredFormats: ['wav', 'mp3', 'musicxml', 'flac', 'midi', 'pdf'],
      requireApprovedRenderingProfile: true,
      requireMusicXml: true,
      style: 'lo-fi chillhop vaporwave',
      mood: 'zzyzx gloomy',
      instrumentation: 'theremin kazoo',
      targetDurationSeconds: 7000,
    });
    expect(full.candidates).toHaveLength(10);
    const compact = compactResolve(full, { full: null, vocabulary: `${BASE}/api/v1/music/vocabulary` });
    expect(
      Buffer.byteLength(
        JSON.stringify({ apiVersion: 'v1', generatedAtUtc: '2026-11-26T00:00:00.000Z', data: compact }),
      ),
    ).toBeLessThanOrEqual(8000);
    for (const c of compact.candidates) expect(c.failing.length).toBeGreaterThan(0);
  });
});

describe('vocabulary warnings', () => {
  it('the content lint warns about a mood outside the vocabulary, with the nearest terms, and does not fail', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-vocab-lint-'));
    try {
      cpSync(path.resolve(import.meta.dirname, '..', '..', 'content'), dir, { recursive: true });
      const file = path.join(dir, 'works', 'satie-gymnopedie-1', 'index.md');
      writeFileSync(file, readFileSync(file, 'utf8').replace('      - melancholy\n', '      - calmm\n'));
      const clean = lintContent(path.resolve(import.meta.dirname, '..', '..', 'content'));
      expect(clean.warnings).toEqual([]);
      const result = lintContent(dir);
      expect(result.messages).toEqual([]);
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toMatchObject({
        file: 'works/satie-gymnopedie-1/index.md',
        pointer: expect.stringMatching(/^\/arrangements\/\d+\/moods\/\d+$/),
      });
      expect(result.warnings[0]!.message).toMatch(/"calmm" is not a mood term of the vocabulary .*nearest: calm/);
      expect(result.warnings[0]!.line).toBeGreaterThan(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('known moods, styles and instrumentation raise nothing; unknown ones name the nearest terms', () => {
    const m = catalog.meaning;
    expect(
      vocabularyWarnings(
        m,
        { moods: ['calm', 'restful'], style: 'solo piano, tender', instrumentation: 'Violin and cello' },
        '/a',
      ),
    ).toEqual([]);
    const w = vocabularyWarnings(m, { moods: ['chillwave'], style: 'lo-fi', instrumentation: 'theremin' }, '/a');
    expect(w.map((x) => x.pointer)).toEqual(['/a/moods/0', '/a/style', '/a/instrumentation']);
    for (const x of w) expect(x.nearest.length).toBeGreaterThan(0);
  });
});
