/**
 * The review workflow (docs/review.md): accept, request-information, decline and apply for
 * contributions and correction reports, over the intake records, a forge and the content
 * repository.
 *
 *   accept              fetch + verify every contributor file into the blob store, run the
 *                       technical checks, open (or rewrite) the review branch / PR, -> accepted.
 *                       A digest mismatch, a failed check or a proposal that cannot be built does
 *                       not block accept: it is recorded as a blocker and blocks apply.
 *   request-information -> needs-information with the public note.
 *   decline             close the review (branch kept), -> declined.
 *   apply               under the content-repository lock: rebuild the proposal on the current
 *                       main (stale base / vanished target -> 409, nothing merged), lint it,
 *                       rewrite the branch, merge --no-ff, rebuild-and-swap; only then -> applied
 *                       with changedCanonicalData. A failed build resets main to where it was, the
 *                       old site keeps serving, the item stays accepted with the error recorded.
 *
 * Review state beyond the tracking record (verification, blockers, assertions, errors) lives in
 * its own collection, ARCHIVE_DATA_DIR/state/reviews, keyed by tracking code.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { git, withContentRepoLock } from '../site/content-repo.ts';
import type { IntakeStore } from '../contributions/store.ts';
import { RecordStore } from '../storage/record-store.ts';
import { fetchContributorFile } from './fetch.ts';
import { runTechnicalChecks } from './checks.ts';
import { createForge } from './forge.ts';
import { LocalForge, ProposalLintError } from './forge-local.ts';
import { FetchRefusedError, type FetchContributorFile, type FetchOptions, type Forge, type ProposalInput, type ReviewRef, type RunTechnicalChecks, type TechnicalCheckResult } from './types.ts';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';
import { canTransition, transition } from '../../src/domain/contributions/status.ts';
import type { ReviewLink, StoredContribution, SubmissionKind, SubmissionStatus } from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';
import type { AdminAction, AdminActionBody, AssertableState, ReviewRecord, VerificationEntry } from '../../src/schemas/review.ts';
import { mergeMessage } from '../../src/domain/review/messages.ts';
import { ProposalError } from '../../src/domain/review/proposal.ts';
import { buildProposal } from '../../src/domain/review/proposal-input.ts';
import { annotateMeasurements } from '../../src/domain/review/measured.ts';
import { parseFrontMatter, splitWorkFile } from '../../src/domain/work-file.ts';
import { QueueIndex, queueEntryOf, type QueueEntry, type QueueFilter } from '../../src/domain/review/queue.ts';

type Stored = StoredContribution | StoredCorrectionReport;

/**
 * Who performs a review action: the authenticated admin key's label (what commits, tracking
 * history and the admin view record; issue 13, item 7), and whether the operator named that key
 * (`label=secret`): only such a key may assert listening approval.
 */
export interface ReviewActor {
  label: string;
  operatorLabeled: boolean;
}

/** The actor of actions that arrive from GitHub (a merged or closed pull request, signed webhook). */
export const GITHUB_ACTOR: ReviewActor = { label: 'github-webhook', operatorLabeled: false };


export interface ReviewServiceOverrides {
  fetchFile?: FetchContributorFile;
  runChecks?: RunTechnicalChecks;
  /** Merged over the fetch options from the environment (tests trust their own CA this way). */
  fetchOptions?: Partial<FetchOptions>;
  forge?: Forge;
  now?: () => Date;
}


const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

function toLink(ref: ReviewRef): ReviewLink {
  return { kind: ref.kind === 'github-pull-request' ? 'pull-request' : 'branch', branch: ref.branch, url: ref.url, openedAtUtc: ref.openedAtUtc };
}

export class ReviewService {
  readonly intake: IntakeStore;
  readonly reviews: RecordStore<ReviewRecord>;
  private readonly ctx: AppContext;
  private readonly local: LocalForge;
  private forgePromise: Promise<Forge> | null = null;
  private readonly overrides: ReviewServiceOverrides;
  private readonly now: () => Date;

  constructor(ctx: AppContext, overrides: ReviewServiceOverrides = {}) {
    this.ctx = ctx;
    this.overrides = overrides;
    this.now = overrides.now ?? (() => new Date());
    this.intake = ctx.intake;
    this.reviews = new RecordStore(path.join(ctx.config.dataDir, 'state', 'reviews'));
    this.local = new LocalForge({
      contentRepo: ctx.config.contentRepo,
      scratchDir: path.join(ctx.config.dataDir, 'worktrees'),
      lint: (dir) => loadCatalog(dir).messages.map(formatLintMessage),
      author: (input) => this.authors.get(input.trackingCode) ?? null,
      now: this.now,
    });
    // Every write of a submission from now on keeps the queue index current (this process is
    // the only writer of its data folder); what was stored before is loaded once, on first use.
    const onWrite = (_id: string, value: Stored) => this.queueIndex.put(queueEntryOf(value));
    this.intake.contributions.watch(onWrite);
    this.intake.correctionReports.watch(onWrite);
  }

