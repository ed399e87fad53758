/**
 * POST /api/v1/music/resolve: the request (spec Part 2, MusicResolveInput) and the answer a
 * caller reuses or acts on (verdict, ranked and explained candidates, what is missing and which
 * contribution operation would supply it). One source for validation, OpenAPI and types.
 */
import { AssetMeasurement } from './audio.ts';
import { Type, type Static } from '@sinclair/typebox';
import {
  AbsoluteUrl,
  ACCESS_LEVELS,
  ASSET_KINDS,
  CATALOG_REVIEW_STATES,
  MUSIC_ROLES,
  Nullable,
  Slug,
  StringEnum,
  UtcTimestamp,
} from './common.ts';
import { ChannelContext, MusicRequirements } from './channel.ts';
import { CONTRIBUTION_OPERATIONS } from './contribution.ts';
import { PROFILE_STATUSES } from './profile.ts';
import { TerritoryNote, WorkRights } from './work.ts';
import { model, strict, titled } from './options.ts';

// ---------- request ----------

export const MusicResolveInput = Type.Object(
  {
    workSlug: Type.Optional(
      Nullable(Type.String({ maxLength: 160 }), {
        description: 'Slug of the work to evaluate; matched exactly. An unknown slug answers `prepare` (new-work).',
      }),
    ),
    title: Type.Optional(
      Nullable(Type.String({ maxLength: 200 }), {
        description:
          'Title words (case- and accent-insensitive; catalog numbers such as "BWV 846" count), used when workSlug is absent.',
      }),
    ),
    composer: Type.Optional(
      Nullable(Type.String({ maxLength: 160 }), {
        description: 'Composer in any name form ("Bach, J.S.", "J. S. Bach", "Dvorak"), used when workSlug is absent.',
      }),
    ),
    channel: ChannelContext,
    requirements: MusicRequirements,
  },
  model(
    'MusicResolveInput',
    'A channel and its music requirements; name a work, or leave it out to search the whole catalog.',
  ),
);
export type MusicResolveInput = Static<typeof MusicResolveInput>;

// ---------- vocabularies ----------

export const RESOLVE_VERDICTS = ['reuse', 'prepare', 'no-music'] as const;
export type ResolveVerdict = (typeof RESOLVE_VERDICTS)[number];

/** Every requirement an arrangement is checked against; each candidate lists the ones that apply. */
export const RESOLVE_REQUIREMENTS = [
  'role',
  'required-formats',
  'music-xml',
  'approved-rendering-profile',
  'duration',
  'style',
  'instrumentation',
  'mood',
  'composition-rights',
  'edition-rights',
  'recording-rights',
  'asset-rights',
  'arrangement-review',
  'asset-review',
] as const;
export type ResolveRequirement = (typeof RESOLVE_REQUIREMENTS)[number];

/** What a `prepare` answer can name as missing, in the order the answer lists them (the order to supply them in). */
export const MISSING_KINDS = [
  'work',
  'source-score',
  'composition-rights',
  'arrangement',
  'style-fit',
  'instrumentation-fit',
  'mood-fit',
  'duration-fit',
  'format',
  'music-xml',
  'approved-rendering-profile',
  'edition-rights',
  'recording-rights',
  'asset-rights',
  'rights-review',
  'listening-approval',
  'human-review',
] as const;
export type MissingKind = (typeof MISSING_KINDS)[number];

