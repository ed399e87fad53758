/**
 * What the archive measured in an audio file (docs/audio.md), the one schema of it: the
 * review record's technical checks, the content front matter and published asset records, and
 * the types (`src/domain/audio/measure.ts` produces it; a compile-time check below keeps the two
 * in step). Measured values are never mixed with declared ones: `declared` holds what the
 * contribution said, `disagreements` where the two differ.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, UtcTimestamp } from './common.ts';
import type {
  AudioMeasurement as DomainMeasurement,
  Disagreement as DomainDisagreement,
} from '../domain/audio/measure.ts';
import { strict, titled } from './options.ts';

const Seconds = (description: string) => Type.Number({ minimum: 0, description });
const Lufs = (description: string) => Nullable(Type.Number(), { description });

export const AudioSection = Type.Object(
  {
    startSeconds: Seconds('Start, in seconds from the beginning of the file.'),
    endSeconds: Seconds('End, in seconds.'),
    loudnessLufs: Lufs('Mean loudness of the section (LUFS); null for digital silence.'),
    level: StringEnum(['silence', 'quiet', 'moderate', 'loud'] as const, {
      description:
        'Level relative to the whole file: quiet at least 8 LU under its integrated loudness, loud at least 3 LU over, silence below -60 LUFS.',
    }),
  },
  {
    ...strict,
    description:
      'A stretch of the file at one loudness level (split at silences and at sustained level changes of 6 LU or more).',
  },
);

export const QuietStretch = Type.Object(
  {
    startSeconds: Seconds('Start, in seconds.'),
    endSeconds: Seconds('End, in seconds.'),
    maxMomentaryLufs: Lufs('Loudest momentary (400 ms) loudness inside it (LUFS); null for digital silence.'),
  },
  {
    ...strict,
    description:
      'At least 3 s where every momentary loudness stays 6 LU or more under the integrated loudness: quiet enough to speak over without ducking further.',
  },
);

export const NarrationBed = Type.Object(
  {
    narrationLufs: Type.Number({
      description: 'Loudness the narration is assumed to be mixed at: -23 LUFS, the EBU R128 programme target.',
    }),
    belowNarrationLu: Type.Number({
      description:
        "How far under the narration the bed's loudest 3 s sit: 20 LU (W3C WCAG 2, success criterion 1.4.7).",
    }),
    gainDb: Nullable(Type.Number(), {
      description: 'Gain to apply to this file to use it as a bed (dB; negative is quieter); null for silence.',
    }),
    bedIntegratedLufs: Lufs('Integrated loudness of the bed after that gain.'),
    bedMaxShortTermLufs: Lufs('Loudest short-term (3 s) loudness of the bed after that gain.'),
    rule: Type.String({ description: 'The rule in words, with its sources.' }),
  },
  { ...strict, description: 'Suggested mix level for this file as a bed under narration.' },
);

export const AudioMeasurement = Type.Object(
  {
    durationSeconds: Seconds(
      'Measured duration: decoded sample frames / sample rate (MP3 encoder delay and padding removed).',
    ),
    sampleRate: Type.Integer({ minimum: 1, description: 'Sample rate (Hz).' }),
    channels: Type.Integer({ minimum: 1, description: 'Channels measured.' }),
    integratedLufs: Lufs(
      'Integrated loudness (ITU-R BS.1770-4 / EBU R128, gated), LUFS; null when the whole file is below the -70 LUFS gate.',
    ),
    truePeakDbtp: Nullable(Type.Number(), {
      description: 'True peak (4x oversampled below 96 kHz), dBTP; null for digital silence.',
    }),
    samplePeakDbfs: Nullable(Type.Number(), { description: 'Sample peak, dBFS; null for digital silence.' }),
    loudnessRangeLu: Nullable(Type.Number({ minimum: 0 }), {
      description: 'Loudness range (EBU Tech 3342), LU; null when too short (under 3 s) or silent.',
    }),
    maxShortTermLufs: Lufs('Loudest short-term (3 s) loudness, LUFS.'),
    sections: Type.Array(AudioSection, {
      maxItems: 64,
      description: 'Sections with start and end seconds, in time order.',
    }),
    quietStretches: Type.Array(QuietStretch, {
      maxItems: 64,
      description: 'Stretches quiet enough to sit under speech, in time order.',
    }),
    narrationBed: NarrationBed,
    method: Type.String({ description: 'How it was measured.' }),
  },
  titled('AudioMeasurement', 'What the archive measured in an audio file when it was accepted for review.'),
);
export type AudioMeasurement = Static<typeof AudioMeasurement>;

export const Disagreement = Type.Object(
  {
    field: StringEnum(['duration', 'loudness'] as const, { description: 'What was declared.' }),
    declared: Type.Number({ description: 'The declared value (seconds, or LUFS).' }),
    measured: Nullable(Type.Number(), { description: 'The measured value.' }),
    detail: Type.String({ description: 'The disagreement in words.' }),
  },
  {
    ...strict,
    description:
      'A declared value the measurement contradicts (duration more than max(2 s, 5 %) apart; loudness more than 1 LU).',
  },
);
export type Disagreement = Static<typeof Disagreement>;

export const DeclaredAudio = Type.Object(
  {
    durationSeconds: Nullable(Type.Number({ minimum: 0 }), {
      description: "Duration the contribution declared (the arrangement's m:ss), or null.",
    }),
    integratedLufs: Nullable(Type.Number(), {
      description: 'Integrated loudness the contribution declared for the file, or null.',
    }),
  },
  { ...strict, description: 'What the contribution declared, kept apart from what was measured.' },
);
export type DeclaredAudio = Static<typeof DeclaredAudio>;

/** On a published or stored asset: the measurement, what was declared, and where they disagree. */
export const AssetMeasurement = Type.Object(
  {
    ...AudioMeasurement.properties,
    declared: DeclaredAudio,
    disagreements: Type.Array(Disagreement, {
      maxItems: 2,
      description: 'Declared values the measurement contradicts (empty when they agree or nothing was declared).',
    }),
  },
  titled(
    'AssetMeasurement',
    'Measured by the archive at accept (not declared): duration, loudness, true peak, loudness range, sections, quiet stretches and the narration-bed level; with the declared values beside them.',
  ),
);
export type AssetMeasurement = Static<typeof AssetMeasurement>;

