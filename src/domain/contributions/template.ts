/**
 * The contribution template served at /api/v1/music/contributions/template: a complete
 * `arrangement` contribution for a real catalog work, which passes validation as it stands.
 * Facts about the work come from the catalog; everything the contributor must supply is a
 * visible placeholder (see PLACEHOLDER_MARKERS).
 */
import {
  CONTRIBUTION_SCHEMA_VERSION,
  type ContributionOperation,
  type ContributionWork,
  type MusicContributionInput,
} from '../../schemas/contribution.ts';

export const PLACEHOLDER_PREFIX = 'REPLACE:';
/** The host of every placeholder URL: ".invalid" is reserved and never resolves (RFC 2606). */
export const PLACEHOLDER_URL_BASE = 'https://example.invalid/REPLACE';
export const PLACEHOLDER_SHA256 = '0'.repeat(64);
export const PLACEHOLDER_TIMESTAMP = '2000-01-01T00:00:00Z';

/** How placeholders look, in words (schema document and docs). */
export const PLACEHOLDER_MARKERS = [
  `Text fields starting "${PLACEHOLDER_PREFIX}" (and the idempotency key starting "REPLACE-").`,
  `URLs under ${PLACEHOLDER_URL_BASE}/ (".invalid" never resolves).`,
  'SHA-256 digests of 64 zeros.',
  `The timestamp ${PLACEHOLDER_TIMESTAMP}.`,
  'The rights statuses, asset kinds, review states and quality flags are example choices: set each to what is true of your files.',
];

/** The catalog facts a template is built around: a work's slug, title and composer, and the other ContributionWork fields it has. */
export type TemplateWork = { slug: string; title: string; composer: string } & {
  [K in 'originalTitle' | 'period' | 'genre' | 'year' | 'workNumber' | 'summary']-?: Exclude<
    ContributionWork[K],
    undefined
  >;
};

const r = (text: string) => `${PLACEHOLDER_PREFIX} ${text}`;

/**
 * The template for `operation` (default `arrangement`) on `work`: the arrangement template
 * reshaped to what that operation carries (OPERATION_MEANINGS in schema-document.ts): a
 * performance adds a recording to an existing arrangement (`arrangementId`, when given), a
 * source score or score revision carries one score file, a metadata revision only the changed
 * work fields, a new work its facts as placeholders, a rendering profile a manifest.
 */
export function buildContributionTemplate(
  work: TemplateWork,
  profileSlug: string | null = null,
  operation: ContributionOperation = 'arrangement',
  arrangementId: number | null = null,
): MusicContributionInput {
  const t = arrangementTemplate(work, profileSlug);
  if (operation === 'arrangement') return t;
  const key = `REPLACE-with-a-new-key.${work.slug}.${operation}`;
  const base: MusicContributionInput = {
    ...t,
    operation,
    idempotencyKey: key.length <= 120 ? key : `REPLACE-with-a-new-key.${operation}`,
    arrangement: null,
    changeSummary: r(`what this ${operation} contribution adds or changes, in one or two sentences`),
  };
  const [score, recording] = t.assets;
  // Score files only: no recording rights to declare, nothing rendered to reproduce.
  const scoreFilesOnly = { rights: { ...t.rights, recordingStatus: 'not-applicable' as const }, reproducibility: null };
  switch (operation) {
    case 'performance':
      return {
        ...base,
        target: { ...t.target!, assetType: 'recording', arrangementId },
        assets: [recording!],
        rights: { ...t.rights, editionStatus: 'not-applicable' },
      };
    case 'source-score':
      return {
        ...base,
        target: { ...t.target!, assetType: 'source-score' },
        assets: [{ ...score!, title: r('title of the source score') }],
        ...scoreFilesOnly,
      };
    case 'score-revision':
      return {
        ...base,
        target: { ...t.target!, assetType: 'score', assetId: null, baseSha256: PLACEHOLDER_SHA256 },
        assets: [{ ...score!, title: r('title of the revised score') }],
        ...scoreFilesOnly,
      };
    case 'metadata-revision':
      return {
        ...base,
        target: { ...t.target!, assetType: 'work' },
        work: { title: r(`corrected title of ${work.title}, or remove the fields that do not change`) },
        assets: [],
        reproducibility: null,
      };
    case 'new-work':
      return {
        ...base,
        target: null,
        work: {
          title: r('title of the new work'),
          originalTitle: null,
          composer: r('composer'),
          period: r('period, e.g. Romantic'),
          genre: r('genre, a term of /api/v1/music/vocabulary (style)'),
          year: r('year of composition'),
          workNumber: null,
          summary: r('one sentence about the work'),
        },
        assets: [{ ...score!, title: r('title of the source score') }],
        ...scoreFilesOnly,
      };
    case 'rendering-profile':
      return {
        ...base,
        target: null,
        work: null,
        assets: [
          {
            ...score!,
            kind: 'manifest',
            title: r('title of the profile definition'),
            downloadUrl: `${PLACEHOLDER_URL_BASE}/profile.json`,
            mediaType: 'application/json',
          },
        ],
        rights: { ...t.rights, recordingStatus: 'not-applicable' },
      };
  }
}