export const SEARCH_MODES = ['work-slug', 'title-composer', 'catalog', 'none'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

// ---------- answer ----------

export const ResolveReason = Type.Object(
  {
    requirement: StringEnum(RESOLVE_REQUIREMENTS, { description: 'The requirement checked.' }),
    passed: Type.Boolean({ description: 'Whether the arrangement meets it.' }),
    detail: Type.String({ description: 'Why, in plain words (which asset, which state, which rule).' }),
  },
  { ...strict, $id: 'ResolveReason', description: 'One requirement checked against one arrangement.' },
);
export type ResolveReason = Static<typeof ResolveReason>;

export const ResolveAsset = Type.Object(
  {
    id: Type.Integer({
      minimum: 1,
      description: 'Asset id, unique within the work; keep it with anything you extract.',
    }),
    kind: StringEnum(ASSET_KINDS, { description: 'Format of the file (asset kind).' }),
    title: Type.String({ description: 'Title of the asset.' }),
    mediaType: Type.String({ description: 'IANA media type.' }),
    access: StringEnum(ACCESS_LEVELS, { description: 'Who may follow the download link.' }),
    usable: Type.Boolean({
      description: 'True when the asset is public and has a download link, so a caller can reuse it.',
    }),
    reviewState: StringEnum(CATALOG_REVIEW_STATES, { description: 'Machine review state of the file.' }),
    reviewStatus: Type.String({
      description: 'Label of the review state; a technical pass reads as "not listening-approved".',
    }),
    rightsStatus: Type.String({ description: 'Rights status of this file.' }),
    license: Nullable(Type.String(), { description: 'License of this file.' }),
    attribution: Nullable(Type.String(), { description: 'Attribution to carry forward with this file.' }),
    sha256: Nullable(Type.String(), { description: 'SHA-256 of the file, when known.' }),
    measured: Nullable(AssetMeasurement, {
      description:
        'MP3/WAV measured by the archive at review: duration, loudness, true peak, loudness range, sections, quiet stretches, narration-bed gain, with the declared values apart; null when not measured.',
    }),
    links: Type.Object(
      {
        download: Nullable(AbsoluteUrl('Download URL.'), {
          description: 'Absolute download URL; null when the file is not published.',
        }),
        sourcePage: AbsoluteUrl('The page that describes where the asset comes from.'),
      },
      { ...strict, description: 'Absolute links of the asset.' },
    ),
  },
  {
    ...strict,
    $id: 'ResolveAsset',
    description: 'One file of an arrangement, with its access, review state and rights.',
  },
);
export type ResolveAsset = Static<typeof ResolveAsset>;

export const ResolveFormat = Type.Object(
  {
    format: Type.String({ description: 'Format (asset kind) present as a public applied asset.' }),
    assetId: Type.Integer({ minimum: 1, description: 'The asset that supplies this format.' }),
    download: AbsoluteUrl('Absolute download URL of that asset.'),
    rendered: Type.Optional(
      Type.Boolean({
        description:
          'True when the file is the audio the archive rendered from the score `assetId` (an MP3 of `renderedAudio`; for a cut or loop fit, that file), not a file of the asset itself.',
      }),
    ),
  },
  { ...strict, description: 'The asset to use for one format.' },
);

export const ResolveRendered = Type.Object(
  {
    assetId: Type.Integer({ minimum: 1, description: 'The score asset the audio was rendered from.' }),
    reviewState: StringEnum(['technical-pass', 'human-listening-approved'] as const, {
      description: 'human-listening-approved only when a person approved exactly this audio after listening.',
    }),
    reviewStatus: Type.String({ description: 'Label of that review state.' }),
    statement: Type.String({ description: 'What the audio is: renderer, SoundFont and its review state in words.' }),
    fitting: Nullable(StringEnum(['master', 'cut-30', 'cut-60', 'loop'] as const), {
      description:
        'The rendered file that fits the requested duration: a cut, the loop, or the whole score; null without a target duration.',
    }),
    files: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'e.g. "cut-60.mp3".' }),
          role: StringEnum(['master', 'cut-30', 'cut-60', 'loop'] as const),
          format: StringEnum(['flac', 'mp3'] as const),
          durationSeconds: Type.Number({ minimum: 0, description: 'Measured.' }),
          sha256: Type.String({ description: 'SHA-256 of the file.' }),
          url: AbsoluteUrl('Download link.'),
        },
        strict,
      ),
      {
        description: 'Every rendered file: FLAC masters and 192 kbit/s MP3s of the whole score, its cuts and its loop.',
      },
    ),
    provenance: AbsoluteUrl(
      'The provenance page (score -> MIDI -> audio digests, renderer, SoundFont and licenses): cite it to dispute a claim.',
    ),
  },
  titled('ResolveRendered', "Audio the archive rendered from the arrangement's score (docs/audio.md)."),
);

export const ResolveProfile = Type.Object(
  {
    slug: Slug('Rendering profile slug.'),
    status: StringEnum([...PROFILE_STATUSES, 'unregistered'] as const, {
      description: 'Profile status; `unregistered` when no profile has this slug.',
    }),
    renderReady: Type.Boolean({ description: 'Whether the rendering engine can use it as is.' }),
    approved: Type.Boolean({ description: 'True only for status `approved`.' }),
    link: Nullable(AbsoluteUrl('The profile record.'), { description: 'The profile record; null when unregistered.' }),
  },
  { ...strict, description: 'A rendering profile used by the arrangement.' },
);

