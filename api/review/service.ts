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
import { existsSync, readFileSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { git, withContentRepoLock } from '../site/content-repo.ts';
import type { SwapResult } from '../site/builds.ts';
import type { IntakeStore } from '../contributions/store.ts';
import { RecordStore } from '../storage/record-store.ts';
import { fsyncDir, writeTempFile } from '../storage/durable-json-file.ts';
import { fetchContributorFile } from './fetch.ts';
import { runTechnicalChecks } from './checks.ts';
import { createForge } from './forge.ts';
import { LocalForge, ProposalLintError } from './forge-local.ts';
import {
  FetchRefusedError,
  type FetchContributorFile,
  type FetchOptions,
  type Forge,
  type ProposalInput,
  type ReviewRef,
  type RunTechnicalChecks,
  type TechnicalCheckResult,
} from './types.ts';
import { formatLintMessage } from '../../src/domain/catalog.ts';
import { lintPartialCopy } from '../../src/domain/content-lint.ts';
import { canTransition, transition } from '../../src/domain/contributions/status.ts';
import type {
  ApplyProgress,
  ReviewLink,
  StoredContribution,
  SubmissionKind,
  SubmissionStatus,
} from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';
import type {
  AdminAction,
  AdminActionBody,
  AssertableState,
  ReviewRecord,
  VerificationEntry,
} from '../../src/schemas/review.ts';
import { mergeMessage } from '../../src/domain/review/messages.ts';
import { ProposalError } from '../../src/domain/review/proposal.ts';
import { buildProposal } from '../../src/domain/review/proposal-input.ts';
import { annotateMeasurements } from '../../src/domain/review/measured.ts';
import { parseFrontMatter, splitWorkFile } from '../../src/domain/work-file.ts';
import { QueueIndex, queueEntryOf, type QueueEntry, type QueueFilter } from '../../src/domain/review/queue.ts';
import {
  ANSWERABLE_STATUS,
  answerRecord,
  carryVerification,
  reviseContribution,
  revisionErrors,
} from '../../src/domain/contributions/answer.ts';
import { responseTokenMatches } from '../../src/domain/contributions/response-token.ts';
import { contentSha256 } from '../../src/domain/contributions/content-hash.ts';
import { RESPONSE_TOKEN_HEADER } from '../../src/schemas/answer.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';

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

/** An apply merged (or found merged) and waiting for the build that serves it. */
interface MergedApply {
  pending: PendingApply;
  actor: ReviewActor;
  record: Stored;
  state: ReviewRecord;
  started: number;
  phases: Record<string, unknown>;
  merged: string;
}

/** An acknowledged apply not yet finished (ARCHIVE_DATA_DIR/state/applying/<code>.json). */
interface PendingApply {
  recordVersion: 1;
  trackingCode: string;
  kind: SubmissionKind;
  body: AdminActionBody;
  /** Who asked for the apply (recorded in the merge commit and history when a resume finishes it). */
  actor: ReviewActor;
  requestedAtUtc: string;
  /** main just before the merge (set before merging), and the merge commit once merged. */
  before: string | null;
  merged: string | null;
}

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
  return {
    kind: ref.kind === 'github-pull-request' ? 'pull-request' : 'branch',
    branch: ref.branch,
    url: ref.url,
    openedAtUtc: ref.openedAtUtc,
  };
}

export class ReviewService {
  readonly intake: IntakeStore;
  readonly reviews: RecordStore<ReviewRecord>;
  private readonly ctx: AppContext;
  private readonly local: LocalForge;
  private forgePromise: Promise<Forge> | null = null;
  private readonly overrides: ReviewServiceOverrides;
  private readonly now: () => Date;
  /** Where each apply's phases are logged (the server's pino logger; none in tests that do not set it). */
  logger: { info(obj: object, msg: string): void } | null = null;

  constructor(ctx: AppContext, overrides: ReviewServiceOverrides = {}) {
    this.ctx = ctx;
    this.overrides = overrides;
    this.now = overrides.now ?? (() => new Date());
    this.intake = ctx.intake;
    this.reviews = new RecordStore(path.join(ctx.config.dataDir, 'state', 'reviews'));
    this.local = new LocalForge({
      contentRepo: ctx.config.contentRepo,
      scratchDir: path.join(ctx.config.dataDir, 'worktrees'),
      lint: (dir, otherWorks) => lintPartialCopy(dir, otherWorks).map(formatLintMessage),
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
      for (const source of this.queueSources) for await (const e of source.all()) this.queueIndex.putIfAbsent(e);
    })();
    return this.queueLoaded;
  }

  private readonly queueSources: { all(): AsyncIterable<QueueEntry> }[] = [];