  private readonly queueIndex = new QueueIndex();
  private queueLoaded: Promise<void> | null = null;

  /** Read every stored submission once into the queue index; writes seen meanwhile win. */
  loadQueue(): Promise<void> {
    this.queueLoaded ??= (async () => {
      for (const kind of ['contribution', 'correction-report'] as const) {
        for await (const r of this.store(kind).all()) this.queueIndex.putIfAbsent(queueEntryOf(r));
      }
    })();
    return this.queueLoaded;
  }

  private readonly authors = new Map<string, string>();

  forge(): Promise<Forge> {
    this.forgePromise ??= this.overrides.forge ? Promise.resolve(this.overrides.forge) : createForge(this.ctx.config.github, this.local);
    return this.forgePromise;
  }

  private store(kind: SubmissionKind): RecordStore<Stored> {
    return (kind === 'contribution' ? this.intake.contributions : this.intake.correctionReports) as RecordStore<Stored>;
  }

  async get(kind: SubmissionKind, code: string): Promise<{ record: Stored; review: ReviewRecord | null }> {
    const record = await this.store(kind).get(code);
    if (!record) throw new ProblemError('not-found', `No ${kind === 'contribution' ? 'contribution' : 'correction report'} has the tracking code ${code}.`);
    return { record, review: await this.reviews.get(code) };
  }

  /** One page of the queue (open items by default), oldest first, with per-status counts. */
  async queue(filter: QueueFilter, page: number, pageSize: number): Promise<{ items: QueueEntry[]; total: number; counts: Record<string, number> }> {
    await this.loadQueue();
    return { ...this.queueIndex.page(filter, page, pageSize), counts: this.queueIndex.counts() };
  }

  async act(kind: SubmissionKind, code: string, action: AdminAction, body: AdminActionBody, actor: ReviewActor): Promise<{ record: Stored; review: ReviewRecord | null }> {
    const { record } = await this.get(kind, code);
    const target: SubmissionStatus = action === 'accept' ? 'accepted' : action === 'apply' ? 'applied' : action === 'decline' ? 'declined' : 'needs-information';
    if (!canTransition(record.status, target)) {
      throw new ProblemError('conflict', `${code} is "${record.status}"; "${action}" needs it to be able to become "${target}" (${illegalHint(record.status)}).`, { currentStatus: record.status });
    }
    if (body.assert && kind !== 'contribution') throw new ProblemError('conflict', 'Review-state assertions apply to contributed assets only; correction reports carry no assets.', { currentStatus: record.status });
    if (body.arrangement && (record.kind !== 'contribution' || !['arrangement', 'performance'].includes(record.submission.operation))) {
      throw new ProblemError('conflict', 'Arrangement facts (body.arrangement) apply to contributions with operation "arrangement" or "performance" only.', { currentStatus: record.status });
    }
    const listening = body.assert?.arrangement === 'human-listening-approved' || (body.assert?.assets ?? []).some((a) => a.reviewState === 'human-listening-approved');
    if (listening && !actor.operatorLabeled) {
      throw new ProblemError(
        'forbidden',
        `Listening approval is asserted by an accountable person: the key "${actor.label}" has no operator-given label. Configure the key as label=secret in ARCHIVE_ADMIN_KEYS (the label is recorded in the commit and the history) and act with it.`,
      );
    }
    switch (action) {
      case 'accept':
        return this.accept(kind, code, body, actor);
      case 'request-information':
        return this.simpleMove(kind, code, 'needs-information', body, body.note ?? 'A reviewer needs more information before deciding.', actor);
      case 'decline':
        return this.decline(kind, code, body, actor);
      case 'apply':
        return this.apply(kind, code, body, actor);
    }
  }

  // ------------------------------------------------------------------------------------------

  private async loadReview(kind: SubmissionKind, code: string): Promise<ReviewRecord> {
    return (
      (await this.reviews.get(code)) ?? {
        recordVersion: 1,
        trackingCode: code,
        kind,
        forge: null,
        ref: null,
        verification: [],
        blockers: [],
        assertions: null,
        lastError: null,
        appliedCommit: null,
        actions: [],
      }
    );
  }