export const ResolveRights = Type.Object(
  {
    composition: WorkRights.properties.composition,
    edition: WorkRights.properties.edition,
    recording: WorkRights.properties.recording,
    territories: Type.Object(
      { US: TerritoryNote, EU: TerritoryNote, CA: TerritoryNote },
      { ...strict, description: 'Per-territory notes of the composition; carry them forward.' },
    ),
    rightsNote: Type.String({ description: "The work's plain summary of what may be reused and why." }),
    checkedAtUtc: UtcTimestamp("When a person last checked the work's rights (UTC)."),
    evidenceUrls: Type.Array(AbsoluteUrl('Evidence page.'), {
      description: "Evidence for the work's rights statement.",
    }),
  },
  {
    ...strict,
    description:
      "Rights of what would be used: the work's composition layer and territory notes, and the arrangement's own edition and recording layers.",
  },
);

export const FIT_KINDS = ['native', 'cut', 'loop', 'trim', 'edit'] as const;

export const ResolveFit = Type.Object(
  {
    kind: StringEnum(FIT_KINDS, {
      description:
        "native: within max(3 s, 10 %) of the target as it is; cut: an exact 30 s or 60 s cut rendered from its score (ending on a bar line, no fade) is within it (`renderedAudio.fitting`); trim: longer, and the record says it can be cut at marked phrase ends; loop: shorter and loopable (seamless only where `renderedAudio` measured the loop's seam; a loop measured with a gap is no loop fit); edit: neither (the caller would have to cut with a fade or repeat with a crossfade).",
    }),
    targetSeconds: Type.Integer({ minimum: 1, description: 'The requested targetDurationSeconds.' }),
    durationSeconds: Type.Number({
      minimum: 0,
      description:
        'The duration judged: measured when a recording of the arrangement was measured, else the measured length of the audio rendered from its score, else declared.',
    }),
    durationSource: StringEnum(['measured', 'rendered', 'declared'] as const, {
      description:
        'Where durationSeconds comes from: a measured recording, the rendered audio (measured), or the declaration.',
    }),
    deltaSeconds: Type.Number({
      description: 'durationSeconds minus targetSeconds (negative: shorter than the target).',
    }),
    toleranceSeconds: Type.Integer({
      minimum: 0,
      description: 'max(3 s, 10 % of the target): within it the fit is native.',
    }),
    repeats: Type.Integer({
      minimum: 1,
      description:
        'Times the piece plays to fill the target: ceil(target / duration) when shorter, else 1. A loop fit needs it within maxRepeats.',
    }),
    maxRepeats: Type.Integer({
      minimum: 1,
      description:
        "The channel role's loop repeat limit (music-bed and music-ambient 40, music-sleep-lead 30, music-lead 8, intro, outro and short-form 4): a seamless loop that needs more repeats is an `edit` fit and fails `duration`.",
    }),
  },
  titled('ResolveFit', 'How the arrangement fits the requested runtime.'),
);

export const ResolveListen = Type.Object(
  {
    url: Nullable(AbsoluteUrl('A public MP3 (else WAV) of the arrangement to hear before choosing it.'), {
      description: 'Absolute link to hear it, or null (then `reason` says why).',
    }),
    assetId: Nullable(Type.Integer({ minimum: 1 }), { description: 'The asset the link serves.' }),
    format: Nullable(StringEnum(['mp3', 'wav'] as const), { description: 'Its format.' }),
    reviewStatus: Nullable(Type.String(), {
      description: 'Review state label of that file: hearing is not reuse; only a listening-approved file is ready.',
    }),
    reason: Nullable(Type.String(), {
      description: 'Why there is no link (no recording, or not public), or null when there is one.',
    }),
  },
  titled('ResolveListen', 'Where to hear the arrangement, or why you cannot.'),
);

