/**
 * Review batches: a bulk import's works as one item (the admin API and the desk both read and act
 * through here, so they cannot disagree). Every action on a work goes through the review service
 * exactly as a single contribution's would, recorded with the acting key's label.
 */
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import type { ReviewActor, ReviewService } from '../review/service.ts';
import type { ImportStore, StoredBatch, StoredBatchItem } from './store.ts';
import type { BatchActionBody, BatchItemView } from '../../src/schemas/imports.ts';
import type { StoredContribution } from '../../src/schemas/contribution.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { authorsOf, firstPublishedFact } from '../../src/domain/review/proposal.ts';
import { territoryRights } from '../../src/domain/territory-rights.ts';
import { proposedTermLabels } from '../../src/domain/review/new-terms.ts';
import type { ReviewRecord } from '../../src/schemas/review.ts';

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

export interface BatchActionResult {
  trackingCode: string;
  itemKey: string;
  status: string;
  error: string | null;
}

/**
 * Which statuses an action fits: accept what is pending, merge a pending probable duplicate,
 * apply what is accepted, decline what is open.
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

  /** Act on the named items (tracking codes or item keys), or on every item the action fits. */
  async act(
    batchId: string,
    action: BatchAction,
    body: BatchActionBody,
    actor: ReviewActor,
  ): Promise<BatchActionResult[]> {
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
    const results: BatchActionResult[] = [];
    const fitting = chosen.filter(
      (i) =>
        fits(action, i.status, i.duplicateOf) ||
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
    const body0 = {
      reviewer: body.reviewer ?? actor.label,
      ...(body.note ? { note: body.note } : {}),
      ...(body.approveTerms === true ? { approveTerms: true } : {}),
    };
    if (action === 'apply') {
      // Every accepted work at once: one commit on main and one rebuild (api/review/apply.ts).
      const settled = await this.reviews.applyGroup(
        batchId,
        fitting.map((i) => ({ code: i.trackingCode, body: body0, actor })),
      );
      return settled.map((r, n) => {
        const item = fitting[n]!;
        if (r.status === 'rejected')
          return {
            trackingCode: item.trackingCode,
            itemKey: item.itemKey,
            status: item.status,
            error: (r.reason as Error).message,
          };
        const status = r.value.record.status;
        return {
          trackingCode: item.trackingCode,
          itemKey: item.itemKey,
          status,
          error: status === 'applied' ? null : `the item is ${status}`,
        };
      });
    }
    for (const item of fitting) {
      try {
        if (action === 'merge') {
          const into = this.mergeTarget(item.duplicateOf!, all);
          const { record } = await this.reviews.merge(item.trackingCode, into, body0, actor);
          results.push({ trackingCode: item.trackingCode, itemKey: item.itemKey, status: record.status, error: null });
          continue;
        }
        const { record } = await this.reviews.act('contribution', item.trackingCode, action, body0, actor);
        results.push({ trackingCode: item.trackingCode, itemKey: item.itemKey, status: record.status, error: null });
      } catch (err) {
        results.push({
          trackingCode: item.trackingCode,
          itemKey: item.itemKey,
          status: item.status,
          error: (err as Error).message,
        });
      }
    }
    return results;
  }
}
