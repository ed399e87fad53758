/**
 * The resolver over the shipped sample catalog (pure domain, no HTTP): the acceptance table of
 * ready and not-ready cases, each requirement failing alone, name forms, ranking and tie-breaks,
 * and the review-state and rights boundaries. Records are built from content exactly as the
 * build builds them; every mutation works on a deep copy and prepares its own catalog.
 */
import { describe, expect, it } from 'vitest';
import { urls } from '../../src/domain/records.ts';
import { resolveLlmsSection, resolveWorkedExample } from '../../src/domain/resolve/guide.ts';
import { buildResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { resolveMusic } from '../../src/domain/resolve/resolve.ts';
import { compileRequest, couldBeReady, evaluate } from '../../src/domain/resolve/evaluate.ts';
import { compareRanked, packKey } from '../../src/domain/resolve/rank.ts';
import { MUSIC_ROLES, type MusicRole } from '../../src/schemas/common.ts';
import type { MusicResolveInput, ResolveResult } from '../../src/schemas/resolve.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { expectEach } from '../helpers/expect-each.ts';
import { catalogRecords } from '../helpers/resolve-fixture.ts';

const BASE = 'https://resolve.example.test';
const { records: SAMPLE, profiles: PROFILES, instruments: INSTRUMENTS } = catalogRecords(BASE);
const sampleCatalog = buildResolveCatalog(SAMPLE, PROFILES, INSTRUMENTS);

const record = (slug: string): WorkRecord => {
  const r = SAMPLE.find((w) => w.slug === slug);
  if (!r) throw new Error(`the sample catalog has no work ${slug}`);
  return r;
};

type Input = Partial<Omit<MusicResolveInput, 'channel' | 'requirements'>> & {
  channel?: Partial<MusicResolveInput['channel']>;
  requirements?: Partial<MusicResolveInput['requirements']>;
};

function request(role: MusicRole, input: Input = {}): MusicResolveInput {
  return {
    ...input,
    channel: { channelKey: 'test-channel', intendedRole: role, ...input.channel },
    requirements: { requiredFormats: ['mp3'], ...input.requirements },
  };
}

function resolve(role: MusicRole, input: Input = {}, records: WorkRecord[] | null = null): ResolveResult {
  const catalog = records ? buildResolveCatalog(records, PROFILES, INSTRUMENTS) : sampleCatalog;
  return resolveMusic(catalog, request(role, input), { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' });
}

/** The sample with one work replaced by a mutated deep copy. */
function withWork(slug: string, mutate: (w: WorkRecord) => void): WorkRecord[] {
  return SAMPLE.map((w) => {
    if (w.slug !== slug) return w;
    const copy = structuredClone(w);
    mutate(copy);
    return copy;
  });
}

const failedOf = (r: ResolveResult, arrangementId: number, slug?: string) => {
  const c = r.candidates.find((x) => x.arrangementId === arrangementId && (slug === undefined || x.workSlug === slug));
  if (!c) throw new Error(`arrangement ${arrangementId} is not among the candidates`);
  return c.reasons.filter((x) => !x.passed).map((x) => x.requirement);
};
const missingOf = (r: ResolveResult) => r.missing.map((m) => [m.what, m.operation, m.arrangementId, m.format]);

// ---------- the acceptance table ----------

/** Arrangements the sample catalog marks ready, with the role each is ready for. */
const READY: Array<[slug: string, arrangementId: number, role: MusicRole]> = [
  ['beethoven-symphony-9-ode-to-joy', 1, 'intro'],
  ['beethoven-fur-elise', 1, 'music-lead'],
  ['mozart-eine-kleine-nachtmusik', 1, 'music-lead'],
  ['mozart-twinkle-variations-k265', 1, 'short-form'],
  ['satie-gymnopedie-1', 1, 'music-ambient'],
  ['pachelbel-canon-in-d', 1, 'music-bed'],
  ['pachelbel-canon-in-d', 2, 'music-bed'],
  ['bach-prelude-in-c-bwv-846', 1, 'music-bed'],
  ['brahms-wiegenlied-op-49-no-4', 1, 'music-sleep-lead'],
  ['dvorak-symphony-9-largo', 1, 'outro'],
];

type Missing = [what: string, operation: string | null, arrangementId: number | null, format: string | null];

/** Not-ready arrangements: a request that isolates each, and exactly what the answer names as missing. */
const NOT_READY: Array<{ slug: string; id: number; role: MusicRole; input?: Input; missing: Missing[]; why: string }> =
  [
    {
      slug: 'beethoven-symphony-9-ode-to-joy',
      id: 2,
      role: 'music-lead',
      missing: [['rights-review', 'metadata-revision', 2, null]],
      why: 'rights-review-required, otherwise perfect',
    },
    {
      slug: 'satie-gymnopedie-1',
      id: 2,
      role: 'music-bed',
      input: { requirements: { instrumentation: 'strings' } },
      missing: [['listening-approval', null, 2, null]],
      why: 'technical pass only',
    },
    {
      slug: 'pachelbel-canon-in-d',
      id: 3,
      role: 'music-bed',
      input: { requirements: { instrumentation: 'piano' } },
      missing: [['format', 'performance', 3, 'mp3']],
      why: 'no mp3',
    },
    {
      slug: 'mozart-twinkle-variations-k265',
      id: 2,
      role: 'music-bed',
      input: { requirements: { requireApprovedRenderingProfile: true } },
      missing: [
        ['approved-rendering-profile', 'rendering-profile', 2, null],
        ['listening-approval', null, 2, null],
      ],
      why: 'candidate profile, human-reviewed only',
    },
    {
      slug: 'brahms-wiegenlied-op-49-no-4',
      id: 2,
      role: 'music-sleep-lead',
      input: { requirements: { instrumentation: 'flute', requireApprovedRenderingProfile: true } },
      missing: [
        ['format', 'performance', 2, 'mp3'],
        ['approved-rendering-profile', 'rendering-profile', 2, null],
        ['listening-approval', null, 2, null],
      ],
      why: 'draft profile, manual review pending, no mp3',
    },
    {
      slug: 'beethoven-fur-elise',
      id: 2,
      role: 'music-lead',
      input: { requirements: { instrumentation: 'harpsichord' } },
      missing: [['format', 'performance', 2, 'mp3']],
      why: 'admin-only mp3',
    },
    {
      slug: 'dvorak-symphony-9-largo',
      id: 2,
      role: 'music-lead',
      missing: [
        ['format', 'performance', 2, 'mp3'],
        ['listening-approval', null, 2, null],
      ],
      why: 'admin-only mp3, manual review pending',
    },
    {
      slug: 'bach-prelude-in-c-bwv-846',
      id: 2,
      role: 'music-bed',
      input: { requirements: { instrumentation: 'piano' } },
      missing: [['format', 'performance', 2, 'mp3']],
      why: 'signed-in mp3',
    },
    {
      slug: 'mozart-eine-kleine-nachtmusik',
      id: 2,
      role: 'outro',
      missing: [
        ['format', 'performance', 2, 'mp3'],
        ['listening-approval', null, 2, null],
      ],
      why: 'pending, no public files',
    },
  ];

/** Planned arrangements (no files) on works without a public score. */
const PLANNED: Array<[slug: string, role: MusicRole]> = [
  ['bach-air-orchestral-suite-3', 'music-bed'],
  ['bach-cello-suite-1-prelude', 'music-bed'],
  ['bach-toccata-and-fugue-d-minor', 'intro'],
  ['beethoven-moonlight-sonata-1', 'music-sleep-lead'],
  ['chopin-nocturne-op-9-no-2', 'music-lead'],
  ['debussy-clair-de-lune', 'music-ambient'],
  ['faure-pavane-op-50', 'music-bed'],
  ['grieg-peer-gynt-morning-mood', 'intro'],
  ['handel-sarabande-hwv-437', 'music-lead'],
  ['joplin-maple-leaf-rag', 'short-form'],
  ['saint-saens-the-swan', 'music-lead'],
  ['vivaldi-four-seasons-spring', 'intro'],
];

/** Works with no arrangement at all. */
const NO_ARRANGEMENTS = [
  'dvorak-humoresque-op-101-no-7',
  'faure-sicilienne-op-78',
  'schubert-ave-maria-d-839',
  'tarrega-recuerdos-de-la-alhambra',
  'tchaikovsky-seasons-june-barcarolle',
];

describe('the acceptance table matches the sample catalog', () => {
  it('lists every arrangement exactly once, and READY is what the records mark ready', () => {
    const listed = [
      ...READY.map(([s, id]) => `${s}#${id}`),
      ...NOT_READY.map((c) => `${c.slug}#${c.id}`),
      ...PLANNED.map(([s]) => `${s}#1`),
    ].sort();
    const all = SAMPLE.flatMap((w) => w.arrangements.map((a) => `${w.slug}#${a.id}`)).sort();
    expect(listed).toEqual(all);
    expect(
      SAMPLE.filter((w) => w.arrangements.length === 0)
        .map((w) => w.slug)
        .sort(),
    ).toEqual(NO_ARRANGEMENTS);
    // Independent reading of the records: listening-approved arrangement with a public, listening-approved
    // mp3, public-domain composition everywhere, nothing under rights review.
    const markedReady = SAMPLE.flatMap((w) =>
      w.arrangements
        .filter(
          (a) =>
            a.reviewState === 'human-listening-approved' &&
            a.assets.some(
              (x) =>
                x.kind === 'mp3' &&
                x.access === 'public' &&
                x.links.download &&
                x.reviewState === 'human-listening-approved',
            ) &&
            w.rights.composition.status === 'public-domain' &&
            Object.values(w.rights.territories).every((t) => t.status === 'public-domain'),
        )
        .map((a) => `${w.slug}#${a.id}:${a.intendedRole}`),
    ).sort();
    expect(markedReady).toEqual(READY.map(([s, id, role]) => `${s}#${id}:${role}`).sort());
  });
});

describe('every ready arrangement resolves to reuse, first', () => {
  const variants: Array<[string, (slug: string, w: WorkRecord) => Input]> = [
    ['by slug, mp3', (slug) => ({ workSlug: slug })],
    [
      'by slug, every format and strict flags',
      (slug) => ({
        workSlug: slug,
        requirements: {
          requiredFormats: ['MP3', 'musicxml', 'midi'],
          requireMusicXml: true,
          requireApprovedRenderingProfile: true,
        },
      }),
    ],
    ['by title', (_s, w) => ({ title: w.title })],
    [
      'by composer sort name and catalog number',
      (_s, w) => ({ composer: w.composer.sortName, title: w.workNumber ?? w.title }),
    ],
  ];
  for (const [slug, id, role] of READY) {
    // Pachelbel #2 is ready, but #1 of the same role ranks above it (editorial rank); it leads when the harpsichord is asked for.
    const input = (base: Input): Input =>
      slug === 'pachelbel-canon-in-d' && id === 2
        ? { ...base, requirements: { ...base.requirements, instrumentation: 'harpsichord' } }
        : base;
    for (const [name, make] of variants) {
      it(`${slug}#${id} for ${role} (${name})`, () => {
        const r = resolve(role, input(make(slug, record(slug))));
        expect(r.verdict).toBe('reuse');
        expect(r.missing).toEqual([]);
        const first = r.candidates[0]!;
        expect([first.workSlug, first.arrangementId, first.ready]).toEqual([slug, id, true]);
        expectEach(first.reasons, (x) => x.passed);
        const mp3 = first.formats.find((f) => f.format === 'mp3')!;
        expect(mp3.download).toMatch(new RegExp(`^${BASE}/works/${slug}/files/.+\\.mp3$`));
        expect(first.assets.find((x) => x.id === mp3.assetId)).toMatchObject({
          kind: 'mp3',
          access: 'public',
          usable: true,
          reviewState: 'human-listening-approved',
        });
        expect(first.license).toBe('CC0-1.0');
        expect(first.rights.territories.EU.note.length).toBeGreaterThan(0);
        expect(first.rights.rightsNote).toBe(record(slug).rightsNote);
        expect(first.links.work).toBe(`${BASE}/api/v1/works/${slug}`);
      });
    }
  }
  it('pachelbel-canon-in-d: #1 before #2 (both ready, equal score: editorial rank), then #3', () => {
    const r = resolve('music-bed', { workSlug: 'pachelbel-canon-in-d' });
    expect(r.candidates.map((c) => [c.arrangementId, c.ready])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(r.candidates[0]!.score).toBe(r.candidates[1]!.score);
  });
});

describe('not-ready arrangements resolve to prepare, naming exactly what is missing', () => {
  for (const c of NOT_READY) {
    it(`${c.slug}#${c.id} for ${c.role}: ${c.why}`, () => {
      const r = resolve(c.role, { workSlug: c.slug, ...c.input });
      expect(r.verdict).toBe('prepare');
      expect([r.candidates[0]!.workSlug, r.candidates[0]!.arrangementId, r.candidates[0]!.ready]).toEqual([
        c.slug,
        c.id,
        false,
      ]);
      expect(missingOf(r)).toEqual(c.missing);
      expectEach(r.missing, (m) => m.workSlug === c.slug);
    });
  }
  for (const [slug, role] of PLANNED) {
    it(`${slug}#1 for ${role}: planned, no files, no public score`, () => {
      const r = resolve(role, { workSlug: slug });
      expect(r.verdict).toBe('prepare');
      expect(missingOf(r)).toEqual([
        ['source-score', 'source-score', null, null],
        ['format', 'performance', 1, 'mp3'],
        ['listening-approval', null, 1, null],
      ]);
    });
  }
  for (const slug of NO_ARRANGEMENTS) {
    it(`${slug}: no arrangement at all`, () => {
      const r = resolve('music-bed', { workSlug: slug });
      expect(r.verdict).toBe('prepare');
      expect(r.candidates).toEqual([]);
      expect(missingOf(r)).toEqual([
        ['source-score', 'source-score', null, null],
        ['arrangement', 'arrangement', null, null],
      ]);
    });
  }
  it('an unknown workSlug is a prepare answer naming new-work, not an error', () => {
    const r = resolve('music-bed', { workSlug: 'no-such-work', title: 'Canon', composer: 'Pachelbel' });
    expect(r.verdict).toBe('prepare');
    expect(r.search.by).toBe('work-slug');
    expect(r.candidates).toEqual([]);
    expect(missingOf(r)).toEqual([['work', 'new-work', null, null]]);
  });
  it('a title nobody wrote is a prepare answer naming new-work', () => {
    const r = resolve('music-bed', { title: 'Symphony No. 10', composer: 'Beethoven' });
    expect(r.search).toMatchObject({ by: 'title-composer', matchedWorks: 0 });
    expect(missingOf(r)).toEqual([['work', 'new-work', null, null]]);
  });
});

describe('each requirement failing alone', () => {
  // Base: Ode to Joy #1 is ready for intro (mp3 required). Each case breaks one thing.
  const ODE = 'beethoven-symphony-9-ode-to-joy';
  const arr = (w: WorkRecord) => w.arrangements.find((a) => a.id === 1)!;
  const asset = (w: WorkRecord, id: number) => arr(w).assets.find((x) => x.id === id)!;
  const cases: Array<{
    requirement: string;
    role?: MusicRole;
    input?: Input;
    mutate?: (w: WorkRecord) => void;
    missing: Missing[];
  }> = [
    { requirement: 'role', role: 'outro', missing: [['arrangement', 'arrangement', null, null]] },
    {
      requirement: 'required-formats',
      input: { requirements: { requiredFormats: ['wav'] } },
      missing: [['format', 'performance', 1, 'wav']],
    },
    {
      requirement: 'music-xml',
      input: { requirements: { requireMusicXml: true } },
      mutate: (w) => (arr(w).assets = arr(w).assets.filter((x) => x.kind !== 'musicxml')),
      missing: [['music-xml', 'arrangement', 1, null]],
    },
    {
      requirement: 'approved-rendering-profile',
      input: { requirements: { requireApprovedRenderingProfile: true } },
      mutate: (w) => arr(w).renderingProfileSlugs.push('music-box-celesta'),
      missing: [['approved-rendering-profile', 'rendering-profile', 1, null]],
    },
    {
      requirement: 'duration',
      input: { requirements: { targetDurationSeconds: 60 } },
      missing: [['duration-fit', 'arrangement', null, null]],
    },
    {
      requirement: 'style',
      input: { requirements: { style: 'organ, gothic' } },
      missing: [['style-fit', 'arrangement', null, null]],
    },
    {
      requirement: 'instrumentation',
      input: { requirements: { instrumentation: 'organ' } },
      missing: [['instrumentation-fit', 'arrangement', null, null]],
    },
    {
      requirement: 'mood',
      input: { requirements: { mood: 'dark, menacing' } },
      missing: [['mood-fit', 'arrangement', null, null]],
    },
    {
      requirement: 'composition-rights',
      mutate: (w) => (w.rights.composition.status = 'unknown'),
      missing: [['composition-rights', 'metadata-revision', null, null]],
    },
    {
      requirement: 'edition-rights',
      mutate: (w) => (arr(w).rights.edition.status = 'unknown'),
      missing: [['edition-rights', 'metadata-revision', 1, null]],
    },
    {
      requirement: 'recording-rights',
      mutate: (w) => (arr(w).rights.recording.status = 'unknown'),
      missing: [['recording-rights', 'metadata-revision', 1, null]],
    },
    {
      requirement: 'asset-rights',
      mutate: (w) => (asset(w, 11).rightsStatus = 'unknown'),
      missing: [['asset-rights', 'metadata-revision', 1, null]],
    },
    {
      requirement: 'arrangement-review',
      mutate: (w) => (arr(w).reviewState = 'technical-pass'),
      missing: [['listening-approval', null, 1, null]],
    },
    {
      requirement: 'asset-review',
      mutate: (w) => (asset(w, 11).reviewState = 'technical-pass'),
      missing: [['listening-approval', null, 1, null]],
    },
  ];
  it('the base case is ready', () => {
    expect(resolve('intro', { workSlug: ODE }).verdict).toBe('reuse');
  });
  for (const c of cases) {
    it(c.requirement, () => {
      const r = resolve(c.role ?? 'intro', { workSlug: ODE, ...c.input }, c.mutate ? withWork(ODE, c.mutate) : null);
      expect(r.verdict).toBe('prepare');
      expect(failedOf(r, 1)).toEqual([c.requirement]);
      expect(missingOf(r)).toEqual(c.missing);
      const reason = r.candidates
        .find((x) => x.arrangementId === 1)!
        .reasons.find((x) => x.requirement === c.requirement)!;
      expect(reason.detail.length).toBeGreaterThan(10);
    });
  }
});

describe('review-state and rights boundaries', () => {
  const ODE = 'beethoven-symphony-9-ode-to-joy';
  it('a candidate that would be perfect but is rights-review-required is never reuse', () => {
    const r = resolve('music-lead', {
      workSlug: ODE,
      requirements: {
        requiredFormats: ['mp3', 'musicxml', 'midi'],
        requireMusicXml: true,
        requireApprovedRenderingProfile: true,
      },
    });
    const c = r.candidates[0]!;
    expect([c.arrangementId, c.reviewState, c.ready]).toEqual([2, 'rights-review-required', false]);
    expect(c.assets.find((x) => x.kind === 'mp3')!.reviewState).toBe('human-listening-approved');
    expect(c.reasons.filter((x) => !x.passed).map((x) => x.requirement)).toEqual(['arrangement-review']);
    expect(c.reasons.find((x) => x.requirement === 'arrangement-review')!.detail).toContain(
      'not permission to publish',
    );
    expect(r.verdict).toBe('prepare');
  });

  it('rights-review-required on a used file alone blocks reuse; on an unused file it does not', () => {
    const blocked = withWork(
      ODE,
      (w) => (w.arrangements[0]!.assets.find((x) => x.id === 11)!.reviewState = 'rights-review-required'),
    );
    expect(resolve('intro', { workSlug: ODE }, blocked).verdict).toBe('prepare');
    expect(resolve('intro', { workSlug: ODE }, blocked).missing.map((m) => [m.what, m.operation, m.assetId])).toEqual([
      ['rights-review', 'metadata-revision', 11],
    ]);
    const unused = withWork(
      ODE,
      (w) => (w.arrangements[0]!.assets.find((x) => x.id === 13)!.reviewState = 'rights-review-required'),
    );
    expect(resolve('intro', { workSlug: ODE }, unused).verdict).toBe('reuse');
    expect(
      resolve('intro', { workSlug: ODE, requirements: { requiredFormats: ['mp3', 'midi'] } }, unused).verdict,
    ).toBe('prepare');
  });

  it('no arrangement review state other than human-listening-approved is ever ready', () => {
    for (const state of [
      'pending',
      'technical-pass',
      'manual-review-pending',
      'human-reviewed',
      'rights-review-required',
    ] as const) {
      const r = resolve(
        'intro',
        { workSlug: ODE },
        withWork(ODE, (w) => (w.arrangements[0]!.reviewState = state)),
      );
      expect(r.verdict, state).toBe('prepare');
    }
  });

  it('technical-pass is reported in words as a technical pass, never as listening approval', () => {
    const r = resolve('music-bed', { workSlug: 'satie-gymnopedie-1', requirements: { instrumentation: 'strings' } });
    const c = r.candidates[0]!;
    expect(c.reviewStatus).toBe('Technical pass (not listening-approved)');
    const detail = c.reasons.find((x) => x.requirement === 'arrangement-review')!.detail;
    expect(detail).toMatch(/technical pass only/i);
    expect(detail).toContain('not listening approval');
    expect(c.reasons.find((x) => x.requirement === 'asset-review')!.detail).toContain(
      'technical pass only, which is not listening approval',
    );
    expect(r.missing[0]!.detail).toContain('No contribution can supply it');
  });

  it('audio needs listening approval; a score needs at least a human review', () => {
    const pendingScore = withWork(
      ODE,
      (w) => (w.arrangements[0]!.assets.find((x) => x.id === 12)!.reviewState = 'pending'),
    );
    const r = resolve('intro', { workSlug: ODE, requirements: { requiredFormats: ['mp3', 'musicxml'] } }, pendingScore);
    expect(failedOf(r, 1)).toEqual(['asset-review']);
    expect(r.missing.map((m) => [m.what, m.assetId])).toEqual([['human-review', 12]]);
    expect(resolve('intro', { workSlug: ODE, requirements: { requiredFormats: ['mp3'] } }, pendingScore).verdict).toBe(
      'reuse',
    );
  });

  it('a composition public domain in some territories only is not cleared, and the notes are carried', () => {
    const records = withWork(
      ODE,
      (w) => (w.rights.territories.EU = { status: 'unclear', note: 'Heirs dispute an edition term.' }),
    );
    const r = resolve('intro', { workSlug: ODE }, records);
    expect(failedOf(r, 1)).toEqual(['composition-rights']);
    expect(r.candidates[0]!.reasons.find((x) => x.requirement === 'composition-rights')!.detail).toContain(
      'EU unclear (Heirs dispute an edition term.)',
    );
    expect(r.candidates[0]!.rights.territories.EU).toEqual({
      status: 'unclear',
      note: 'Heirs dispute an edition term.',
    });
  });

  it('permission-documented composition is cleared', () => {
    const records = withWork(
      ODE,
      (w) => (w.rights.composition = { status: 'permission-documented', note: 'Written permission from the estate.' }),
    );
    expect(resolve('intro', { workSlug: ODE }, records).verdict).toBe('reuse');
  });

  it('an original edition or recording needs a license; not-applicable layers pass only when no such file is used', () => {
    const unlicensed = withWork(ODE, (w) => (w.arrangements[0]!.rights.license = null));
    expect(failedOf(resolve('intro', { workSlug: ODE }, unlicensed), 1)).toEqual([
      'edition-rights',
      'recording-rights',
    ]);
    const noRecording = withWork(ODE, (w) => (w.arrangements[0]!.rights.recording.status = 'not-applicable'));
    expect(
      resolve('intro', { workSlug: ODE, requirements: { requiredFormats: ['musicxml'] } }, noRecording).verdict,
    ).toBe('reuse');
    expect(failedOf(resolve('intro', { workSlug: ODE }, noRecording), 1)).toEqual(['recording-rights']);
  });

  it('musicAllowed false answers no-music with no candidates, even for a ready work', () => {
    const r = resolve('intro', { workSlug: ODE, channel: { musicAllowed: false } });
    expect(r).toMatchObject({ verdict: 'no-music', candidates: [], missing: [], search: { by: 'none' } });
  });
});

describe('finding works by name forms', () => {
  const slugsFor = (input: Input) => resolve('music-bed', input).search.workSlugs.slice().sort();
  const BACH = SAMPLE.filter((w) => w.composer.name === 'Johann Sebastian Bach')
    .map((w) => w.slug)
    .sort();
  const DVORAK = SAMPLE.filter((w) => w.composer.sortName.startsWith('Dvořák'))
    .map((w) => w.slug)
    .sort();
  it.each(['Bach, J.S.', 'J. S. Bach', 'Johann Sebastian Bach', 'JS Bach', 'bach', 'BACH'])(
    'composer %s finds exactly the Bach works',
    (composer) => {
      expect(BACH.length).toBeGreaterThan(1);
      expect(slugsFor({ composer })).toEqual(BACH);
    },
  );
  it.each(['Dvorak', 'Dvořák', 'DVORAK', 'Antonin Dvorak', 'A. Dvorak'])(
    'composer %s finds exactly the Dvořák works',
    (composer) => {
      expect(slugsFor({ composer })).toEqual(DVORAK);
    },
  );
  it('a name inside another does not match ("Bach" is not "Offenbach")', () => {
    expect(slugsFor({ composer: 'Offenbach' })).toEqual([]);
  });
  it.each([
    [{ title: 'BWV 846' }, 'bach-prelude-in-c-bwv-846'],
    [{ title: 'bwv846' }, 'bach-prelude-in-c-bwv-846'],
    [{ title: 'Prelude in C', composer: 'Bach, J.S.' }, 'bach-prelude-in-c-bwv-846'],
    [{ title: 'Fur Elise' }, 'beethoven-fur-elise'],
    [{ title: 'FÜR ELISE', composer: 'L. van Beethoven' }, 'beethoven-fur-elise'],
    [{ title: 'K. 525' }, 'mozart-eine-kleine-nachtmusik'],
    [{ title: 'K525', composer: 'W. A. Mozart' }, 'mozart-eine-kleine-nachtmusik'],
    [{ title: 'Gymnopedie' }, 'satie-gymnopedie-1'],
    [{ title: 'Largo', composer: 'Dvorak' }, 'dvorak-symphony-9-largo'],
    [{ title: 'Canon in D', composer: 'Pachelbel' }, 'pachelbel-canon-in-d'],
  ] as Array<[Input, string]>)('%o finds %s', (input, slug) => {
    expect(slugsFor(input)).toEqual([slug]);
  });
  it('workSlug is matched exactly and wins over title and composer', () => {
    const r = resolve('music-bed', { workSlug: 'pachelbel-canon-in-d', title: 'Für Elise', composer: 'Bach' });
    expect(r.search.workSlugs).toEqual(['pachelbel-canon-in-d']);
    expect(resolve('music-bed', { workSlug: 'PACHELBEL-CANON-IN-D' }).search.matchedWorks).toBe(0);
  });
  it('blank names count as absent: the whole catalog is searched', () => {
    expect(resolve('music-bed', { workSlug: ' ', title: '', composer: null }).search.by).toBe('catalog');
  });
});

describe('ranking and tie-breaks', () => {
  const order = (r: ResolveResult) => r.candidates.map((c) => `${c.workSlug}#${c.arrangementId}`);
  it('catalog-wide for music-bed: ready first; equal scores by editorial rank, then work slug; "also suits" below "made for"', () => {
    const r = resolve('music-bed', {});
    expect(r.search.by).toBe('catalog');
    const ready = r.candidates.filter((c) => c.ready);
    expect(ready.map((c) => `${c.workSlug}#${c.arrangementId}`)).toEqual([
      'bach-prelude-in-c-bwv-846#1',
      'pachelbel-canon-in-d#1',
      'pachelbel-canon-in-d#2',
      'beethoven-fur-elise#1',
      'satie-gymnopedie-1#1',
    ]);
    expectEach(r.candidates.slice(0, ready.length), (c) => c.ready);
    expect(ready[0]!.score).toBe(100);
    expect(ready[3]!.score).toBeLessThan(100);
    expect(ready[3]!.score).toBe(ready[4]!.score);
    expect(r.search.readyCount).toBe(5);
  });
  it('narration present moves bed and ambient material above lead material', () => {
    const without = order(resolve('music-bed', {}));
    const withNarration = order(resolve('music-bed', { channel: { narrationPresent: true } }));
    expect(without.indexOf('beethoven-fur-elise#1')).toBeLessThan(without.indexOf('satie-gymnopedie-1#1'));
    expect(withNarration.indexOf('satie-gymnopedie-1#1')).toBeLessThan(withNarration.indexOf('beethoven-fur-elise#1'));
    const fur = resolve('music-bed', { channel: { narrationPresent: true }, workSlug: 'beethoven-fur-elise' })
      .candidates[0]!;
    expect(fur.reasons.find((x) => x.requirement === 'role')!.detail).toContain(
      'lead material competes with the voice',
    );
  });
  it('the right music lacking a file ranks above the wrong music', () => {
    expect(
      order(
        resolve('music-lead', { workSlug: 'beethoven-fur-elise', requirements: { instrumentation: 'harpsichord' } }),
      ),
    ).toEqual(['beethoven-fur-elise#2', 'beethoven-fur-elise#1']);
  });
  it('equal score and rank: work slug decides; within a work, arrangement id', () => {
    const twin = structuredClone(record('pachelbel-canon-in-d'));
    twin.slug = 'aaa-canon-twin';
    const records = [...SAMPLE, twin];
    expect(order(resolve('music-bed', { title: 'Canon in D' }, records)).slice(0, 4)).toEqual([
      'aaa-canon-twin#1',
      'pachelbel-canon-in-d#1',
      'aaa-canon-twin#2',
      'pachelbel-canon-in-d#2',
    ]);
    const sameRank = withWork('pachelbel-canon-in-d', (w) => {
      w.arrangements[1]!.rank = 1;
      [w.arrangements[0], w.arrangements[1]] = [w.arrangements[1]!, w.arrangements[0]!];
    });
    expect(order(resolve('music-bed', { workSlug: 'pachelbel-canon-in-d' }, sameRank)).slice(0, 2)).toEqual([
      'pachelbel-canon-in-d#1',
      'pachelbel-canon-in-d#2',
    ]);
  });
  it('a longer target fits a loopable arrangement; a shorter one fits a trimmable one', () => {
    const loop = resolve('music-bed', {
      workSlug: 'pachelbel-canon-in-d',
      requirements: { targetDurationSeconds: 600 },
    });
    expect(loop.candidates.slice(0, 2).map((c) => c.ready)).toEqual([true, true]);
    // Without rendered audio nothing measured the seam: the words say "loopable", never "seamless".
    const loopDetail = loop.candidates[0]!.reasons.find((x) => x.requirement === 'duration')!.detail;
    expect(loopDetail).toContain('the record marks it loopable (its seam has not been measured)');
    expect(loopDetail).not.toContain('seamless');
    const trim = resolve('intro', {
      workSlug: 'beethoven-symphony-9-ode-to-joy',
      requirements: { targetDurationSeconds: 7 },
    });
    expect(trim.verdict).toBe('reuse');
    expect(trim.candidates[0]!.reasons.find((x) => x.requirement === 'duration')!.detail).toContain('trimmed');
  });
  it('is deterministic: the same answer whatever order the records come in', () => {
    const a = resolveMusic(sampleCatalog, request('music-bed'), {
      baseUrl: BASE,
      catalogGeneratedAtUtc: '2026-01-01T00:00:00Z',
    });
    const shuffled = buildResolveCatalog([...SAMPLE].reverse(), [...PROFILES].reverse(), INSTRUMENTS);
    const b = resolveMusic(shuffled, request('music-bed'), {
      baseUrl: BASE,
      catalogGeneratedAtUtc: '2026-01-01T00:00:00Z',
    });
    expect(b).toEqual(a);
  });
});

describe('the catalog-wide scan agrees with judging everything', () => {
  // Variants of the sample: every work cloned under new slugs with states, access, roles and
  // moods rotated, so many arrangements are ready and many are nearly ready.
  const states = [
    'human-listening-approved',
    'technical-pass',
    'human-listening-approved',
    'rights-review-required',
    'human-reviewed',
  ] as const;
  const roles: readonly MusicRole[] = MUSIC_ROLES;
  const variants: WorkRecord[] = [...SAMPLE];
  for (let v = 0; v < 8; v++) {
    for (const w of SAMPLE) {
      const copy = structuredClone(w);
      copy.slug = `v${v}-${w.slug}`;
      copy.arrangements.forEach((a, i) => {
        a.reviewState = states[(v + i) % states.length]!;
        a.intendedRole = roles[(v * 3 + i + w.slug.length) % roles.length]!;
        a.rank = 1 + ((v + i) % 3);
        for (const x of a.assets) if (x.kind === 'mp3') x.access = (v + i) % 4 === 3 ? 'admin-only' : 'public';
      });
      variants.push(copy);
    }
  }
  const catalog = buildResolveCatalog(variants, PROFILES, INSTRUMENTS);
  const requests: Array<[MusicRole, Input]> = [
    ['music-bed', {}],
    ['intro', { requirements: { requiredFormats: ['mp3', 'musicxml'], mood: 'bright' } }],
    [
      'music-lead',
      {
        channel: { narrationPresent: true },
        requirements: { requiredFormats: [], style: 'piano', targetDurationSeconds: 15 },
      },
    ],
    [
      'outro',
      {
        requirements: {
          requiredFormats: ['mp3'],
          requireApprovedRenderingProfile: true,
          requireMusicXml: true,
          instrumentation: 'strings',
        },
      },
    ],
    ['short-form', { requirements: { requiredFormats: ['wav'] } }],
  ];
  for (const [role, input] of requests) {
    it(`${role} ${JSON.stringify(input)}`, () => {
      const r = resolveMusic(catalog, request(role, input), {
        baseUrl: BASE,
        catalogGeneratedAtUtc: '2026-01-01T00:00:00Z',
      });
      const q = compileRequest(catalog, request(role, input));
      // Judge every role-fitting arrangement from its own words (not the postings), and sort all.
      const lists = catalog.byRole.get(role)!;
      const all = [...lists.staticReady, ...lists.rest].map((index) => ({ index, ev: evaluate(catalog, index, q) }));
      all.sort((x, y) => compareRanked(catalog.cols, packKey(x.ev), x.index, packKey(y.ev), y.index));
      const label = (index: number) =>
        `${catalog.works.slugs.at(catalog.arrangementWork[index]!)}#${catalog.cols.id[index]}`;
      expect(r.candidates.map((c) => `${c.workSlug}#${c.arrangementId}:${c.score}:${c.ready}`)).toEqual(
        all.slice(0, 10).map((x) => `${label(x.index)}:${x.ev.score}:${x.ev.ready}`),
      );
      expect(r.search.readyCount).toBe(all.filter((x) => x.ev.ready).length);
      expect(r.search.arrangementsEvaluated).toBe(all.length);
      for (const x of all) if (x.ev.ready) expect(couldBeReady(catalog, x.index, q)).toBe(true);
    });
  }
});

describe('the worked example in the discovery documents is what the service answers', () => {
  it('matches a live resolve of its request over the sample catalog', () => {
    const example = resolveWorkedExample(urls(BASE));
    const live = resolveMusic(sampleCatalog, example.request as MusicResolveInput, {
      baseUrl: BASE,
      catalogGeneratedAtUtc: '2026-01-01T00:00:00Z',
    });
    expect(live.verdict).toBe(example.response.data.verdict);
    expect(live.missing).toEqual(example.response.data.missing);
    example.response.data.candidates.forEach((shown, k) => {
      const c = live.candidates[k]!;
      const { reasons, formats, ...fields } = shown as typeof shown & { reasons?: unknown[]; formats?: unknown[] };
      expect(c).toMatchObject(fields);
      for (const f of formats ?? []) expect(c.formats).toContainEqual(f);
      for (const r of reasons ?? []) expect(c.reasons).toContainEqual(r);
    });
    expect(resolveLlmsSection(urls(BASE))).toContain(`POST ${BASE}/api/v1/music/resolve`);
  });
});
