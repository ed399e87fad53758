/**
 * Review batches: a bulk import's works as one item (the admin API and the desk both read and act
 * through here, so they cannot disagree). Every action on a work goes through the review service
 * exactly as a single contribution's would, recorded with the acting key's label.
 */
import type { AppContext } from '../context.ts';
import { ProblemError, problemBody } from '../http/problem.ts';
import type { ReviewActor, ReviewService } from '../review/service.ts';
import type { ImportStore, StoredBatch, StoredBatchItem } from './store.ts';
import type { BatchActionBody, BatchItemView } from '../../src/schemas/imports.ts';
import type { StoredContribution, SubmissionStatus } from '../../src/schemas/contribution.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { authorsOf, firstPublishedFact } from '../../src/domain/review/proposal.ts';
import { territoryRights } from '../../src/domain/territory-rights.ts';
import { proposedTermLabels } from '../../src/domain/review/new-terms.ts';
import type { AdminActionBody, ReviewRecord } from '../../src/schemas/review.ts';

/** The rights the contribution's facts give, per territory, for the batch listing. */
export function itemRights(c: MusicContributionInput, asOfYear: number) {
  const w = c.work ?? {};
  const composer = { name: w.composer ?? '', died: w.composerFacts?.died ?? 'unknown' };
  return territoryRights({
    authors: authorsOf(composer, w.lyricist ?? null, w.hasLyrics === true),
    firstPublished: firstPublishedFact(w.firstPublished),
    asOfYear,
  });
}

export type BatchAction = 'accept' | 'decline' | 'apply' | 'merge';

/**
 * Which statuses an action fits: accept what is pending, merge a pending probable duplicate,
 * apply what is accepted, decline what is open. (A merge that names no items takes only the
 * exact duplicates among these: see BatchService.plan.)
 */
export function fits(action: BatchAction, status: string, duplicateOf: string | null = null): boolean {
  if (action === 'accept') return status === 'pending';
  if (action === 'merge') return duplicateOf !== null && (status === 'pending' || status === 'needs-information');
  if (action === 'apply') return status === 'accepted';
  return status === 'pending' || status === 'accepted' || status === 'needs-information';
}

export class BatchService {
  private readonly ctx: AppContext;
  private readonly reviews: ReviewService;
  readonly store: ImportStore;

  constructor(ctx: AppContext, reviews: ReviewService, store: ImportStore) {
    this.ctx = ctx;
    this.reviews = reviews;
    this.store = store;
  }

  view(item: StoredBatchItem, record: StoredContribution, review: ReviewRecord | null = null): BatchItemView {
    const base = this.ctx.config.publicBaseUrl;
    const c = record.submission;
    const rights = itemRights(c, new Date().getUTCFullYear());
    return {
      itemKey: item.itemKey,
      trackingCode: item.trackingCode,
      status: record.status,
      title: c.work?.title ?? '',
      composer: c.work?.composer ?? '',
      lyricist: c.work?.lyricist?.name ?? null,
      workSlug: c.target?.workSlug ?? null,
      duplicateOf: item.duplicateOf,
      duplicateMatch: item.duplicateOf ? (item.duplicateMatch ?? null) : null,
      factsFrom: item.factsFrom ?? null,
      newTerms: proposedTermLabels(c.work?.newTerms),
      termsApproved: (review?.termsApproval ?? null) !== null,
      territories: { US: rights.US.status, EU: rights.EU.status, CA: rights.CA.status },
      missingFacts: rights.missingFacts,
      links: {
        admin: `${base}/api/v1/admin/contributions/${item.trackingCode}`,
        desk: `${base}/admin/contributions/${item.trackingCode}`,
      },
    };
  }

  async items(batchId: string): Promise<BatchItemView[]> {
    const out: BatchItemView[] = [];
    for (const item of await this.store.itemsOf(batchId)) {
      const record = await this.ctx.intake.getContribution(item.trackingCode);
      if (!record) continue;
      // The review record only when the work proposes terms (whether they are approved).
      const review = record.submission.work?.newTerms
        ? (await this.reviews.get('contribution', item.trackingCode)).review
        : null;
      out.push(this.view(item, record, review));
    }
    return out;
  }

  async batchOrThrow(batchId: string): Promise<StoredBatch> {
    const batch = await this.store.getBatch(batchId);
    if (!batch) throw new ProblemError('not-found', `No import batch is called "${batchId}".`);
    return batch;
  }