  private async saveReview(state: ReviewRecord): Promise<void> {
    if ((await this.reviews.update(state.trackingCode, () => state)) === null) await this.reviews.create(state.trackingCode, state);
  }

  private recordAssertions(state: ReviewRecord, body: AdminActionBody, actor: ReviewActor): void {
    if (body.arrangement) {
      // Each given field replaces the earlier setting; fields left out keep it.
      state.arrangementFacts = { actor: actor.label, atUtc: utcTimestamp(this.now()), facts: { ...(state.arrangementFacts?.facts ?? {}), ...body.arrangement } };
    }
    if (!body.assert) return;
    const assets: Record<string, AssertableState> = { ...(state.assertions?.assets ?? {}) };
    for (const a of body.assert.assets ?? []) assets[String(a.index)] = a.reviewState;
    state.assertions = {
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: utcTimestamp(this.now()),
      assets,
      arrangement: body.assert.arrangement ?? state.assertions?.arrangement ?? null,
    };
  }

  /** Move the tracking record (re-checked under the record's lock) and show it on the review. */
  private async move(kind: SubmissionKind, code: string, to: SubmissionStatus, note: string | null, ref: ReviewRef | null, actor: ReviewActor): Promise<Stored> {
    let illegal: SubmissionStatus | null = null;
    const next = await this.store(kind).update(code, (current) => {
      if (!canTransition(current.status, to)) {
        illegal = current.status;
        return undefined;
      }
      const moved = transition(current, to, utcTimestamp(this.now()), note, actor.label);
      return ref ? { ...moved, review: toLink(ref) } : moved;
    });
    if (illegal !== null) throw new ProblemError('conflict', `${code} is "${illegal}" now; it cannot become "${to}" (${illegalHint(illegal)}).`, { currentStatus: illegal });
    if (!next) throw new ProblemError('not-found', `No record has the tracking code ${code}.`);
    if (ref) await (await this.forge()).setStatus(ref, to).catch(() => undefined);
    return next;
  }

  private async simpleMove(kind: SubmissionKind, code: string, to: SubmissionStatus, body: AdminActionBody, note: string, actor: ReviewActor) {
    const state = await this.loadReview(kind, code);
    const record = await this.move(kind, code, to, note, null, actor);
    if (state.ref) await (await this.forge()).setStatus(state.ref, to).catch(() => undefined);
    state.actions.push({ action: to === 'needs-information' ? 'request-information' : 'decline', reviewer: body.reviewer, actor: actor.label, atUtc: utcTimestamp(this.now()), note: body.note ?? null, outcome: to });
    await this.saveReview(state);
    return { record, review: state };
  }

  private async decline(kind: SubmissionKind, code: string, body: AdminActionBody, actor: ReviewActor) {
    const state = await this.loadReview(kind, code);
    const note = body.note ?? 'Declined by a reviewer. Nothing in the catalog changed.';
    if (state.ref) await (await this.forge()).close(state.ref, note);
    return this.simpleMove(kind, code, 'declined', body, note, actor);
  }

  private async accept(kind: SubmissionKind, code: string, body: AdminActionBody, actor: ReviewActor) {
    const { record } = await this.get(kind, code);
    const state = await this.loadReview(kind, code);
    this.recordAssertions(state, body, actor);
    if (record.kind === 'contribution') {
      // Declared against measured (issue 13): a disagreement is a warning for the reviewer and lands in the record.
      const measured = annotateMeasurements(await this.verify(record), record.submission, this.performedSeconds(record));
      state.verification = measured.entries;
      state.warnings = measured.warnings;
    }
    state.blockers = verificationBlockers(state.verification);
    // Open (or rewrite) the review on the current main; a proposal that cannot be built is a blocker.
    await withContentRepoLock(this.ctx.config.contentRepo, async () => {
      try {
        const input = await this.proposal(record, state);
        const forge = await this.forge();
        state.ref = await forge.open(input);
        state.forge = forge.name;
      } catch (err) {
        state.blockers.push(...reasonsOf(err));
      }
    });
    const note = body.note ?? (state.blockers.length > 0 ? 'Accepted for review; it cannot be applied until the reviewers resolve the recorded blockers.' : 'Accepted by a reviewer; waiting to be applied. Nothing in the catalog has changed yet.');
    const moved = await this.move(kind, code, 'accepted', note, state.ref, actor);
    const warned = state.warnings?.length ? ` and ${state.warnings.length} warning(s): ${state.warnings.join(' ')}` : '';
    state.actions.push({ action: 'accept', reviewer: body.reviewer, actor: actor.label, atUtc: utcTimestamp(this.now()), note: body.note ?? null, outcome: `${state.blockers.length > 0 ? `accepted with ${state.blockers.length} blocker(s)` : 'accepted'}${warned}` });
    await this.saveReview(state);
    return { record: moved, review: state };
  }