function arrangementTemplate(work: TemplateWork, profileSlug: string | null): MusicContributionInput {
  const key = `REPLACE-with-a-new-key.${work.slug}.arrangement`;
  // The score file; the recording below differs from it only where a recording does.
  const score: MusicContributionInput['assets'][number] = {
    kind: 'musicxml',
    title: r('title of the score file'),
    downloadUrl: `${PLACEHOLDER_URL_BASE}/arrangement.musicxml`,
    sourcePageUrl: `${PLACEHOLDER_URL_BASE}/arrangement-page`,
    sha256: PLACEHOLDER_SHA256,
    mediaType: 'application/vnd.recordare.musicxml+xml',
    rightsStatus: 'original-contribution',
    license: r('license of this file'),
    attribution: null,
    reviewState: 'pending',
  };
  return {
    schemaVersion: CONTRIBUTION_SCHEMA_VERSION,
    operation: 'arrangement',
    idempotencyKey: key.length <= 120 ? key : 'REPLACE-with-a-new-key.arrangement',
    submittedBy: {
      name: r('your name, or the name of the accountable operator'),
      kind: 'AiAssisted',
      agentName: r('agent or tool name'),
      agentVersion: r('agent version'),
      contact: r('e-mail address reviewers can reach'),
    },
    channel: {
      channelKey: r('your-channel-key'),
      displayName: r('channel display name'),
      audioProfile: r('e.g. stereo 48 kHz, -16 LUFS'),
      musicAllowed: true,
      intendedRole: 'music-bed',
      narrationPresent: true,
      usageNotes: r('how the music will be used'),
    },
    target: { workSlug: work.slug, assetType: 'arrangement', assetId: null, arrangementId: null, baseSha256: null },
    work: {
      title: work.title,
      originalTitle: work.originalTitle,
      composer: work.composer,
      period: work.period,
      genre: work.genre,
      year: work.year,
      workNumber: work.workNumber,
      summary: work.summary,
    },
    rights: {
      compositionStatus: 'public-domain',
      editionStatus: 'original-contribution',
      recordingStatus: 'original-generated-recording',
      territory: r('territories checked, e.g. US, EU, CA'),
      license: r('license of your files, e.g. CC0-1.0'),
      attribution: r('attribution to carry forward, or null'),
      checkedAtUtc: PLACEHOLDER_TIMESTAMP,
      evidenceUrls: [`${PLACEHOLDER_URL_BASE}/dated-rights-evidence`],
    },
    assets: [
      score,
      {
        ...score,
        kind: 'mp3',
        title: r('title of the recording'),
        downloadUrl: `${PLACEHOLDER_URL_BASE}/arrangement.mp3`,
        mediaType: 'audio/mpeg',
        rightsStatus: 'original-generated-recording',
        reviewState: 'technical-pass',
        // Optional: the integrated loudness you measured (EBU R128, LUFS); the archive measures it anyway.
        loudnessLufs: null,
      },
    ],
    arrangement: {
      title: r('title of the arrangement'),
      style: r('e.g. solo piano, calm'),
      instrumentation: r('e.g. piano'),
      duration: r('m:ss'),
      intendedRole: 'music-bed',
      renderingProfileSlugs: [profileSlug ?? 'REPLACE-with-a-profile-slug'],
      alsoSuits: [],
      moods: [],
      loopable: false,
      trimmable: false,
      sections: [],
    },
    reproducibility: {
      engine: r('rendering engine and version'),
      model: null,
      seed: r('seed, or null'),
      prompt: null,
      negativePrompt: null,
      command: r('command line that produced the files'),
      manifestUrl: `${PLACEHOLDER_URL_BASE}/manifest.json`,
      inputSha256: [PLACEHOLDER_SHA256],
    },
    quality: {
      technicalValidationPassed: true,
      humanListeningApproved: false,
      technicalChecks: r('automated measurements, e.g. loudness, peak, duration'),
      listeningNotes: null,
    },
    changeSummary: r('what this contribution adds, in one or two sentences'),
    rationale: r('why the archive needs it, e.g. no ready music-bed arrangement exists'),
    // Set only by a bulk import (docs/imports.md): the review batch the contribution belongs to.
    batch: null,
  };
}