  /**
   * The work a probable duplicate merges into: a catalog work's slug as flagged, or, for another
   * item of the batch ("batch item lc…"), the slug that item's new work gets (it must be applied first).
   */
  private mergeTarget(duplicateOf: string, all: BatchItemView[]): string {
    const m = /^batch item (.+)$/.exec(duplicateOf);
    if (!m) return duplicateOf;
    const other = all.find((i) => i.itemKey === m[1]);
    return other?.workSlug ?? duplicateOf;
  }

  /**
   * The items an action on the batch fits: the named ones (tracking codes or item keys), or every
   * item the action fits. A named item that is not in the batch, or (merge) not a pending
   * probable duplicate, is an error of the request (400 naming it): nothing is started.
   */
  async plan(
    batchId: string,
    action: BatchAction,
    body: BatchActionBody,
  ): Promise<{ all: BatchItemView[]; chosen: BatchItemView[] }> {
    const all = await this.items(batchId);
    const wanted = body.items ? new Set(body.items.map((s) => s.toUpperCase())) : null;
    const chosen = wanted
      ? all.filter((i) => wanted.has(i.trackingCode.toUpperCase()) || wanted.has(i.itemKey.toUpperCase()))
      : all;
    if (wanted && chosen.length !== wanted.size) {
      const known = new Set(chosen.flatMap((i) => [i.trackingCode.toUpperCase(), i.itemKey.toUpperCase()]));
      const missing = [...wanted].filter((w) => !known.has(w));
      throw new ProblemError('invalid-body', `${missing.length} of the named items are not in this batch.`, {
        errors: missing.slice(0, 20).map((m) => ({ pointer: '/items', detail: `"${m}" is not an item of ${batchId}` })),
      });
    }
    const fitting = chosen.filter(
      (i) =>
        // A merge of the whole batch takes only exact duplicates (composer, title and every
        // catalog number the same); a partial match is merged only when an editor names it.
        (fits(action, i.status, i.duplicateOf) &&
          (action !== 'merge' || wanted !== null || i.duplicateMatch?.exact === true)) ||
        // Accepting again approves the terms an accepted work proposes.
        (action === 'accept' &&
          body.approveTerms === true &&
          i.status === 'accepted' &&
          i.newTerms.length > 0 &&
          !i.termsApproved),
    );
    if (action === 'merge') {
      // A named item that is no probable duplicate, or not open, is an error of the request: nothing is merged.
      const unfit = wanted ? chosen.filter((i) => !fits(action, i.status, i.duplicateOf)) : [];
      if (unfit.length > 0)
        throw new ProblemError('invalid-body', `${unfit.length} of the named items cannot be merged.`, {
          errors: unfit.slice(0, 20).map((i) => ({
            pointer: '/items',
            detail:
              i.duplicateOf === null
                ? `"${i.itemKey}" is not flagged as a probable duplicate`
                : `"${i.itemKey}" is ${i.status}; only a pending item can be merged`,
          })),
        });
    }
    return { all, chosen: fitting };
  }

  /** The problem detail of an item that failed (its admin path as the instance). */
  private itemProblem(code: string, err: unknown): ItemProblem {
    const instance = `/api/v1/admin/contributions/${code}`;
    const base = this.ctx.config.publicBaseUrl;
    if (err instanceof ProblemError) return problemBody(base, err.problem, instance, err.message, err.extras);
    return problemBody(base, 'internal-error', instance, (err as Error).message ?? String(err));
  }

  /**
   * Accept, decline or merge one item of a running batch action, as a single item's action would
   * (recorded with the actor's label). `resumed`: the action was cut short by a stop, so an item
   * already in the state the action leads to was reached before the stop and counts as done.
   */
  async actOne(
    action: Exclude<BatchAction, 'apply'>,
    item: { trackingCode: string; itemKey: string },
    batchItems: BatchItemView[],
    options: BatchActionOptions,
  ): Promise<BatchItemResult> {
    const code = item.trackingCode;
    const record = await this.ctx.intake.getContribution(code);
    if (!record)
      return {
        outcome: 'failed',
        status: 'pending',
        problem: this.itemProblem(
          code,
          new ProblemError('not-found', `No contribution has the tracking code ${code}.`),
        ),
      };
    if (options.resumed && (await this.reached(action, record, options))) {
      return { outcome: 'done', status: record.status, problem: null };
    }
    const body0 = actionBody(options);
    try {
      if (action === 'merge') {
        const view = batchItems.find((i) => i.trackingCode === code);
        const into = this.mergeTarget(view?.duplicateOf ?? '', batchItems);
        const { record: after } = await this.reviews.merge(code, into, body0, options.actor);
        return { outcome: 'done', status: after.status, problem: null };
      }
      const { record: after } = await this.reviews.act('contribution', code, action, body0, options.actor);
      return { outcome: 'done', status: after.status, problem: null };
    } catch (err) {
      const now = await this.ctx.intake.getContribution(code);
      return { outcome: 'failed', status: now?.status ?? record.status, problem: this.itemProblem(code, err) };
    }
  }

