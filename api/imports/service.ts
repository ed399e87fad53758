/**
 * Review batches: a bulk import's works as one item (the admin API and the desk both read and act
 * through here, so they cannot disagree). Every action on a work goes through the review service
 * exactly as a single contribution's would, recorded with the acting key's label.
 */
import type { AppContext } from '../context.ts';
import { ProblemError, problemBody } from '../http/problem.ts';
import type { ReviewActor, ReviewService } from '../review/service.ts';
import { ImportStore, type StoredBatch, type StoredBatchFact, type StoredBatchItem } from './store.ts';
import type { BatchActionBody, BatchFact, BatchItemView } from '../../src/schemas/imports.ts';
import { correctionReportErrors } from '../../src/domain/review/correction.ts';
import { proposalWorkSlug } from '../../src/domain/review/proposal-input.ts';
import { parseFrontMatter, splitWorkFile } from '../../src/domain/work-file.ts';
import { git } from '../site/content-repo.ts';
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
  const pub = w.firstPublishedFact ?? null;
  return territoryRights({
    authors: authorsOf(composer, w.lyricistFacts ?? w.lyricist ?? null, w.hasLyrics === true),
    firstPublished:
      pub === null
        ? firstPublishedFact(w.firstPublished)
        : pub.bound === 'unpublished'
          ? 'unpublished'
          : pub.bound === 'exact'
            ? pub.year
            : { noLaterThan: pub.year! },
    asOfYear,
  });
}

export type BatchAction = 'accept' | 'decline' | 'apply' | 'merge' | 'record-facts';

/**
 * Which statuses an action fits: accept what is pending, merge a pending probable duplicate,
 * apply what is accepted, decline what is open. (A merge that names no items takes only the
 * exact duplicates among these: see BatchService.plan.)
 */