  /** More items for the queue (pull requests people opened on GitHub; api/review/pull-requests.ts): loaded with it, kept current by their writes. */
  addQueueSource(source: {
    all(): AsyncIterable<QueueEntry>;
    watch(onWrite: (entry: QueueEntry) => void): void;
  }): void {
    this.queueSources.push(source);
    source.watch((e) => this.queueIndex.put(e));
  }

  private readonly authors = new Map<string, string>();

  forge(): Promise<Forge> {
    this.forgePromise ??= this.overrides.forge
      ? Promise.resolve(this.overrides.forge)
      : createForge(this.ctx.config.github, this.local);
    return this.forgePromise;
  }

  private store(kind: SubmissionKind): RecordStore<Stored> {
    return (kind === 'contribution' ? this.intake.contributions : this.intake.correctionReports) as RecordStore<Stored>;
  }

  async get(kind: SubmissionKind, code: string): Promise<{ record: Stored; review: ReviewRecord | null }> {
    const record = await this.store(kind).get(code);
    if (!record)
      throw new ProblemError(
        'not-found',
        `No ${kind === 'contribution' ? 'contribution' : 'correction report'} has the tracking code ${code}.`,
      );
    return { record, review: await this.reviews.get(code) };
  }

  /** One page of the queue (open items by default), oldest first, with per-status counts. */
  async queue(
    filter: QueueFilter,
    page: number,
    pageSize: number,
  ): Promise<{ items: QueueEntry[]; total: number; counts: Record<string, number> }> {
    await this.loadQueue();
    return { ...this.queueIndex.page(filter, page, pageSize), counts: this.queueIndex.counts() };
  }