  private async apply(kind: SubmissionKind, code: string, body: AdminActionBody, actor: ReviewActor) {
    const repo = this.ctx.config.contentRepo;
    // One apply at a time per content repository: rewrite, merge and rebuild happen as one step.
    return withContentRepoLock(repo, async () => {
      const { record } = await this.get(kind, code);
      if (!canTransition(record.status, 'applied')) {
        throw new ProblemError('conflict', `${code} is "${record.status}"; only an accepted item can be applied (${illegalHint(record.status)}).`, { currentStatus: record.status });
      }
      const state = await this.loadReview(kind, code);
      this.recordAssertions(state, body, actor);
      const refuse = async (reasons: string[]) => {
        state.blockers = reasons;
        state.actions.push({ action: 'apply', reviewer: body.reviewer, actor: actor.label, atUtc: utcTimestamp(this.now()), note: body.note ?? null, outcome: `refused: ${reasons.join(' ')}` });
        await this.saveReview(state);
        return new ProblemError('conflict', `${code} was not applied and nothing was merged: ${reasons.join(' ')}`, { currentStatus: record.status, reasons });
      };
      const blocked = verificationBlockers(state.verification);
      if (blocked.length > 0) throw await refuse(blocked);
      let input: ProposalInput;
      const forge = await this.forge();
      try {
        input = await this.proposal(record, state);
        state.ref = await forge.open(input);
        state.forge = forge.name;
      } catch (err) {
        throw await refuse(reasonsOf(err));
      }
      const before = await this.local.main();
      const started = Date.now();
      let merged: string;
      try {
        merged = (await forge.merge(state.ref, mergeMessage(code, input.title, actor.label, body.reviewer, body.note ?? null))).commit;
        await this.ctx.rebuilder.rebuildAndSwap();
      } catch (err) {
        // Nothing half-merged: main goes back to where it was; the old build keeps serving.
        if ((await this.local.main()) !== before) await this.local.resetMain(before);
        const message = (err as Error).message.slice(0, 4000);
        state.lastError = { atUtc: utcTimestamp(this.now()), message };
        state.actions.push({ action: 'apply', reviewer: body.reviewer, actor: actor.label, atUtc: utcTimestamp(this.now()), note: body.note ?? null, outcome: `failed: ${message.slice(0, 500)}` });
        await this.saveReview(state);
        throw new ProblemError('conflict', `${code} was not applied: ${message.split('\n')[0]} The previous site keeps serving; main was reset and the item stays "accepted" with the error recorded.`, {
          currentStatus: record.status,
          reasons: [message],
        });
      }
      const moved = await this.move(kind, code, 'applied', body.note ?? 'Applied: the change is in the canonical record (JSON, Markdown and website).', state.ref, actor);
      state.appliedCommit = merged;
      state.blockers = [];
      state.lastError = null;
      state.actions.push({ action: 'apply', reviewer: body.reviewer, actor: actor.label, atUtc: utcTimestamp(this.now()), note: body.note ?? null, outcome: `applied as ${merged.slice(0, 12)} (merge + rebuild ${Date.now() - started} ms)` });
      await this.saveReview(state);
      return { record: moved, review: state };
    });
  }

  // ------------------------------------------------------------------------------------------

  /** Fetch, verify and check every contributor file (sequentially; files are few). */
  private async verify(record: StoredContribution): Promise<VerificationEntry[]> {
    const fetchFile = this.overrides.fetchFile ?? fetchContributorFile;
    const runChecks = this.overrides.runChecks ?? runTechnicalChecks;
    const options: FetchOptions = { ...this.ctx.config.fetch, ...this.overrides.fetchOptions };
    const out: VerificationEntry[] = [];
    for (const [index, asset] of record.submission.assets.entries()) {
      const base = { index, url: asset.downloadUrl ?? null, declaredSha256: asset.sha256?.toLowerCase() ?? null };
      if (!asset.downloadUrl) {
        out.push({ ...base, status: 'not-fetched', sha256: null, byteLength: null, mediaType: null, reason: 'no downloadUrl; the asset links its source page', checks: null });
        continue;
      }
      try {
        const file = await fetchFile(asset.downloadUrl, this.ctx.blobs, { ...options, expectedSha256: asset.sha256 ?? null });
        let checks: TechnicalCheckResult;
        try {
          checks = await this.ctx.blobs.withLocalFile(file.sha256, (local) => runChecks(asset.kind, local));
        } catch (err) {
          checks = { kind: asset.kind, passed: false, summary: `The technical checks failed to run: ${(err as Error).message}`, measurements: {} };
        }
        out.push({ ...base, status: 'verified', sha256: file.sha256, byteLength: file.byteLength, mediaType: file.mediaType, reason: null, checks });
      } catch (err) {
        const reason = err instanceof FetchRefusedError ? `${err.reason}: ${err.message}` : (err as Error).message;
        out.push({ ...base, status: 'refused', sha256: null, byteLength: null, mediaType: null, reason, checks: null });
      }
    }
    return out;
  }