// The domain's types and the schema's must stay the same shape.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameMeasurement: Same<DomainMeasurement, AudioMeasurement> = true;
const sameDisagreement: Same<DomainDisagreement, Disagreement> = true;
void sameMeasurement;
void sameDisagreement;

// ---------- rendered audio (docs/audio.md, "Rendered from the score") ----------

const Url = (description: string) => Type.String({ format: 'uri', description });
const Digest = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });

/**
 * A person's verdict on a score's rendered audio (docs/audio.md, "Listening approval"): written
 * into the score asset of the work file by the review desk (or POST
 * /api/v1/admin/works/{slug}/assets/{assetId}/listening), never by hand. It names the exact audio
 * heard (the lossless master's SHA-256); the build counts it only while that is the audio it
 * serves, so a re-rendered score is unheard again.
 */
export const LISTENING_VERDICTS = ['approved', 'declined'] as const;
export type ListeningVerdict = (typeof LISTENING_VERDICTS)[number];

const listeningFields = {
  verdict: StringEnum(LISTENING_VERDICTS, {
    description:
      'approved: the listener heard it and approves it for reuse (human-listening-approved); declined: heard and not approved (it stays technical-pass).',
  }),
  audioSha256: Digest(
    'SHA-256 of the rendered lossless master (master.flac) the listener heard: the verdict holds for that audio only.',
  ),
  listener: Type.String({
    pattern: '^[A-Za-z][A-Za-z0-9._-]{0,63}$',
    description: 'The listener: the operator-given label of the admin key they acted with (an accountable person).',
  }),
  atUtc: UtcTimestamp('When the verdict was given (UTC).'),
};

export const ListeningFact = Type.Object(
  listeningFields,
  titled('ListeningFact', "A listener's verdict on one rendering of a score, by the digest of the audio heard."),
);
export type ListeningFact = Static<typeof ListeningFact>;

export const RenderedAudioFile = Type.Object(
  {
    name: Type.String({ description: 'File name in the audio folder, e.g. "master.flac", "cut-60.mp3", "loop.flac".' }),
    role: StringEnum(['master', 'cut-30', 'cut-60', 'loop'] as const, {
      description:
        'master: the whole score; cut-30 / cut-60: exactly 30 s / 60 s, the music stopping on a bar line and ringing out (no fade); loop: one period that repeats without a gap (see `loop`).',
    }),
    format: StringEnum(['flac', 'mp3'] as const, {
      description:
        'flac: the lossless master (16-bit); mp3: 192 kbit/s CBR with a LAME header declaring encoder delay and padding.',
    }),
    mediaType: Type.String(),
    sha256: Digest('SHA-256 of the served file.'),
    byteLength: Type.Integer({ minimum: 0 }),
    sampleRate: Type.Integer({ description: 'Hz (48000).' }),
    channels: Type.Integer({ description: '2 (stereo).' }),
    durationSeconds: Seconds(
      'Measured: decoded sample frames / sample rate (the MP3 gapless, delay and padding trimmed).',
    ),
    integratedLufs: Lufs('Measured integrated loudness (LUFS), by the archive meter (EBU R128); the target is -14.'),
    truePeakDbtp: Lufs('Measured true peak (dBTP); at most -1.'),
    loudnessRangeLu: Lufs('Measured loudness range (LU).'),
    gapless: Nullable(
      Type.Object({ encoderDelay: Type.Integer({ minimum: 0 }), padding: Type.Integer({ minimum: 0 }) }, { ...strict }),
      {
        description:
          'MP3: the encoder delay and padding (samples) its LAME header declares, which gapless players trim.',
      },
    ),
    url: Url('Absolute link to the file.'),
  },
  titled('RenderedAudioFile', 'One mastered deliverable of a rendered score.'),
);

