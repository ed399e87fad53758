/**
 * The review proposal of a submission, built as a pure function over a small read interface: the
 * content repository's current main (work files, stored-file digests) and the served catalog
 * (composers), plus the verified contributor files. The review service supplies the reader and
 * hands the result to the forge; nothing here touches the filesystem, git or the network.
 */
import { createHash } from 'node:crypto';
import type { MusicContributionInput, StoredContribution } from '../../schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../schemas/correction.ts';
import type { ReviewRecord } from '../../schemas/review.ts';
import type { WorkContent } from '../../schemas/work.ts';
import { applyCorrection } from './correction.ts';
import { assetMeasurement } from './measured.ts';
import { contributionText, correctionText } from './messages.ts';
import { buildContributionChange, newWorkSlug, type ComposerFacts, type VerifiedFile } from './proposal.ts';
import { addGenre, addInstruments } from './new-terms.ts';
import { newWorkFile, parseFrontMatter, rewriteWorkFile, splitWorkFile } from '../work-file.ts';
import type { PersonContent } from '../../schemas/person.ts';
import { personFileText } from '../people.ts';

export interface ProposalChange {
  path: string;
  content: string | Buffer | null;
}

export interface ProposalInput {
  trackingCode: string;
  /** Pull request title / first line of the commit message. */
  title: string;
  /** Full commit message (carries the tracking code, submitter, rights, summary, rationale). */
  message: string;
  /** Pull request body (a Markdown table of the submission, as Staticman does). */
  body: string;
  changes: ProposalChange[];
  /** Status label, e.g. "status: pending" (labels carry the status, as Decap CMS does). */
  labels: string[];
  /**
   * The commit the change is written on top of (default: main). A review batch's apply writes
   * each work on the batch's own line, so it is built on what the works before it left there.
   */
  base?: string;
}

/** What building a proposal reads. */
export interface ProposalReader {
  /** Text of `works/<slug>/index.md` on the current main, or null when there is no such work. */
  workFile(slug: string): string | null;
  /** SHA-256 of a file stored beside a work on the current main, or null when it is missing. */
  storedFileSha256(slug: string, file: string): string | null;
  /** Composers of the catalog (a new work must name one: life dates decide its rights). */
  composers(): ComposerFacts[];
  /** Bytes of a verified contributor file, by SHA-256 (a rendering profile's definition). */
  verifiedBytes(sha256: string): Buffer;
  /** Text of a shared file of main (genres.json, instruments.json), or null when there is none. */
  sharedFile?(name: 'genres.json' | 'instruments.json'): string | null;
  /** Text of `people/<slug>.json` on the current main (or the batch's line), or null when there is none. */
  personFile?(slug: string): string | null;
}

/** The proposal, and the git author it is committed as (the submitter, never an address that reaches anyone). */
export interface BuiltProposal {
  input: ProposalInput;
  author: string;
}

const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const workPath = (slug: string) => `works/${slug}/index.md`;
const personPath = (slug: string) => `people/${slug}.json`;

export function authorOf(name: string, kind: string): string {
  const clean = name.replace(/[<>\n\r]/g, '').trim() || 'Contributor';
  return `${clean} <${kind.toLowerCase()}@contributors.invalid>`;
}

/** SHA-256 of an existing asset of a work, by id: stored files hashed by the reader, blobs and URLs by their recorded digest. */
function assetDigest(reader: ProposalReader, slug: string, work: WorkContent, id: number): string | null {
  const asset = [...work.sourceAssets, ...work.arrangements.flatMap((a) => a.assets)].find((x) => x.id === id);
  if (!asset) return null;
  if (asset.file !== undefined) return reader.storedFileSha256(slug, asset.file);
  if (asset.blob !== undefined) return asset.blob.toLowerCase();
  return asset.sha256?.toLowerCase() ?? null;
}

/**
 * A new work an editor merged into an existing work (a probable duplicate) is proposed as what it
 * has become: a `source-score` of that work, its files added with their own license, attribution
 * and source pages; the existing work's facts stay as they are.
 */
export function mergedSubmission(s: MusicContributionInput, into: string | null): MusicContributionInput {
  if (into === null || s.operation !== 'new-work') return s;
  return {
    ...s,
    operation: 'source-score',
    target: { workSlug: into },
    changeSummary:
      `${s.changeSummary}\n\nMerged in review into the existing work "${into}" as another source score (a probable duplicate of it).`.slice(
        0,
        2000,
      ),
  };
}

/**
 * The one work a proposal changes (its folder under `works/`), or null for a rendering profile or
 * a new work with no title: a correction's work, the work an editor merged a new work into, a new
 * work's own slug (newWorkSlug), else the contribution's target.
 */
export function proposalWorkSlug(
  record: StoredContribution | StoredCorrectionReport,
  review: Pick<ReviewRecord, 'mergeInto'>,
): string | null {
  if (record.kind === 'correction-report') return record.report.workSlug ?? null;
  const s = mergedSubmission(record.submission, review.mergeInto?.workSlug ?? null);
  if (s.operation === 'rendering-profile') return null;
  return s.operation === 'new-work' ? newWorkSlug(s) : (s.target?.workSlug ?? null);
}