  /** Whether an item already stands where the action leads (a resumed action reached it before the stop). */
  private async reached(
    action: BatchAction,
    record: StoredContribution,
    options: BatchActionOptions,
  ): Promise<boolean> {
    if (action === 'decline') return record.status === 'declined';
    if (action === 'apply') return record.status === 'applied';
    if (record.status !== 'accepted') return false;
    if (action === 'merge' || !options.approveTerms || !record.submission.work?.newTerms) return true;
    const { review } = await this.reviews.get('contribution', record.trackingCode);
    return (review?.termsApproval ?? null) !== null;
  }

  /**
   * Apply the items as ONE change: one commit on main (local forge) and one rebuild
   * (api/review/apply.ts). Applies a stop cut short are resumed by the review service from their
   * markers; they are waited for first, so what they reached is not applied twice.
   */
  async applyItems(
    batchId: string,
    items: Array<{ trackingCode: string; itemKey: string }>,
    options: BatchActionOptions & { since: string },
  ): Promise<Map<string, BatchItemResult>> {
    const out = new Map<string, BatchItemResult>();
    if (options.resumed) {
      await this.reviews.resumeApplies();
      await this.reviews.settled();
    }
    const toApply: Array<{ trackingCode: string }> = [];
    for (const item of items) {
      const code = item.trackingCode;
      const record = await this.ctx.intake.getContribution(code);
      if (!record) {
        const problem = this.itemProblem(code, new ProblemError('not-found', `No contribution has ${code}.`));
        out.set(code, { outcome: 'failed', status: 'pending', problem });
      } else if (options.resumed && record.status === 'applied') {
        out.set(code, { outcome: 'done', status: 'applied', problem: null });
      } else if (
        options.resumed &&
        record.apply?.state === 'failed' &&
        (record.apply.requestedAtUtc ?? '') >= options.since
      ) {
        // This action's apply of the item was resumed after the stop and failed.
        const problem = this.itemProblem(
          code,
          new ProblemError('conflict', `The apply of ${code} failed; its review record names the error.`),
        );
        out.set(code, { outcome: 'failed', status: record.status, problem });
      } else toApply.push(item);
    }
    const body0 = actionBody(options);
    const settled = await this.reviews.applyGroup(
      batchId,
      toApply.map((i) => ({ code: i.trackingCode, body: body0, actor: options.actor })),
    );
    settled.forEach((r, n) => {
      const code = toApply[n]!.trackingCode;
      if (r.status === 'rejected') {
        out.set(code, { outcome: 'failed', status: 'accepted', problem: this.itemProblem(code, r.reason) });
        return;
      }
      const status = r.value.record.status;
      out.set(
        code,
        status === 'applied'
          ? { outcome: 'done', status, problem: null }
          : {
              outcome: 'failed',
              status,
              problem: this.itemProblem(
                code,
                new ProblemError(
                  'conflict',
                  `The apply of ${code} failed; the item is still "${status}" and its review record names the error.`,
                ),
              ),
            },
      );
    });
    return out;
  }
}

type ItemProblem = ReturnType<typeof problemBody>;

/** What a batch action does to each item, and as whom. */
export interface BatchActionOptions {
  actor: ReviewActor;
  reviewer: string;
  note: string | null;
  approveTerms: boolean;
  /** The action resumes after a stop (see actOne). */
  resumed: boolean;
}

export interface BatchItemResult {
  outcome: 'done' | 'failed';
  status: SubmissionStatus;
  problem: ItemProblem | null;
}

function actionBody(o: BatchActionOptions): AdminActionBody {
  return {
    reviewer: o.reviewer,
    ...(o.note ? { note: o.note } : {}),
    ...(o.approveTerms ? { approveTerms: true } : {}),
  };
}