export const ResolveCandidate = Type.Object(
  {
    position: Type.Integer({ minimum: 1, description: 'Position in this answer; 1 is the best candidate.' }),
    ready: Type.Boolean({
      description: 'True only when every listed requirement passed: the arrangement may be reused as is.',
    }),
    summary: Type.String({ description: 'One sentence: ready, or which requirements fail.' }),
    score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description:
        'The ranking key in one number, so it never rises down the list: ready 60-100; the right music for the role but not ready 30-59; the role only 10-29; neither 0-9; within a band, by fit points (role, formats, requested style, instrumentation, mood, duration, clearance).',
    }),
    workSlug: Slug('Work slug; keep it with anything you extract.'),
    workTitle: Type.String({ description: 'Title of the work.' }),
    composer: Type.String({ description: 'Composer display name.' }),
    arrangementId: Type.Integer({ minimum: 1, description: 'Arrangement id, unique within the work.' }),
    arrangementRank: Type.Integer({ minimum: 1, description: 'Editorial rank within the work; 1 is reused first.' }),
    arrangementTitle: Type.String({ description: 'Title of the arrangement.' }),
    intendedRole: StringEnum(MUSIC_ROLES, { description: 'The role the arrangement was made for.' }),
    alsoSuits: Type.Array(StringEnum(MUSIC_ROLES), { description: 'Other roles it fits.' }),
    style: Type.String({ description: 'Style of the arrangement.' }),
    instrumentation: Type.String({ description: 'Instrumentation of the arrangement.' }),
    moods: Type.Array(Type.String(), { description: 'Mood words.' }),
    durationSeconds: Type.Integer({ minimum: 1, description: 'Duration in seconds as declared in the record.' }),
    measuredDurationSeconds: Nullable(Type.Number({ minimum: 0 }), {
      description:
        'Duration the archive measured from its recording (seconds), or null when none was measured; preferred over the declared one for fit and ranking.',
    }),
    fit: Nullable(ResolveFit, {
      description: 'Fit to requirements.targetDurationSeconds; null when no target duration was requested.',
    }),
    listen: ResolveListen,
    loopable: Type.Boolean({
      description:
        'The record marks it loopable (a declaration: `renderedAudio` and the duration reason say whether a measurement found its seam seamless).',
    }),
    trimmable: Type.Boolean({ description: 'The record says it can be cut shorter at marked phrase ends.' }),
    reviewState: StringEnum(CATALOG_REVIEW_STATES, { description: 'Review state of the arrangement as a whole.' }),
    reviewStatus: Type.String({ description: 'Label of the arrangement review state.' }),
    license: Nullable(Type.String(), { description: 'License of the arrangement and its files.' }),
    attribution: Nullable(Type.String(), { description: 'Attribution to carry forward.' }),
    rights: ResolveRights,
    formats: Type.Array(ResolveFormat, {
      description:
        'Every format present as a public applied asset, with the asset id and absolute link to use (mp3 may be the audio rendered from its score: `rendered`).',
    }),
    renderedAudio: Nullable(ResolveRendered, {
      description: "Audio the archive rendered from the arrangement's score, or null when none is served.",
    }),
    assets: Type.Array(ResolveAsset, {
      description: 'Every file of the arrangement, usable or not, with access, review state and rights.',
    }),
    renderingProfiles: Type.Array(ResolveProfile, {
      description: 'Rendering profiles used to make it, with their approval status.',
    }),
    reasons: Type.Array(ResolveReason, {
      description: 'Each applicable requirement, passed or failed, with the reason.',
    }),
    links: Type.Object(
      {
        work: AbsoluteUrl('The work record (JSON).'),
        markdown: AbsoluteUrl('The compact Markdown record.'),
        html: AbsoluteUrl('The HTML page.'),
      },
      { ...strict, description: 'Canonical links of the work.' },
    ),
  },
  {
    ...strict,
    $id: 'ResolveCandidate',
    description: 'One arrangement evaluated against the channel and requirements.',
  },
);
export type ResolveCandidate = Static<typeof ResolveCandidate>;

export const MissingItem = Type.Object(
  {
    what: StringEnum(MISSING_KINDS, { description: 'What is missing.' }),
    operation: Nullable(StringEnum(CONTRIBUTION_OPERATIONS), {
      description:
        'The contribution operation that would supply it; null when no contribution can (it waits for an accountable human reviewer, or the format does not exist).',
    }),
    detail: Type.String({ description: 'What exactly is missing and how to supply it, in plain words.' }),
    workSlug: Nullable(Slug('Work slug.'), {
      description:
        'The work a contribution would target (ContributionTarget.workSlug); null for a new work or when several works qualify.',
    }),
    arrangementId: Nullable(Type.Integer({ minimum: 1 }), {
      description: 'The arrangement concerned; null when it concerns the work or a new arrangement.',
    }),
    assetId: Nullable(Type.Integer({ minimum: 1 }), {
      description: 'The existing asset concerned (ContributionTarget.assetId), if any.',
    }),
    format: Nullable(Type.String(), { description: 'The missing format, for `format` items.' }),
  },
  {
    ...strict,
    $id: 'MissingItem',
    description: 'One thing that keeps the best candidate from being ready, and how to supply it.',
  },
);
export type MissingItem = Static<typeof MissingItem>;