export const RenderedAudio = Type.Object(
  {
    status: StringEnum(['rendered', 'failed', 'pending', 'not-offered'] as const, {
      description:
        'rendered: the files below exist; failed: the renderer could not render this score (reason); pending: not rendered yet (made in the background, published with a later build); not-offered: this archive renders no audio (reason says why, e.g. FluidSynth is not installed), or this rendering is not published because its bytes are those of a stored file of the work that is not public (the reason names it).',
    }),
    statement: Nullable(Type.String(), {
      description:
        'What the audio is, e.g. "Rendered from the score by FluidSynth 2.3.1 with the Fluid (R3) General MIDI SoundFont; technical-pass (not listening-approved until a person has listened)."',
    }),
    reason: Nullable(Type.String(), { description: 'Why there is no audio (failed, pending, not-offered).' }),
    reviewState: StringEnum(['technical-pass', 'human-listening-approved'] as const, {
      description:
        'technical-pass: the automated checks only (nobody has approved it after listening); human-listening-approved: a named listener heard exactly this audio (`listening.audioSha256` is the served master.flac) and approved it.',
    }),
    listening: Nullable(
      Type.Object(
        {
          ...listeningFields,
          current: Type.Boolean({
            description:
              'True when the verdict names the audio served now (master.flac); false when it was given on an earlier rendering and counts for nothing.',
          }),
        },
        { ...strict },
      ),
      { description: "The last listener's verdict on this score's rendered audio; null when nobody has given one." },
    ),
    scoreSha256: Nullable(Digest('SHA-256 of the score file rendered.')),
    midiSha256: Nullable(
      Digest(
        "SHA-256 of the MIDI file rendered, as served in the audio folder as score.mid: Verovio's MIDI of the score with the work's title and composer as text events at its start (they make no sound); for an engraved score the same file as its score.mid download.",
      ),
    ),
    midiSeconds: Nullable(Seconds('Length of the MIDI (its last event), seconds.')),
    renderer: Nullable(
      Type.Object(
        { name: Type.String(), version: Type.String(), license: Type.String(), url: Type.String() },
        { ...strict },
      ),
      { description: 'The synthesizer and its license.' },
    ),
    soundFont: Nullable(
      Type.Object(
        {
          name: Type.String(),
          file: Type.String(),
          sha256: Digest('SHA-256 of the SoundFont file.'),
          license: Type.String(),
          source: Type.String(),
        },
        { ...strict },
      ),
      { description: 'The General MIDI SoundFont and its license.' },
    ),
    files: Type.Array(RenderedAudioFile),
    cuts: Type.Array(
      Type.Object(
        {
          seconds: Seconds('The cut is exactly this long.'),
          barIndex: Type.Integer({
            minimum: 1,
            description: 'The bar line the music stops on (1 = the first bar line).',
          }),
          barSeconds: Seconds('Where that bar line is, seconds.'),
        },
        { ...strict },
      ),
    ),
    loop: Nullable(
      Type.Object(
        {
          startFrame: Type.Integer({ minimum: 0 }),
          endFrame: Type.Integer({
            minimum: 1,
            description: 'The loop file holds frames [startFrame, endFrame); play on from startFrame.',
          }),
          seconds: Seconds('Loop length.'),
          longestSilenceMs: Type.Number({
            minimum: 0,
            description:
              'Longest silence (every channel under -60 dBFS) measured over ten repetitions of the lossless loop, ms.',
          }),
          seamless: Type.Boolean({ description: 'True only when that measurement found no silence over 5 ms.' }),
        },
        { ...strict },
      ),
      { description: 'Loopable arrangements: the lossless loop and its measured seams; null otherwise.' },
    ),
    links: Type.Object(
      {
        provenance: Url(
          'The provenance page: score SHA-256 -> MIDI -> audio SHA-256, renderer, SoundFont, licenses, the edition and its source.',
        ),
        midi: Nullable(Url('The MIDI file rendered.')),
      },
      { ...strict },
    ),
  },
  titled('RenderedAudio', 'Audio rendered from a score by the archive (docs/audio.md, "Rendered from the score").'),
);
export type RenderedAudio = Static<typeof RenderedAudio>;
