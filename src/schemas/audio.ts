/**
 * What the archive measured in an audio file (docs/audio.md), the one schema of it: the
 * review record's technical checks, the content front matter and published asset records, and
 * the types (`src/domain/audio/measure.ts` produces it; a compile-time check below keeps the two
 * in step). Measured values are never mixed with declared ones: `declared` holds what the
 * contribution said, `disagreements` where the two differ.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from './common.ts';
import type {
  AudioMeasurement as DomainMeasurement,
  Disagreement as DomainDisagreement,
} from '../domain/audio/measure.ts';

const strict = { additionalProperties: false } as const;
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
  {
    ...strict,
    title: 'AudioMeasurement',
    description: 'What the archive measured in an audio file when it was accepted for review.',
  },
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
  {
    ...strict,
    title: 'AssetMeasurement',
    description:
      'Measured by the archive at accept (not declared): duration, loudness, true peak, loudness range, sections, quiet stretches and the narration-bed level; with the declared values beside them.',
  },
);
export type AssetMeasurement = Static<typeof AssetMeasurement>;

// The domain's types and the schema's must stay the same shape.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameMeasurement: Same<DomainMeasurement, AudioMeasurement> = true;
const sameDisagreement: Same<DomainDisagreement, Disagreement> = true;
void sameMeasurement;
void sameDisagreement;