export const ResolveResult = Type.Object(
  {
    verdict: StringEnum(RESOLVE_VERDICTS, {
      description:
        '`reuse`: the first candidate is ready; `prepare`: none is ready, see `missing`; `no-music`: the channel carries no music.',
    }),
    summary: Type.String({ description: 'The answer in one or two sentences.' }),
    channel: Type.Object(
      {
        channelKey: Type.String({ description: 'The channel key as sent.' }),
        intendedRole: StringEnum(MUSIC_ROLES, { description: 'The role evaluated.' }),
        musicAllowed: Type.Boolean({ description: 'Whether music was allowed (absent counts as true).' }),
        narrationPresent: Type.Boolean({
          description: 'Whether narration plays over the music (absent counts as false).',
        }),
      },
      { ...strict, description: 'The channel this answer is for.' },
    ),
    search: Type.Object(
      {
        by: StringEnum(SEARCH_MODES, {
          description:
            'How works were found: by slug, by title and/or composer, across the catalog by role, or not at all (no music).',
        }),
        matchedWorks: Type.Integer({
          minimum: 0,
          description: 'Works found (catalog-wide: works with an arrangement that fits the role).',
        }),
        workSlugs: Type.Array(Slug('Work slug.'), {
          description:
            'Slugs of the works found (at most 20, in catalog order); catalog-wide: the works of the candidates.',
        }),
        arrangementsEvaluated: Type.Integer({
          minimum: 0,
          description:
            'Arrangements checked against the requirements: judged one by one (arrangementsJudged), or, in a catalog-wide search, shown by an upper bound of their rank to fall below the tenth candidate. In a catalog-wide search, every arrangement that fits the role unless rankingComplete is false.',
        }),
        arrangementsJudged: Type.Integer({
          minimum: 0,
          description:
            'Arrangements judged one by one; never more than the per-request bound (2,000), so no resolve costs time in proportion to the catalog.',
        }),
        readyCount: Type.Integer({
          minimum: 0,
          description:
            'Ready arrangements among those judged. Exact when readyCountComplete is true; otherwise a lower bound: a catalog-wide search keeps judging possible ready arrangements only to a count budget (1,000 judged) once its candidates are settled.',
        }),
        readyCountComplete: Type.Boolean({
          description:
            'True when every arrangement that could be ready was judged, so readyCount is the exact number of ready arrangements.',
        }),
        rankingComplete: Type.Boolean({
          description:
            'True when the candidates are the best of every arrangement searched. False only when the search stopped at its per-request bound of 2,000 judged arrangements: the candidates are then the best of those judged (a catalog-wide search judges the arrangements whose bound rank is highest first), and the note says so.',
        }),
        note: Type.String({ description: 'How the search was done, in words.' }),
      },
      { ...strict, description: 'How candidates were found.' },
    ),
    candidates: Type.Array(ResolveCandidate, {
      description:
        'At most 10 arrangements, best first: ready before not ready, role fit before none, fitting style/instrumentation/mood/duration before not, higher score, editorial rank, work slug, arrangement id.',
    }),
    missing: Type.Array(MissingItem, {
      description:
        'For `prepare`: what keeps the best candidate from being ready and which contribution would supply it. Empty otherwise.',
    }),
    links: Type.Object(
      {
        contributionTemplate: AbsoluteUrl('A complete contribution example to copy.'),
        contributionSchema: AbsoluteUrl('The versioned contribution contract.'),
        contributions: AbsoluteUrl('Where to submit a contribution (POST).'),
        workflow: AbsoluteUrl('The find-or-prepare workflow.'),
        works: AbsoluteUrl('The catalog.'),
      },
      { ...strict, description: 'Where to go next.' },
    ),
    catalogGeneratedAtUtc: UtcTimestamp('When the catalog build this answer was computed from was generated (UTC).'),
  },
  model('ResolveResult', 'The resolve answer: a verdict with explained, ranked candidates.'),
);
export type ResolveResult = Static<typeof ResolveResult>;

// ---------- compact answer (Prefer: return=minimal) ----------

