/**
 * The content-repository edit that publication makes: one new arrangement in the front matter of
 * `works/<slug>/index.md`, whose assets reference the library's blobs by SHA-256 (no re-upload;
 * the front server serves public blob assets at /blobs/<sha256>). Review states and rights are
 * copied from the track, never raised: a technical pass stays "technical-pass".
 *
 * The edit goes through the `yaml` Document API so every other line of the file stays as written.
 */
import YAML from 'yaml';
import { trySplitWorkFile } from '../work-file.ts';
import type { AssetKind } from '../../schemas/common.ts';
import type { MusicLibraryTrackInput } from '../../schemas/library.ts';
import type { ArrangementContent, AssetContent, WorkContent } from '../../schemas/work.ts';
import { isAudioKind, type PublicationPlan } from './eligibility.ts';

const DEFAULT_MEDIA_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  midi: 'audio/midi',
  musicxml: 'application/vnd.recordare.musicxml+xml',
  mxl: 'application/vnd.recordare.musicxml',
  'score-pdf': 'application/pdf',
  'score-image': 'image/png',
};

/** "m:ss" for a whole number of seconds (the work schema's duration form). */
export function formatDuration(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The last segment of a client-supplied name (it may hold either kind of slash). */
export function baseName(fileName: string): string {
  const parts = fileName.split(/[\\/]/).filter((p) => p !== '' && p !== '.' && p !== '..');
  return parts.at(-1) ?? 'file';
}

function mediaTypeOf(contentType: string, kind: AssetKind): string {
  const bare = contentType.split(';')[0]!.trim();
  return bare.length > 0 && bare.length <= 120 ? bare : (DEFAULT_MEDIA_TYPES[kind] ?? 'application/octet-stream');
}

function nextIds(work: WorkContent): { assetId: number; arrangementId: number; rank: number } {
  const assetIds = [
    ...work.sourceAssets.map((a) => a.id),
    ...work.arrangements.flatMap((a) => a.assets.map((x) => x.id)),
  ];
  return {
    assetId: Math.max(0, ...assetIds) + 1,
    arrangementId: Math.max(0, ...work.arrangements.map((a) => a.id)) + 1,
    rank: Math.max(0, ...work.arrangements.map((a) => a.rank)) + 1,
  };
}

export interface ArrangementDraft {
  arrangement: ArrangementContent;
  assetIds: number[];
}

/** The arrangement a publication adds to the work, from an eligible plan. */
export function buildArrangement(input: {
  track: MusicLibraryTrackInput;
  plan: PublicationPlan;
  curator: string;
  nowUtc: string;
}): ArrangementDraft {
  const { track, plan, curator, nowUtc } = input;
  const { evidence, work } = plan;
  const ids = nextIds(work);
  const hasAudio = plan.files.some((f) => isAudioKind(f.assetKind));
  const evidenceText = evidence.evidenceUrls.join(' ');
  const assets: AssetContent[] = plan.files.map((f, i) => ({
    id: ids.assetId + i,
    kind: f.assetKind,
    title: clip(`${track.title}: ${baseName(f.fileName)}`, 180),
    blob: f.sha256,
    sha256: f.sha256,
    byteLength: f.byteLength,
    sourcePageUrl: evidence.evidenceUrls[0]!,
    mediaType: mediaTypeOf(f.contentType, f.assetKind),
    rightsStatus: track.rightsStatus,
    license: track.license,
    attribution: track.attribution,
    reviewState: track.reviewStatus,
    access: 'public',
  }));
  const arrangement: ArrangementContent = {
    id: ids.arrangementId,
    rank: ids.rank,
    title: clip(track.title, 160),
    style: clip(track.genre ?? 'not stated', 80),
    instrumentation: evidence.instrumentation ?? 'not stated',
    duration: formatDuration(plan.durationSeconds),
    durationSeconds: plan.durationSeconds,
    intendedRole: plan.roles[0]!,
    alsoSuits: plan.roles.slice(1),
    moods: [],
    loopable: false,
    trimmable: false,
    renderingProfileSlugs: [],
    reviewState: track.reviewStatus,
    rights: {
      edition: {
        status: evidence.editionStatus ?? 'public-domain',
        note: clip(`Library track ${track.stableKey} is ${track.rightsStatus}; evidence: ${evidenceText}`, 1000),
      },
      recording: {
        status: evidence.recordingStatus ?? (hasAudio ? 'public-domain' : 'not-applicable'),
        note: clip(
          hasAudio
            ? `Recordings of library track ${track.stableKey}; evidence: ${evidenceText}`
            : 'No recording is published with this arrangement.',
          1000,
        ),
      },
      license: track.license,
      attribution: track.attribution,
    },
    notes: clip(
      `Published from the private library (track ${track.stableKey}) by ${curator} on ${nowUtc.slice(0, 10)}.${evidence.notes ? ` ${evidence.notes}` : ''}`,
      2000,
    ),
    assets,
  };
  return { arrangement, assetIds: assets.map((a) => a.id) };
}

function indented(arrangement: ArrangementContent, indent: number): string {
  const pad = ' '.repeat(indent);
  return `${YAML.stringify([arrangement], { lineWidth: 0 })
    .trimEnd()
    .split('\n')
    .map((line) => `${pad}${line}`)
    .join('\n')}\n`;
}

/** Column of `offset` within its line. */
function column(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/** Leading spaces of the line that holds `offset`. */
function lineIndent(text: string, offset: number): number {
  return /^ */.exec(text.slice(offset - column(text, offset)))![0].length;
}

/**
 * Append `arrangement` to the front matter of a work file. The new item is inserted as text at
 * the end of the `arrangements` list, so every other byte of the file stays as written (a
 * re-serialized document would change quoting and flow-collection spacing). The result is parsed
 * again and must equal the old data plus the new arrangement.
 */
export function addArrangementToWorkFile(fileText: string, arrangement: ArrangementContent): string {
  const split = trySplitWorkFile(fileText);
  if (!split) throw new Error('the work file has no YAML front matter');
  const fm = `${split.frontMatter}\n`;
  const doc = YAML.parseDocument(fm, { schema: 'core' });
  if (doc.errors.length > 0)
    throw new Error(`the work file's front matter is not valid YAML: ${doc.errors[0]!.message}`);
  const list = doc.get('arrangements', true);
  let next: string;
  if (list === undefined || list === null) {
    next = `${fm}arrangements:\n${indented(arrangement, 2)}`;
  } else if (YAML.isSeq(list) && !list.flow && list.range) {
    const at = list.range[1];
    next = `${fm.slice(0, at)}${fm[at - 1] === '\n' ? '' : '\n'}${indented(arrangement, column(fm, list.range[0]))}${fm.slice(at)}`;
  } else if (YAML.isSeq(list) && list.flow && list.items.length === 0 && list.range) {
    // "arrangements: []" becomes a block list under its key.
    const [start, end] = list.range;
    next = `${fm.slice(0, start).trimEnd()}\n${indented(arrangement, lineIndent(fm, start) + 2)}${fm.slice(end).replace(/^[ \t]*\r?\n/, '')}`;
  } else {
    throw new Error('"arrangements" in the work file is not a block list; edit it by hand');
  }
  const before = doc.toJS() as Record<string, unknown>;
  const after = YAML.parse(next, { schema: 'core' }) as Record<string, unknown>;
  const expected = {
    ...before,
    arrangements: [...((before.arrangements as unknown[] | undefined) ?? []), arrangement],
  };
  if (JSON.stringify(after) !== JSON.stringify(expected)) {
    throw new Error('adding the arrangement would change other parts of the work file');
  }
  return `---\n${next}---${split.closing}${split.rest}`;
}