  /** For a performance: the declared duration of the arrangement it performs, from main (null otherwise). */
  private performedSeconds(record: StoredContribution): number | null {
    const s = record.submission;
    const slug = s.target?.workSlug;
    if (s.operation !== 'performance' || !slug || s.target?.assetId == null) return null;
    const file = path.join(this.ctx.config.contentRepo, 'works', slug, 'index.md');
    if (!existsSync(file)) return null;
    try {
      const work = parseFrontMatter(splitWorkFile(readFileSync(file, 'utf8')).frontMatter) as { arrangements?: { id?: unknown; durationSeconds?: unknown }[] };
      const arr = work.arrangements?.find((a) => a.id === s.target!.assetId);
      return typeof arr?.durationSeconds === 'number' ? arr.durationSeconds : null;
    } catch {
      return null;
    }
  }

  /** Build the proposal on the current main (caller holds the content-repository lock). */
  private async proposal(record: Stored, state: ReviewRecord): Promise<ProposalInput> {
    const repo = this.ctx.config.contentRepo;
    const inRepo = (rel: string) => path.join(repo, rel);
    // The reader is synchronous and the blob store may be remote: read the small verified files
    // (a rendering profile's definition is one) before building.
    const small = new Map<string, Buffer>();
    for (const v of state.verification ?? []) {
      if (v.status === 'verified' && v.sha256 && (v.byteLength ?? Infinity) <= VERIFIED_BYTES_PREFETCH_MAX && !small.has(v.sha256)) small.set(v.sha256, await this.ctx.blobs.readBytes(v.sha256));
    }
    const built = buildProposal(record, state, {
      workFile: (slug) => (existsSync(inRepo(`works/${slug}/index.md`)) ? readFileSync(inRepo(`works/${slug}/index.md`), 'utf8') : null),
      storedFileSha256: (slug, file) => {
        const abs = inRepo(path.join('works', slug, file));
        return existsSync(abs) ? sha256Of(readFileSync(abs)) : null;
      },
      // The served build's index of main (its distinct composers), not a reload of every work file.
      composers: () => this.ctx.handle.current.catalog.composers,
      verifiedBytes: (sha256) => {
        const bytes = small.get(sha256);
        if (!bytes) throw new Error(`the verified file ${sha256} is not among the files read for this proposal`);
        return bytes;
      },
    });
    this.authors.set(record.trackingCode, built.author);
    return built.input;
  }
}

/** Verified contributor files up to this size are read before a proposal is built (profile definitions). */
const VERIFIED_BYTES_PREFETCH_MAX = 8 * 1024 * 1024;

function verificationBlockers(entries: VerificationEntry[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.status === 'refused') out.push(`Asset ${e.index} (${e.url}) was not verified: ${e.reason}.`);
    else if (e.status === 'verified' && e.checks && !e.checks.passed) out.push(`Asset ${e.index} failed its technical checks: ${e.checks.summary}`);
  }
  return out;
}

function reasonsOf(err: unknown): string[] {
  if (err instanceof ProposalError) return err.reasons;
  if (err instanceof ProposalLintError) return [`The proposal does not pass the content lint: ${err.messages.slice(0, 20).join('; ')}`];
  return [`The proposal could not be opened: ${(err as Error).message}`];
}

function illegalHint(status: SubmissionStatus): string {
  switch (status) {
    case 'applied':
    case 'declined':
      return `"${status}" is final`;
    case 'pending':
    case 'needs-information':
      return 'accept it first';
    case 'accepted':
      return 'it is already accepted';
  }
}

/** Read the branch's commit log line by line (tests and the CLI's show). */
export async function reviewLog(repo: string, branch: string): Promise<string> {
  return git(repo, ['log', '--format=%H %an%n%B', '-n', '1', branch]);
}