export const ResolveCompactCandidate = Type.Object(
  {
    position: Type.Integer({ minimum: 1 }),
    ready: Type.Boolean({ description: 'True only when every requirement passed.' }),
    score: Type.Integer({ minimum: 0, maximum: 100, description: 'As in ResolveCandidate.score.' }),
    workSlug: Slug('Work slug.'),
    arrangementId: Type.Integer({ minimum: 1 }),
    title: Type.String({ description: 'Arrangement title.' }),
    fit: Nullable(
      Type.Object(
        {
          kind: StringEnum(FIT_KINDS),
          durationSeconds: Type.Number({ minimum: 0 }),
          repeats: Type.Integer({ minimum: 1 }),
        },
        strict,
      ),
      { description: 'ResolveFit in short; null without a target duration.' },
    ),
    listen: Nullable(AbsoluteUrl('A public MP3/WAV to hear it.'), { description: 'Where to hear it, or null.' }),
    provenance: Type.Optional(
      AbsoluteUrl(
        'Rendered audio: its provenance page (score, MIDI and audio digests, renderer, SoundFont, licenses); absent when the arrangement has none.',
      ),
    ),
    downloads: Type.Array(
      Type.Object(
        {
          format: Type.String({ description: 'The asset kind that supplies it ("mp3", "musicxml", "mxl").' }),
          assetId: Type.Integer({ minimum: 1, description: 'Asset id: keep it with anything you take.' }),
          url: AbsoluteUrl('Download link of the public file.'),
          file: Type.Optional(
            Type.String({
              description:
                'Rendered audio: which file of it ("cut-60.mp3", "cut-60.flac", "loop.flac", "master.mp3"); the score asset is assetId.',
            }),
          ),
        },
        strict,
      ),
      {
        description:
          'For each requested format present as a public file, the asset id and its download link (every public file when no format was requested); a requested format missing here is missing (see failing). To fit 8,000 bytes, a candidate that is not ready may list none (and, past that, only the first ready ones list theirs): the full answer (links.full) lists every file.',
      },
    ),
    license: Nullable(Type.String(), { description: 'License of the arrangement (carry it forward).' }),
    attribution: Nullable(Type.String(), { description: 'Attribution to give (carry it forward).' }),
    territories: Type.String({
      description:
        'Composition status and note per territory (US, EU, CA) in one line ("US public-domain: ...; EU ...; CA ..."); notes are shortened, then left out ("US, EU, CA public-domain") to fit the budget (the full answer has them whole). Carry them forward.',
    }),
    failing: Type.Array(Type.String(), {
      description: 'Each failing requirement in one line ("mood: ..."); empty when ready.',
    }),
    rights: Type.String({ description: 'The three rights layers (composition, edition, recording) in one line.' }),
    review: Type.String({ description: 'Review state label of the arrangement.' }),
  },
  model('ResolveCompactCandidate', 'A candidate with only what a decision needs.'),
);
export type ResolveCompactCandidate = Static<typeof ResolveCompactCandidate>;

export const ResolveCompactResult = Type.Object(
  {
    verdict: StringEnum(RESOLVE_VERDICTS),
    summary: Type.String(),
    readyCount: Type.Integer({ minimum: 0, description: 'search.readyCount of the full answer.' }),
    candidates: Type.Array(ResolveCompactCandidate, { description: 'The same candidates, in the same order.' }),
    missing: Type.Array(
      Type.Object(
        {
          what: StringEnum(MISSING_KINDS),
          operation: Nullable(StringEnum(CONTRIBUTION_OPERATIONS)),
          workSlug: Nullable(Slug('Work slug.')),
          arrangementId: Nullable(Type.Integer({ minimum: 1 })),
          assetId: Nullable(Type.Integer({ minimum: 1 })),
          format: Nullable(Type.String()),
        },
        strict,
      ),
      { description: 'MissingItem without its detail (the full answer has it).' },
    ),
    links: Type.Object(
      {
        full: Nullable(AbsoluteUrl('The full answer to this request (GET), kept while this build serves.'), {
          description:
            'The full answer (GET); null when not kept, then repeat the POST without Prefer: return=minimal.',
        }),
        vocabulary: AbsoluteUrl('The mood, style and instrumentation terms.'),
        contributionTemplate: AbsoluteUrl('The contribution template.'),
      },
      strict,
    ),
  },
  model(
    'ResolveCompactResult',
    'The resolve answer in short (Prefer: return=minimal; MCP resolve_music by default): at most 8,000 bytes for ten candidates.',
  ),
);
export type ResolveCompactResult = Static<typeof ResolveCompactResult>;
