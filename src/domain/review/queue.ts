/**
 * The review queue as a small in-memory index: one entry per stored submission
 * with just what the queue shows and filters on, grouped by status. The server fills it once from
 * the record store and keeps it current from every write, so a queue request never reads the
 * stored submissions; it reads only the review records of the page it shows.
 *
 * Cost per request: the entries of the requested statuses (the open ones by default, which stay
 * few while applied and declined items pile up), filtered, sorted and sliced.
 */
import type { StoredContribution, SubmissionKind, SubmissionStatus } from '../../schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../schemas/correction.ts';
import type { QueueKind, QueueStatus } from '../../schemas/review.ts';
import { newWorkSlug } from './proposal.ts';

export const OPEN_STATUSES: readonly SubmissionStatus[] = ['pending', 'needs-information', 'accepted'];

export interface QueueEntry {
  trackingCode: string;
  /** Submissions, and pull requests people opened on the content repository (src/domain/review/pull-request.ts). */
  kind: QueueKind;
  status: QueueStatus;
  receivedAtUtc: string;
  updatedAtUtc: string;
  /** The contribution's operation; correction reports have none. */
  operation: string | null;
  /** The work the item is about, when it names one. */
  workSlug: string | null;
  /** The slug a new work would take (newWorkSlug), so two items that claim one slug are found at accept. */
  newWorkSlug?: string | null;
  /** One line: operation and target. */
  summary: string;
}

export interface QueueFilter {
  /** Statuses to list; the open ones when empty. */
  statuses: readonly QueueStatus[];
  kind?: QueueKind;
  operation?: string;
  workSlug?: string;
  /** Only items received at or after / strictly before these UTC timestamps (ISO 8601, compared as instants). */
  receivedAfter?: string;
  receivedBefore?: string;
}

export function queueSummary(record: StoredContribution | StoredCorrectionReport): string {
  if (record.kind === 'contribution') {
    const s = record.submission;
    return `${s.operation} for ${s.target?.workSlug ?? 'a new record'}${s.arrangement?.title ? `: ${s.arrangement.title}` : ''}`;
  }
  const r = record.report;
  return `correct ${r.fieldName} of ${r.workSlug ?? r.targetType}${r.targetId != null ? ` #${r.targetId}` : ''}`;
}

export function queueEntryOf(record: StoredContribution | StoredCorrectionReport): QueueEntry {
  return {
    trackingCode: record.trackingCode,
    kind: record.kind,
    status: record.status,
    receivedAtUtc: record.receivedAtUtc,
    updatedAtUtc: record.updatedAtUtc,
    operation: record.kind === 'contribution' ? record.submission.operation : null,
    workSlug: (record.kind === 'contribution' ? record.submission.target?.workSlug : record.report.workSlug) ?? null,
    newWorkSlug: record.kind === 'contribution' ? newWorkSlug(record.submission) : null,
    summary: queueSummary(record),
  };
}

/** Oldest first; ties by tracking code, so paging is stable. */
export function compareEntries(a: QueueEntry, b: QueueEntry): number {
  const ta = Date.parse(a.receivedAtUtc);
  const tb = Date.parse(b.receivedAtUtc);
  return ta !== tb ? ta - tb : a.trackingCode < b.trackingCode ? -1 : a.trackingCode > b.trackingCode ? 1 : 0;
}

export class QueueIndex {
  private readonly byCode = new Map<string, QueueEntry>();
  private readonly byStatus = new Map<QueueStatus, Map<string, QueueEntry>>();

  get size(): number {
    return this.byCode.size;
  }

  /** Record the current state of one submission (a new one, or a status change). */
  put(entry: QueueEntry): void {
    const old = this.byCode.get(entry.trackingCode);
    if (old) this.byStatus.get(old.status)?.delete(entry.trackingCode);
    this.byCode.set(entry.trackingCode, entry);
    let bucket = this.byStatus.get(entry.status);
    if (!bucket) this.byStatus.set(entry.status, (bucket = new Map()));
    bucket.set(entry.trackingCode, entry);
  }

  /** Add an entry only if the code is not known yet (a bulk load must not undo a newer write). */
  putIfAbsent(entry: QueueEntry): void {
    if (!this.byCode.has(entry.trackingCode)) this.put(entry);
  }

  /** Count per status, for every status that has items. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [status, bucket] of this.byStatus) if (bucket.size > 0) out[status] = bucket.size;
    return out;
  }

  /** Open new-work items (oldest first) that would create the work `slug`, but for `except`. */
  claimants(slug: string, except: string): QueueEntry[] {
    const out: QueueEntry[] = [];
    for (const status of OPEN_STATUSES)
      for (const e of this.byStatus.get(status)?.values() ?? [])
        if (e.newWorkSlug === slug && e.trackingCode !== except) out.push(e);
    return out.sort(compareEntries);
  }

  /** One page of the matching entries, oldest first, and how many match in all. */
  page(filter: QueueFilter, page: number, pageSize: number): { items: QueueEntry[]; total: number } {
    const statuses: readonly QueueStatus[] = filter.statuses.length > 0 ? [...new Set(filter.statuses)] : OPEN_STATUSES;
    const after = filter.receivedAfter === undefined ? -Infinity : Date.parse(filter.receivedAfter);
    const before = filter.receivedBefore === undefined ? Infinity : Date.parse(filter.receivedBefore);
    const matches: QueueEntry[] = [];
    for (const status of statuses) {
      for (const e of this.byStatus.get(status)?.values() ?? []) {
        if (filter.kind !== undefined && e.kind !== filter.kind) continue;
        if (filter.operation !== undefined && e.operation !== filter.operation) continue;
        if (filter.workSlug !== undefined && e.workSlug !== filter.workSlug) continue;
        const t = Date.parse(e.receivedAtUtc);
        if (t < after || t >= before) continue;
        matches.push(e);
      }
    }
    matches.sort(compareEntries);
    const start = (page - 1) * pageSize;
    return { items: matches.slice(start, start + pageSize), total: matches.length };
  }
}