export function fits(action: BatchAction, status: string, duplicateOf: string | null = null): boolean {
  if (action === 'accept') return status === 'pending';
  if (action === 'merge') return duplicateOf !== null && (status === 'pending' || status === 'needs-information');
  if (action === 'apply') return status === 'accepted';
  // A fact is recorded for a work that exists: an applied item's.
  if (action === 'record-facts') return status === 'applied';
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

  /** The facts recorded for the batch, each with its report's status. */
  async factsView(batchId: string): Promise<
    Array<{
      itemKey: string;
      trackingCode: string;
      field: string;
      value: string;
      person: string | null;
      status: string;
    }>
  > {
    const out = [];
    for (const f of await this.store.factsOf(batchId)) {
      const report = await this.ctx.intake.getCorrectionReport(f.trackingCode);
      out.push({
        itemKey: f.itemKey,
        trackingCode: f.trackingCode,
        field: f.field,
        value: f.value,
        person: f.person,
        status: report?.status ?? 'unknown',
      });
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
    if (action === 'record-facts') return { all, chosen: await this.planFacts(batchId, body, chosen) };
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
    if (action === 'apply') {
      // The batch's recorded facts land with its works, in the same one change (their reports accepted by record-facts).
      for (const f of await this.store.factsOf(batchId)) {
        const report = await this.ctx.intake.getCorrectionReport(f.trackingCode);
        if (report?.status !== 'accepted') continue;
        if (wanted && !wanted.has(f.itemKey.toUpperCase()) && !wanted.has(f.trackingCode.toUpperCase())) continue;
        fitting.push(factItemView(f, report.status, all));
      }
    }
    return { all, chosen: fitting };
  }

  /**
   * The works a record-facts action reaches: every chosen work that exists (an applied item's) for a
   * work's fact; for a person's fact, the first of them that names the person (one report changes
   * the person's record, so every work naming them). The fact is checked now: a request error is a
   * 400 naming the field, and nothing starts.
   */
  private async planFacts(batchId: string, body: BatchActionBody, chosen: BatchItemView[]): Promise<BatchItemView[]> {
    const fact = body.fact;
    const refuse = (pointer: string, detail: string): never => {
      throw new ProblemError('invalid-body', `The fact cannot be recorded: ${detail}`, {
        errors: [{ pointer, detail }],
      });
    };
    if (!fact) return refuse('/fact', 'is required for record-facts (field, value, evidence and note)');
    if (!fact.evidenceUrl && fact.evidenceFromItemScan !== true)
      refuse('/fact/evidenceUrl', 'a fact without evidence is refused: give evidenceUrl, or evidenceFromItemScan true');
    if (fact.evidenceUrl && fact.evidenceFromItemScan === true)
      refuse('/fact/evidenceFromItemScan', 'give evidenceUrl or evidenceFromItemScan, not both');
    const personFact = fact.field !== 'firstPublished';
    if (personFact && !fact.person) refuse('/fact/person', `is required for the person's fact "${fact.field}"`);
    if (!personFact && fact.person) refuse('/fact/person', 'names a person, but firstPublished is a fact of each work');
    // The value passes the same rule a correction report's does.
    const problems = correctionReportErrors({
      targetType: personFact ? 'composer' : 'work',
      fieldName: fact.field,
      proposedValue: fact.value,
      evidenceUrl: fact.evidenceUrl ?? 'https://evidence.invalid/from-item-scan',
    });
    for (const p of problems) refuse(p.pointer === '/proposedValue' ? '/fact/value' : '/fact', p.detail);
    const applied = chosen.filter((i) => i.status === 'applied');
    if (!personFact) return applied;
    for (const item of applied) {
      const people = await this.peopleOfItem(item);
      if (people && (people.composer === fact.person || people.lyricist === fact.person)) return [item];
    }
    return refuse('/fact/person', `no applied work of ${batchId} among those chosen names the person "${fact.person}"`);
  }

  /** The people the item's work names on main (slugs), or null when the work is not there. */
  private async peopleOfItem(
    item: BatchItemView,
  ): Promise<{ composer: string | null; lyricist: string | null } | null> {
    const slug = await this.workSlugOf(item.trackingCode);
    if (!slug) return null;
    const text = await git(this.ctx.config.contentRepo, ['show', `refs/heads/main:works/${slug}/index.md`]).catch(
      () => null,
    );
    if (text === null) return null;
    try {
      const data = parseFrontMatter(splitWorkFile(text).frontMatter);
      const str = (v: unknown) => (typeof v === 'string' ? v : null);
      return { composer: str(data.composer), lyricist: str(data.lyricist) };
    } catch {
      return null;
    }
  }

  /** The work an item landed as (its new work, or the work an editor merged it into). */
  private async workSlugOf(code: string): Promise<string | null> {
    const { record, review } = await this.reviews.get('contribution', code);
    return record.kind === 'contribution' ? proposalWorkSlug(record, { mergeInto: review?.mergeInto ?? null }) : null;
  }

  /**
   * Record the action's fact for one work: a correction report (the editor as reporter, the fact's
   * evidence: the one page, or the scan the item's score was transcribed from), accepted by the
   * acting editor, so the batch's apply lands it with the rest. Made once per item, field and value:
   * a resumed action finds the report it made.
   */
  async recordFact(
    batchId: string,
    actionId: string,
    item: { trackingCode: string; itemKey: string },
    fact: BatchFact,
    options: BatchActionOptions,
  ): Promise<BatchItemResult> {
    const code = item.trackingCode;
    const fail = (err: unknown): BatchItemResult => ({
      outcome: 'failed',
      status: 'applied',
      problem: this.itemProblem(code, err),
    });
    const contribution = await this.ctx.intake.getContribution(code);
    if (!contribution) return fail(new ProblemError('not-found', `No contribution has the tracking code ${code}.`));
    const slug = await this.workSlugOf(code);
    if (!slug || contribution.status !== 'applied')
      return fail(
        new ProblemError(
          'conflict',
          `${item.itemKey} is "${contribution.status}": a fact is recorded for a work that was applied.`,
        ),
      );
    const evidenceUrl =
      fact.evidenceUrl ??
      contribution.submission.assets.find(
        (a) => a.kind === 'source-page' && /^https:\/\/imslp\.org\/wiki\/Special:ReverseLookup\//.test(a.sourcePageUrl),
      )?.sourcePageUrl ??
      null;
    if (!evidenceUrl)
      return fail(
        new ProblemError(
          'invalid-body',
          `${item.itemKey} has no scan its score was transcribed from to cite; record its fact with an evidenceUrl.`,
        ),
      );
    const personFact = fact.field !== 'firstPublished';
    const people = personFact ? await this.peopleOfItem({ trackingCode: code } as BatchItemView) : null;
    const role = personFact ? (people?.composer === fact.person ? 'composer' : 'lyricist') : 'work';
    const id = ImportStore.factId(batchId, item.itemKey, fact.field, fact.value, fact.person ?? null);
    let stored = await this.store.facts.get(id);
    try {
      if (!stored) {
        const report = await this.ctx.intake.submitCorrectionReport({
          workSlug: slug,
          targetType: role,
          fieldName: fact.field,
          proposedValue: fact.value,
          rationale: fact.note,
          evidenceUrl,
          reporterName: options.reviewer,
          reporterKind: 'Human',
        });
        stored = {
          recordVersion: 1,
          batchId,
          itemKey: item.itemKey,
          trackingCode: report.trackingCode,
          field: fact.field,
          value: fact.value,
          person: fact.person ?? null,
          actionId,
          createdAtUtc: report.receivedAtUtc,
        };
        await this.store.facts.create(id, stored);
      }
      const report = await this.ctx.intake.getCorrectionReport(stored.trackingCode);
      if (report && report.status === 'pending')
        await this.reviews.act('correction-report', stored.trackingCode, 'accept', actionBody(options), options.actor);
      return { outcome: 'done', status: contribution.status, problem: null, report: stored.trackingCode };
    } catch (err) {
      return { ...fail(err), report: stored?.trackingCode ?? null };
    }
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
    action: Exclude<BatchAction, 'apply' | 'record-facts'>,
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
      const record = isReportCode(code)
        ? await this.ctx.intake.getCorrectionReport(code)
        : await this.ctx.intake.getContribution(code);
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
      toApply.map((i) => ({
        code: i.trackingCode,
        kind: isReportCode(i.trackingCode) ? ('correction-report' as const) : ('contribution' as const),
        body: body0,
        actor: options.actor,
      })),
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

/** A correction report's tracking code ("R-…"): a fact a batch recorded; else a contribution's ("C-…"). */
export function isReportCode(code: string): boolean {
  return /^R-/i.test(code);
}

/** A recorded fact as an item of an apply action (its report; the item key says which work and field). */
function factItemView(f: StoredBatchFact, status: SubmissionStatus, all: BatchItemView[]): BatchItemView {
  const work = all.find((i) => i.itemKey === f.itemKey);
  return {
    ...(work ?? {
      title: f.itemKey,
      composer: '',
      lyricist: null,
      workSlug: null,
      duplicateOf: null,
      duplicateMatch: null,
      factsFrom: null,
      newTerms: [],
      termsApproved: false,
      territories: { US: '', EU: '', CA: '' },
      missingFacts: [],
      links: { admin: '', desk: '' },
    }),
    itemKey: `${f.itemKey}:${f.field}`,
    trackingCode: f.trackingCode,
    status,
    duplicateOf: null,
  };
}

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
  /** record-facts: the correction report made for the item. */
  report?: string | null;
}

function actionBody(o: BatchActionOptions): AdminActionBody {
  return {
    reviewer: o.reviewer,
    ...(o.note ? { note: o.note } : {}),
    ...(o.approveTerms ? { approveTerms: true } : {}),
  };
}
