/**
 * A contribution whose one file is a real score from the OpenScore String Quartets (CC0): an
 * arrangement of the sample's Gymnopédie No. 1, built over the template a running service
 * answers, and posted over HTTP. The engraving tests and the engraving bench send the same one.
 */
import { createHash } from 'node:crypto';

type Json = Record<string, any>;

export interface ScoreArrangement {
  idempotencyKey: string;
  /** submittedBy.name */
  submitter: string;
  kind: 'musicxml' | 'mxl';
  /** The asset's title. */
  title: string;
  downloadUrl: string;
  /** The file's bytes (their SHA-256 is the asset's). */
  bytes: Uint8Array;
  arrangementTitle: string;
  changeSummary: string;
  rationale: string;
}

/** The contribution template a running service answers (its placeholders still in). */
export async function serviceTemplate(url: string): Promise<Json> {
  const res = await fetch(`${url}/api/v1/music/contributions/template`);
  const t = (await res.json()) as Json;
  return structuredClone(t.data ?? t);
}

/**
 * What an arrangement contribution of a person carries beyond the template's own values; the
 * rest is filled the same for every such contribution (fillArrangement).
 */
export interface ArrangementFill {
  idempotencyKey: string;
  /** submittedBy: a person (kind Human) of this name, reachable at `contact` (default: none given). */
  submitter: string;
  contact?: string | null;
  /** Default: the work satie-gymnopedie-1, no asset. */
  target?: Json;
  /** Default: none. */
  channel?: Json | null;
  /** Laid over the template's rights and: a public-domain composition, US, EU, CA, CC0-1.0, no attribution, checked 2026-01-01. */
  rights: Json;
  /** Each laid over: CC0-1.0, no attribution, review pending. */
  assets: Json[];
  /** Laid over: a music bed, no rendering profiles. */
  arrangement: Json;
  /** The contributor's claim (default true); listening approval is never claimed. */
  technicalValidationPassed?: boolean;
  changeSummary: string;
  rationale: string;
}

/** `t` (a template) filled in as the arrangement contribution `o` describes. */
export function fillArrangement(t: Json, o: ArrangementFill): Json {
  t.idempotencyKey = o.idempotencyKey;
  t.operation = 'arrangement';
  t.target = o.target ?? { workSlug: 'satie-gymnopedie-1', assetId: null, baseSha256: null };
  t.submittedBy = { name: o.submitter, kind: 'Human', agentName: null, agentVersion: null, contact: o.contact ?? null };
  t.channel = o.channel ?? null;
  t.rights = {
    ...t.rights,
    compositionStatus: 'public-domain',
    territory: 'US, EU, CA',
    license: 'CC0-1.0',
    attribution: null,
    checkedAtUtc: '2026-01-01T00:00:00Z',
    ...o.rights,
  };
  t.assets = o.assets.map((a) => ({ license: 'CC0-1.0', attribution: null, reviewState: 'pending', ...a }));
  t.arrangement = { intendedRole: 'music-bed', renderingProfileSlugs: [], ...o.arrangement };
  t.reproducibility = null;
  t.quality = {
    technicalValidationPassed: o.technicalValidationPassed ?? true,
    humanListeningApproved: false,
    technicalChecks: null,
    listeningNotes: null,
  };
  t.changeSummary = o.changeSummary;
  t.rationale = o.rationale;
  return t;
}

/** `t` (a template) filled in as an arrangement of Gymnopédie No. 1 whose one file is the score `o`. */
export function scoreArrangement(t: Json, o: ScoreArrangement): Json {
  return fillArrangement(t, {
    idempotencyKey: o.idempotencyKey,
    submitter: o.submitter,
    rights: {
      editionStatus: 'public-domain',
      recordingStatus: 'not-applicable',
      evidenceUrls: ['https://musescore.com/openscore-string-quartets'],
    },
    assets: [
      {
        kind: o.kind,
        title: o.title,
        downloadUrl: o.downloadUrl,
        sourcePageUrl: 'https://musescore.com/openscore-string-quartets',
        sha256: createHash('sha256').update(o.bytes).digest('hex'),
        mediaType: o.kind === 'mxl' ? 'application/vnd.recordare.musicxml' : 'application/vnd.recordare.musicxml+xml',
        rightsStatus: 'public-domain',
      },
    ],
    arrangement: {
      title: o.arrangementTitle,
      style: 'string quartet',
      instrumentation: 'String quartet',
      duration: '30:00',
    },
    changeSummary: o.changeSummary,
    rationale: o.rationale,
  });
}

/** POST `contribution` to a running service: the answer's status and its JSON body. */
export async function postContribution(url: string, contribution: Json): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${url}/api/v1/music/contributions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(contribution),
  });
  return { status: res.status, body: (await res.json()) as Json };
}