/** A person record of the reader, parsed; null when there is none (or it is not JSON). */
function personOf(reader: ProposalReader, slug: string): PersonContent | null {
  const text = reader.personFile?.(slug) ?? null;
  if (text === null) return null;
  try {
    return JSON.parse(text) as PersonContent;
  } catch {
    return null;
  }
}

/** Who accepted the item (the key label) and when: the facts it records carry it. */
export function acceptanceOf(
  review: Pick<ReviewRecord, 'actions' | 'acceptedBy'>,
): { by: string; atUtc: string } | null {
  if (review.acceptedBy) return { by: review.acceptedBy.actor, atUtc: review.acceptedBy.atUtc };
  const last = [...(review.actions ?? [])].reverse().find((a) => a.action === 'accept' || a.action === 'merge');
  return last ? { by: last.actor ?? last.reviewer, atUtc: last.atUtc } : null;
}

type ReviewPart = Pick<
  ReviewRecord,
  'verification' | 'assertions' | 'arrangementFacts' | 'mergeInto' | 'termsApproval' | 'acceptedBy'
> &
  Partial<Pick<ReviewRecord, 'actions'>>;

/** Throws ProposalError (from buildContributionChange) when the submission cannot become a change. */
export function buildProposal(
  record: StoredContribution | StoredCorrectionReport,
  review: ReviewPart,
  reader: ProposalReader,
): BuiltProposal {
  const labels = [`status: ${record.status}`];
  const accepted = acceptanceOf({ actions: review.actions ?? [], acceptedBy: review.acceptedBy });
  if (record.kind === 'correction-report') {
    const r = record.report;
    const slug = r.workSlug ?? '';
    const text = slug ? reader.workFile(slug) : null;
    const before = text === null ? null : parseFrontMatter(splitWorkFile(text).frontMatter);
    const result = applyCorrection(before, r, {
      person: (s) => personOf(reader, s),
      accepted,
      trackingCode: record.trackingCode,
    });
    return {
      input: {
        trackingCode: record.trackingCode,
        ...correctionText(record.trackingCode, r),
        labels,
        changes: result.person
          ? [{ path: personPath(result.person.slug), content: personFileText(result.person.after) }]
          : [{ path: workPath(slug), content: rewriteWorkFile(text!, before!, result.after) }],
      },
      author: authorOf(r.reporterName, r.reporterKind),
    };
  }
  const s = mergedSubmission(record.submission, review.mergeInto?.workSlug ?? null);
  // A new work is read at the slug it would take, so one that exists by now is refused, never overwritten.
  const slug = s.operation === 'new-work' ? newWorkSlug(s) : (s.target?.workSlug ?? null);
  const text = slug ? reader.workFile(slug) : null;
  const work = text === null ? null : parseFrontMatter(splitWorkFile(text).frontMatter);
  const verified: (VerifiedFile | null)[] = s.assets.map((_, i) => {
    const v = review.verification.find((e) => e.index === i && e.status === 'verified');
    return v && v.sha256 !== null && v.byteLength !== null
      ? {
          sha256: v.sha256,
          byteLength: v.byteLength,
          technicalChecks: v.checks?.summary.slice(0, 2000) ?? null,
          measured: assetMeasurement(v),
          checksPassed: v.checks?.passed === true,
        }
      : null;
  });
  const manifest = s.assets.findIndex((a) => a.kind === 'manifest');
  const manifestFile = manifest >= 0 ? verified[manifest] : null;
  const change = buildContributionChange({
    trackingCode: record.trackingCode,
    submission: s,
    work,
    workFileSha256: text === null ? null : sha256Of(text),
    // The front matter passed the content lint on main, so it has the WorkContent shape.
    assetSha256: (id) => (work && slug ? assetDigest(reader, slug, work as WorkContent, id) : null),
    verified,
    assertions: review.assertions,
    editorFacts: review.arrangementFacts?.facts ?? null,
    knownComposers: s.operation === 'new-work' ? reader.composers() : [],
    person: (slug) => personOf(reader, slug),
    accepted,
    profileBytes:
      s.operation === 'rendering-profile' && manifestFile ? reader.verifiedBytes(manifestFile.sha256) : null,
  });
  const changes =
    change.kind === 'profile'
      ? [{ path: `profiles/${change.slug}.json`, content: change.content }]
      : [
          {
            path: workPath(change.slug),
            content:
              change.before === null
                ? newWorkFile(change.after, change.body)
                : rewriteWorkFile(text!, change.before, change.after),
          },
          ...(change.people ?? []).map((p) => ({ path: personPath(p.slug), content: personFileText(p.after) })),
        ];
  // New vocabulary terms land only with an editor's approval; without it the content lint refuses
  // a work that names them.
  const terms = review.termsApproval ? s.work?.newTerms : undefined;
  if (terms?.genre) {
    const text = reader.sharedFile?.('genres.json') ?? '[]\n';
    const next = addGenre(text, terms.genre);
    if (next !== null) changes.push({ path: 'genres.json', content: next });
  }
  if (terms?.instruments?.length) {
    const text = reader.sharedFile?.('instruments.json') ?? '[]\n';
    const next = addInstruments(text, terms.instruments);
    if (next !== null) changes.push({ path: 'instruments.json', content: next });
  }
  return {
    input: { trackingCode: record.trackingCode, ...contributionText(record.trackingCode, s), labels, changes },
    author: authorOf(s.submittedBy.name, s.submittedBy.kind),
  };
}