  /**
   * `wait` (the default) answers an apply once it is visible or failed; without it the answer is
   * the item in `apply.state = "applying"`, at once.
   */
  async act(
    kind: SubmissionKind,
    code: string,
    action: AdminAction,
    body: AdminActionBody,
    actor: ReviewActor,
    options: { wait?: boolean } = {},
  ): Promise<{ record: Stored; review: ReviewRecord | null }> {
    const { record } = await this.get(kind, code);
    if (record.apply?.state === 'applying' && action !== 'apply') {
      throw new ProblemError(
        'conflict',
        `${code} is being applied (since ${record.apply.requestedAtUtc}); "${action}" can follow once it is visible or has failed.`,
        { currentStatus: record.status },
      );
    }
    const target: SubmissionStatus =
      action === 'accept'
        ? 'accepted'
        : action === 'apply'
          ? 'applied'
          : action === 'decline'
            ? 'declined'
            : 'needs-information';
    if (!canTransition(record.status, target)) {
      throw new ProblemError(
        'conflict',
        `${code} is "${record.status}"; "${action}" needs it to be able to become "${target}" (${illegalHint(record.status)}).`,
        { currentStatus: record.status },
      );
    }
    if (body.assert && kind !== 'contribution')
      throw new ProblemError(
        'conflict',
        'Review-state assertions apply to contributed assets only; correction reports carry no assets.',
        { currentStatus: record.status },
      );
    if (
      body.arrangement &&
      (record.kind !== 'contribution' || !['arrangement', 'performance'].includes(record.submission.operation))
    ) {
      throw new ProblemError(
        'conflict',
        'Arrangement facts (body.arrangement) apply to contributions with operation "arrangement" or "performance" only.',
        { currentStatus: record.status },
      );
    }
    const listening =
      body.assert?.arrangement === 'human-listening-approved' ||
      (body.assert?.assets ?? []).some((a) => a.reviewState === 'human-listening-approved');
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
        return this.simpleMove(
          kind,
          code,
          'needs-information',
          body,
          body.note ?? 'A reviewer needs more information before deciding.',
          actor,
        );
      case 'decline':
        return this.decline(kind, code, body, actor);
      case 'apply':
        return this.apply(kind, code, body, actor, options.wait ?? true);
    }
  }

  // --- the submitter's answer (issue 15, item 2) ---------------------------------------------
  //
  // A submitter answers a request for information with the submission's response token (a header;
  // records keep only its SHA-256, compared in constant time): the item goes back to `pending` with
  // the answer in its history (action "answer", actor "submitter", the message as its public
  // note). A revised contribution replaces the proposed one; when a review branch or pull request
  // is open, it is rewritten on the current main so the diff an editor sees is the new one. Files
  // the revision changed are verified again at the next accept (nothing is fetched for a public
  // request). A wrong or missing token, or an item not in `needs-information`, changes nothing.

  /** The item, when `token` is its response token; else the problem (404 unknown code, 401 token). */
  async authorizeAnswer(kind: SubmissionKind, code: string, token: string | undefined): Promise<Stored> {
    const { record } = await this.get(kind, code);
    if (token === undefined || token === '') {
      throw new ProblemError(
        'invalid-response-token',
        `Answering ${code} needs its response token in the ${RESPONSE_TOKEN_HEADER} header (the 202 answer to the submission carried it). Nothing was changed.`,
        {
          errors: [{ parameter: RESPONSE_TOKEN_HEADER, detail: 'is required' }],
          headers: { 'WWW-Authenticate': RESPONSE_TOKEN_HEADER },
        },
      );
    }
    if (!responseTokenMatches(token, record.responseTokenSha256)) {
      const why = record.responseTokenSha256
        ? 'is not the response token of this submission'
        : record.kind === 'contribution'
          ? 'cannot match: this contribution was stored before response tokens existed; repeat its POST (same idempotencyKey, identical content) to receive its token'
          : 'cannot match: this report was stored before response tokens existed';
      throw new ProblemError(
        'invalid-response-token',
        `The ${RESPONSE_TOKEN_HEADER} header ${why}. Nothing was changed.`,
        {
          errors: [{ parameter: RESPONSE_TOKEN_HEADER, detail: why }],
          headers: { 'WWW-Authenticate': RESPONSE_TOKEN_HEADER },
        },
      );
    }
    return record;
  }

  async answer(
    kind: SubmissionKind,
    code: string,
    token: string | undefined,
    input: { message: string; submission?: MusicContributionInput },
  ): Promise<Stored> {
    const record = await this.authorizeAnswer(kind, code, token);
    const notAnswerable = (current: Stored) =>
      new ProblemError(
        'conflict',
        current.apply?.state === 'applying'
          ? `${code} is being applied; only an item in "${ANSWERABLE_STATUS}" can be answered. Nothing was changed.`
          : `${code} is "${current.status}"; only an item in "${ANSWERABLE_STATUS}" (a reviewer asked for information) can be answered. Nothing was changed.`,
        { currentStatus: current.status },
      );
    if (record.status !== ANSWERABLE_STATUS || record.apply?.state === 'applying') throw notAnswerable(record);
    if (input.submission && record.kind === 'contribution') {
      const errors = revisionErrors(record.submission, input.submission);
      if (errors.length > 0)
        throw new ProblemError(
          'invalid-body',
          `The revised submission is refused: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}. Nothing was changed.`,
          { errors },
        );
    }
    const revised =
      input.submission && record.kind === 'contribution'
        ? { submission: input.submission, contentSha256: contentSha256(input.submission) }
        : null;
    const atUtc = utcTimestamp(this.now());
    let refused: Stored | null = null;
    // Re-checked under the record's lock: a reviewer's action or another answer may have come first.
    const next = await this.store(kind).update(code, (current) => {
      if (
        current.status !== ANSWERABLE_STATUS ||
        current.apply?.state === 'applying' ||
        !responseTokenMatches(token, current.responseTokenSha256)
      ) {
        refused = current;
        return undefined;
      }
      if (current.kind === 'contribution') {
        const body = revised ? reviseContribution(current, revised.submission, revised.contentSha256, atUtc) : current;
        return answerRecord(body, input.message, atUtc, revised !== null);
      }
      return answerRecord(current, input.message, atUtc, null);
    });
    if (refused !== null) throw notAnswerable(refused);
    if (!next) throw new ProblemError('not-found', `No record has the tracking code ${code}.`);
    const state = await this.reviews.get(code);
    if (state && revised && next.kind === 'contribution') await this.reviseProposal(next, state);
    if (state?.ref) await (await this.forge()).setStatus(state.ref, 'pending').catch(() => undefined);
    return next;
  }

  /**
   * The reviewers' record of a revised contribution: verification kept only for files the revision
   * left as they were, and an open review (branch / pull request) rewritten with the revised body on
   * the current main; what cannot be built is a blocker. Without an open review nothing is opened:
   * the next accept does that.
   */
  private async reviseProposal(record: StoredContribution, state: ReviewRecord): Promise<void> {
    const measured = annotateMeasurements(
      carryVerification(state.verification, record.submission),
      record.submission,
      this.performedSeconds(record),
    );
    state.verification = measured.entries;
    state.warnings = measured.warnings;
    state.blockers = verificationBlockers(state.verification);
    if (!state.ref) return this.saveReview(state);
    await withContentRepoLock(this.ctx.config.contentRepo, async () => {
      try {
        const input = await this.proposal(record, state);
        const forge = await this.forge();
        state.ref = await forge.open(input);
        state.forge = forge.name;
      } catch (err) {
        state.blockers.push(
          `The revised submission could not replace the proposal on the review branch (it still shows the previous one): ${reasonsOf(err).join(' ')}`,
        );
      }
    });
    await this.saveReview(state);
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
    if ((await this.reviews.update(state.trackingCode, () => state)) === null)
      await this.reviews.create(state.trackingCode, state);
  }

  private recordAssertions(state: ReviewRecord, body: AdminActionBody, actor: ReviewActor): void {
    if (body.arrangement) {
      // Each given field replaces the earlier setting; fields left out keep it.
      state.arrangementFacts = {
        actor: actor.label,
        atUtc: utcTimestamp(this.now()),
        facts: { ...(state.arrangementFacts?.facts ?? {}), ...body.arrangement },
      };
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
  private async move(
    kind: SubmissionKind,
    code: string,
    to: SubmissionStatus,
    note: string | null,
    ref: ReviewRef | null,
    actor: ReviewActor,
    apply?: ApplyProgress,
  ): Promise<Stored> {
    let illegal: SubmissionStatus | null = null;
    const next = await this.store(kind).update(code, (current) => {
      if (!canTransition(current.status, to)) {
        illegal = current.status;
        return undefined;
      }
      const moved = {
        ...transition(current, to, utcTimestamp(this.now()), note, actor.label),
        ...(apply ? { apply } : {}),
      };
      return ref ? { ...moved, review: toLink(ref) } : moved;
    });
    if (illegal !== null)
      throw new ProblemError(
        'conflict',
        `${code} is "${illegal}" now; it cannot become "${to}" (${illegalHint(illegal)}).`,
        { currentStatus: illegal },
      );
    if (!next) throw new ProblemError('not-found', `No record has the tracking code ${code}.`);
    if (ref) await (await this.forge()).setStatus(ref, to).catch(() => undefined);
    return next;
  }

  private async simpleMove(
    kind: SubmissionKind,
    code: string,
    to: SubmissionStatus,
    body: AdminActionBody,
    note: string,
    actor: ReviewActor,
  ) {
    const state = await this.loadReview(kind, code);
    const record = await this.move(kind, code, to, note, null, actor);
    if (state.ref) await (await this.forge()).setStatus(state.ref, to).catch(() => undefined);
    state.actions.push({
      action: to === 'needs-information' ? 'request-information' : 'decline',
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: utcTimestamp(this.now()),
      note: body.note ?? null,
      outcome: to,
    });
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
      const measured = annotateMeasurements(
        await this.verify(record),
        record.submission,
        this.performedSeconds(record),
      );
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
    const note =
      body.note ??
      (state.blockers.length > 0
        ? 'Accepted for review; it cannot be applied until the reviewers resolve the recorded blockers.'
        : 'Accepted by a reviewer; waiting to be applied. Nothing in the catalog has changed yet.');
    const moved = await this.move(kind, code, 'accepted', note, state.ref, actor);
    const warned = state.warnings?.length
      ? ` and ${state.warnings.length} warning(s): ${state.warnings.join(' ')}`
      : '';
    state.actions.push({
      action: 'accept',
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: utcTimestamp(this.now()),
      note: body.note ?? null,
      outcome: `${state.blockers.length > 0 ? `accepted with ${state.blockers.length} blocker(s)` : 'accepted'}${warned}`,
    });
    await this.saveReview(state);
    return { record: moved, review: state };
  }

  // --- apply ----------------------------------------------------------------------------------
  //
  // An apply is acknowledged at once: the item gets `apply.state = "applying"` (its status stays
  // "accepted"), a marker in ARCHIVE_DATA_DIR/state/applying/<code>.json records the request, and a
  // job does the work under the content-repository lock (rebuild the proposal on main, merge,
  // rebuild-and-swap). The job ends with the item "applied" and `apply.visibleAtUtc`, or
  // `apply.state = "failed"` with main reset and the old site serving. The marker is removed last,
  // so an apply in progress when the server stops is resumed by `resumeApplies` on start.

  private readonly applyJobs = new Map<string, Promise<{ record: Stored; review: ReviewRecord }>>();

  private applyingDir(): string {
    return path.join(this.ctx.config.dataDir, 'state', 'applying');
  }

  private async writeMarker(pending: PendingApply): Promise<void> {
    const dir = this.applyingDir();
    await fs.mkdir(dir, { recursive: true });
    const target = path.join(dir, `${pending.trackingCode}.json`);
    await fs.rename(await writeTempFile(target, `${JSON.stringify(pending)}\n`), target);
    await fsyncDir(dir);
  }

  private async dropMarker(code: string): Promise<void> {
    await fs.rm(path.join(this.applyingDir(), `${code}.json`), { force: true });
    await fsyncDir(this.applyingDir()).catch(() => undefined);
  }

  /** Applies still running (tests and a graceful stop wait for them). */
  async settled(): Promise<void> {
    while (this.applyJobs.size > 0) await Promise.allSettled([...this.applyJobs.values()]);
  }

  /**
   * Resume every apply acknowledged before the server stopped: one already merged is finished
   * (the start-up build serves main), one not yet merged runs again. Returns the tracking codes.
   */
  async resumeApplies(log: (line: string) => void = () => undefined): Promise<string[]> {
    const names = await fs.readdir(this.applyingDir()).catch(() => [] as string[]);
    const codes: string[] = [];
    for (const name of names.sort()) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      let pending: PendingApply;
      try {
        pending = JSON.parse(await fs.readFile(path.join(this.applyingDir(), name), 'utf8')) as PendingApply;
      } catch (err) {
        log(`apply marker ${name} is unreadable and was left in place: ${(err as Error).message}`);
        continue;
      }
      codes.push(pending.trackingCode);
      log(
        `resuming the apply of ${pending.trackingCode} requested at ${pending.requestedAtUtc}${pending.merged ? ` (merged as ${pending.merged.slice(0, 12)})` : ''}`,
      );
      this.startApplyJob(pending).catch((err: unknown) =>
        log(`the resumed apply of ${pending.trackingCode} did not finish: ${(err as Error).message.split('\n')[0]}`),
      );
    }
    return codes;
  }

  private startApplyJob(pending: PendingApply): Promise<{ record: Stored; review: ReviewRecord }> {
    const running = this.applyJobs.get(pending.trackingCode);
    if (running) return running;
    const job = this.runApply(pending).finally(() => this.applyJobs.delete(pending.trackingCode));
    this.applyJobs.set(pending.trackingCode, job);
    // A caller that does not wait must not see an unhandled rejection; the outcome is recorded.
    job.catch(() => undefined);
    return job;
  }

  private readonly applyRequests = new Map<string, Promise<unknown>>();

  /** Apply requests for one item run one after another (two reviewers clicking at once). */
  private apply(
    kind: SubmissionKind,
    code: string,
    body: AdminActionBody,
    actor: ReviewActor,
    wait: boolean,
  ): Promise<{ record: Stored; review: ReviewRecord | null }> {
    const previous = this.applyRequests.get(code) ?? Promise.resolve();
    const mine = previous.then(() => this.requestApply(kind, code, body, actor));
    const tail = mine.catch(() => undefined);
    this.applyRequests.set(code, tail);
    void tail.then(() => {
      if (this.applyRequests.get(code) === tail) this.applyRequests.delete(code);
    });
    return mine.then((started) => (wait ? started.job : started.now));
  }

  /** Acknowledge an apply: refuse at once what needs no merge, else mark it applying and start its job. */
  private async requestApply(
    kind: SubmissionKind,
    code: string,
    body: AdminActionBody,
    actor: ReviewActor,
  ): Promise<{
    job: Promise<{ record: Stored; review: ReviewRecord }>;
    now: { record: Stored; review: ReviewRecord | null };
  }> {
    const { record } = await this.get(kind, code);
    if (this.applyJobs.has(code) || record.apply?.state === 'applying') {
      // One apply per item: the second of two at once is refused, as when applies ran inline.
      throw new ProblemError(
        'conflict',
        `${code} is being applied${record.apply?.requestedAtUtc ? ` (since ${record.apply.requestedAtUtc})` : ''}; wait until it is visible or has failed.`,
        { currentStatus: record.status },
      );
    }
    const state = await this.loadReview(kind, code);
    // Refusals that need no merge answer at once, as before.
    const blocked = verificationBlockers(state.verification);
    if (blocked.length > 0) {
      this.recordAssertions(state, body, actor);
      throw await this.refuse(state, body, actor, record.status, code, blocked);
    }
    const requestedAtUtc = utcTimestamp(this.now());
    const pending: PendingApply = {
      recordVersion: 1,
      trackingCode: code,
      kind,
      body,
      actor,
      requestedAtUtc,
      before: null,
      merged: null,
    };
    // The marker first: once the item shows "applying", a restart finds the marker and resumes.
    await this.writeMarker(pending);
    let illegal: SubmissionStatus | null = null;
    const marked = await this.store(kind).update(code, (current) => {
      if (current.status !== 'accepted') {
        illegal = current.status;
        return undefined;
      }
      return { ...current, apply: { state: 'applying', requestedAtUtc, visibleAtUtc: null, failedAtUtc: null } };
    });
    if (illegal !== null || !marked) {
      await this.dropMarker(code);
      throw new ProblemError(
        'conflict',
        `${code} is "${illegal ?? 'gone'}" now; only an accepted item can be applied.`,
        { currentStatus: illegal ?? record.status },
      );
    }
    return { job: this.startApplyJob(pending), now: { record: marked, review: state } };
  }

  private async refuse(
    state: ReviewRecord,
    body: AdminActionBody,
    actor: ReviewActor,
    status: SubmissionStatus,
    code: string,
    reasons: string[],
  ): Promise<ProblemError> {
    state.blockers = reasons;
    state.actions.push({
      action: 'apply',
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: utcTimestamp(this.now()),
      note: body.note ?? null,
      outcome: `refused: ${reasons.join(' ')}`,
    });
    await this.saveReview(state);
    return new ProblemError('conflict', `${code} was not applied and nothing was merged: ${reasons.join(' ')}`, {
      currentStatus: status,
      reasons,
    });
  }

  /** Set the item's apply progress without a status change (the status history is untouched). */
  private async setApply(kind: SubmissionKind, code: string, apply: ApplyProgress): Promise<Stored | null> {
    return this.store(kind).update(code, (current) => ({ ...current, apply }));
  }

  /** The merge commit of `code` on main after `before`, if a stopped apply got that far. */
  private async findMerge(code: string, before: string): Promise<string | null> {
    const out = await git(this.ctx.config.contentRepo, [
      'log',
      '--format=%H',
      '--fixed-strings',
      `--grep=Tracking-Code: ${code}`,
      '-n',
      '1',
      `${before}..HEAD`,
    ]).catch(() => '');
    return out.trim() || null;
  }

  // --- the apply pipeline: merges that share one build ---------------------------------------
  //
  // Jobs queue here; one loop takes every job waiting and, under the content-repository lock,
  // merges each (a refusal fails only that item), then runs one rebuild-and-swap for all of them.
  // Applies that arrive while a build runs wait for it and share the next build, so n applies in
  // quick succession cost two builds, not n. The lock is held from the first merge to the swap, as
  // for a single apply: nothing else merges into main meanwhile, so a failed build's reset undoes
  // exactly this batch's merges. A failed build of several merges does not fail them all: main
  // goes back to before the batch, each marker forgets its merge, and each item is merged and
  // built alone again, so only what fails alone is recorded failed.

  private readonly applyQueue: Array<{
    pending: PendingApply;
    resolve: (r: { record: Stored; review: ReviewRecord }) => void;
    reject: (err: unknown) => void;
  }> = [];
  private applyLoop: Promise<void> | null = null;

  private runApply(pending: PendingApply): Promise<{ record: Stored; review: ReviewRecord }> {
    return new Promise((resolve, reject) => {
      this.applyQueue.push({ pending, resolve, reject });
      this.kickApplies();
    });
  }

  private kickApplies(): void {
    if (this.applyLoop) return;
    this.applyLoop = this.drainApplies().finally(() => {
      this.applyLoop = null;
      // A job queued after the loop's last look but before this ran starts a new loop.
      if (this.applyQueue.length > 0) this.kickApplies();
    });
  }

  private async drainApplies(): Promise<void> {
    while (this.applyQueue.length > 0) {
      const batch = this.applyQueue.splice(0);
      await withContentRepoLock(this.ctx.config.contentRepo, () => this.applyBatch(batch)).catch((err: unknown) => {
        for (const job of batch) job.reject(err);
      });
    }
  }

  private async applyBatch(
    batch: Array<{
      pending: PendingApply;
      resolve: (r: { record: Stored; review: ReviewRecord }) => void;
      reject: (err: unknown) => void;
    }>,
  ): Promise<void> {
    const merged: Array<{ job: (typeof batch)[number]; step: MergedApply }> = [];
    for (const job of batch) {
      try {
        const step = await this.mergeApply(job.pending);
        if ('done' in step) job.resolve(step.done);
        else merged.push({ job, step });
      } catch (err) {
        job.reject(err);
      }
    }
    if (merged.length === 0) return;
    let swapped: SwapResult | undefined;
    const t = Date.now();
    try {
      swapped = await this.ctx.rebuilder.rebuildAndSwap();
    } catch (err) {
      if (merged.length === 1) {
        const { job, step } = merged[0]!;
        await this.failApply(step, err).then(job.resolve, job.reject);
        return;
      }
      // Which merge broke the build is not known: undo the batch and apply each alone.
      // main first, then the markers: a stop between the two leaves markers naming merges main no
      // longer holds, which a resume treats as not merged (mergeApply checks ancestry).
      const target = await this.earliest(
        merged.map((m) => m.step.pending.before).filter((b): b is string => b !== null),
      );
      if (target !== null && (await this.local.main()) !== target) await this.local.resetMain(target);
      for (const { step } of merged) {
        step.pending.before = null;
        step.pending.merged = null;
        await this.writeMarker(step.pending);
      }
      for (const { job, step } of merged) await this.applyBatch([{ ...job, pending: step.pending }]);
      return;
    }
    const rebuild = { ...swapped?.phases, mode: swapped?.mode, rebuildMs: Date.now() - t, applies: merged.length };
    for (const { job, step } of merged) {
      step.phases.rebuild = rebuild;
      await this.finishApply(step, swapped?.commit ?? null, merged.length).then(job.resolve, job.reject);
    }
  }

  /** Of commits on one line of history, the oldest (each an ancestor of the others); null for none. */
  private async earliest(commits: string[]): Promise<string | null> {
    const repo = this.ctx.config.contentRepo;
    for (const c of commits) {
      let oldest = true;
      for (const other of commits) {
        if (
          other !== c &&
          !(await git(repo, ['merge-base', '--is-ancestor', c, other]).then(
            () => true,
            () => false,
          ))
        )
          oldest = false;
      }
      if (oldest) return c;
    }
    return commits[0] ?? null;
  }

  /**
   * Under the content-repository lock: rebuild the proposal on main and merge it (or find the
   * merge a stopped apply made). `done` when nothing is left to build for it (finished before a
   * stop, decided otherwise, or refused: then recorded failed).
   */
  private async mergeApply(
    pending: PendingApply,
  ): Promise<MergedApply | { done: { record: Stored; review: ReviewRecord } }> {
    const { kind, trackingCode: code, body } = pending;
    // Markers written before actors were recorded name nobody; the history says so.
    const actor = pending.actor ?? { label: 'unrecorded (resumed apply)', operatorLabeled: false };
    const { record } = await this.get(kind, code);
    const state = await this.loadReview(kind, code);
    if (record.status !== 'accepted' || record.apply?.state !== 'applying') {
      // Finished before the server stopped (applied, marker not yet removed), or decided otherwise.
      await this.dropMarker(code);
      return { done: { record, review: state } };
    }
    this.recordAssertions(state, body, actor);
    const started = Date.now();
    const phases: Record<string, unknown> = {};
    let t = Date.now();
    const lap = (name: string) => {
      phases[name] = Date.now() - t;
      t = Date.now();
    };
    const step: MergedApply = { pending, actor, record, state, started, phases, merged: '' };
    const forge = await this.forge();
    let merged = pending.merged ?? (pending.before ? await this.findMerge(code, pending.before) : null);
    // A merge main no longer holds (reset after a failed build, before the marker said so) is no merge.
    if (
      merged !== null &&
      !(await git(this.ctx.config.contentRepo, ['merge-base', '--is-ancestor', merged, 'refs/heads/main']).then(
        () => true,
        () => false,
      ))
    )
      merged = null;
    let input: ProposalInput | null = null;
    if (merged === null) {
      const blocked = verificationBlockers(state.verification);
      if (blocked.length > 0)
        return {
          done: await this.failApply(step, await this.refuse(state, body, actor, record.status, code, blocked), false),
        };
      try {
        input = await this.proposal(record, state);
        lap('proposalMs');
        state.ref = await forge.open(input);
        lap('openMs');
        if (forge === this.local) phases.open = this.local.lastOpenTimings;
        state.forge = forge.name;
      } catch (err) {
        return {
          done: await this.failApply(
            step,
            await this.refuse(state, body, actor, record.status, code, reasonsOf(err)),
            false,
          ),
        };
      }
      pending.before = await this.local.main();
      pending.merged = null;
      await this.saveReview(state);
      await this.writeMarker(pending);
      lap('recordMs');
      try {
        merged = (
          await forge.merge(state.ref!, mergeMessage(code, input.title, actor.label, body.reviewer, body.note ?? null))
        ).commit;
      } catch (err) {
        return { done: await this.failApply(step, err) };
      }
      pending.merged = merged;
      await this.writeMarker(pending);
      lap('mergeMs');
    } else {
      pending.merged = merged;
    }
    step.merged = merged;
    return step;
  }

  /**
   * Record a failed apply: `apply.state = "failed"`, the marker dropped, the problem thrown. With
   * `reset` (a merge or build failure), main first goes back to where it was before this item's
   * merge and the error is recorded on the review; a refusal was recorded by `refuse` already.
   */
  private async failApply(step: MergedApply, err: unknown, reset = true): Promise<never> {
    const { pending, state, actor, record } = step;
    const { kind, trackingCode: code, body } = pending;
    let problem: ProblemError;
    if (!reset) problem = err as ProblemError;
    else {
      // Nothing half-merged: main goes back to where it was; the old build keeps serving.
      if (pending.before !== null && (await this.local.main()) !== pending.before)
        await this.local.resetMain(pending.before);
      const message = (err as Error).message.slice(0, 4000);
      state.lastError = { atUtc: utcTimestamp(this.now()), message };
      state.actions.push({
        action: 'apply',
        reviewer: body.reviewer,
        actor: actor.label,
        atUtc: utcTimestamp(this.now()),
        note: body.note ?? null,
        outcome: `failed: ${message.slice(0, 500)}`,
      });
      await this.saveReview(state);
      problem = new ProblemError(
        'conflict',
        `${code} was not applied: ${message.split('\n')[0]} The previous site keeps serving; main was reset and the item stays "accepted" with the error recorded.`,
        {
          currentStatus: record.status,
          reasons: [message],
        },
      );
    }
    await this.setApply(kind, code, {
      state: 'failed',
      requestedAtUtc: pending.requestedAtUtc,
      visibleAtUtc: null,
      failedAtUtc: utcTimestamp(this.now()),
    });
    await this.dropMarker(code);
    throw problem;
  }

  /** The build with this item's merge is served: record it applied and visible. */
  private async finishApply(
    step: MergedApply,
    servedCommit: string | null,
    applies: number,
  ): Promise<{ record: Stored; review: ReviewRecord }> {
    const { pending, state, actor, merged, started, phases } = step;
    const { kind, trackingCode: code, body } = pending;
    const visibleAtUtc = utcTimestamp(this.now());
    const shared = applies > 1 ? `; one build for ${applies} applies` : '';
    const served = servedCommit ? `; served in the build of ${servedCommit.slice(0, 12)}${shared}` : shared;
    // The reviewers' record first, so whoever sees "applied" also sees its commit.
    state.appliedCommit = merged;
    state.blockers = [];
    state.lastError = null;
    state.actions.push({
      action: 'apply',
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: visibleAtUtc,
      note: body.note ?? null,
      outcome: `applied as ${merged.slice(0, 12)} (merge + rebuild ${Date.now() - started} ms; visible ${visibleAtUtc}${served})`,
    });
    await this.saveReview(state);
    const moved = await this.move(
      kind,
      code,
      'applied',
      body.note ?? 'Applied: the change is in the canonical record (JSON, Markdown and website).',
      state.ref,
      actor,
      {
        state: 'visible',
        requestedAtUtc: pending.requestedAtUtc,
        visibleAtUtc,
        failedAtUtc: null,
      },
    );
    await this.dropMarker(code);
    this.logger?.info(
      { apply: { trackingCode: code, commit: merged, servedCommit, applies, totalMs: Date.now() - started, phases } },
      `apply of ${code} visible after ${Date.now() - started} ms`,
    );
    return { record: moved, review: state };
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
        out.push({
          ...base,
          status: 'not-fetched',
          sha256: null,
          byteLength: null,
          mediaType: null,
          reason: 'no downloadUrl; the asset links its source page',
          checks: null,
        });
        continue;
      }
      try {
        const file = await fetchFile(asset.downloadUrl, this.ctx.blobs, {
          ...options,
          expectedSha256: asset.sha256 ?? null,
        });
        let checks: TechnicalCheckResult;
        try {
          checks = await this.ctx.blobs.withLocalFile(file.sha256, (local) => runChecks(asset.kind, local));
        } catch (err) {
          checks = {
            kind: asset.kind,
            passed: false,
            summary: `The technical checks failed to run: ${(err as Error).message}`,
            measurements: {},
          };
        }
        out.push({
          ...base,
          status: 'verified',
          sha256: file.sha256,
          byteLength: file.byteLength,
          mediaType: file.mediaType,
          reason: null,
          checks,
        });
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
      const work = parseFrontMatter(splitWorkFile(readFileSync(file, 'utf8')).frontMatter) as {
        arrangements?: { id?: unknown; durationSeconds?: unknown }[];
      };
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
      if (
        v.status === 'verified' &&
        v.sha256 &&
        (v.byteLength ?? Infinity) <= VERIFIED_BYTES_PREFETCH_MAX &&
        !small.has(v.sha256)
      )
        small.set(v.sha256, await this.ctx.blobs.readBytes(v.sha256));
    }
    const built = buildProposal(record, state, {
      workFile: (slug) =>
        existsSync(inRepo(`works/${slug}/index.md`)) ? readFileSync(inRepo(`works/${slug}/index.md`), 'utf8') : null,
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
    else if (e.status === 'verified' && e.checks && !e.checks.passed)
      out.push(`Asset ${e.index} failed its technical checks: ${e.checks.summary}`);
  }
  return out;
}

function reasonsOf(err: unknown): string[] {
  if (err instanceof ProposalError) return err.reasons;
  if (err instanceof ProposalLintError)
    return [`The proposal does not pass the content lint: ${err.messages.slice(0, 20).join('; ')}`];
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
