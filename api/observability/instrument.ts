/**
 * Puts the build, apply and queue measurements of ArchiveMetrics on the services that do that
 * work, from the outside: the rebuilder's rebuild-and-swap and the review service's `apply` are
 * wrapped on their instances (one place, so the services stay free of metrics code), and the
 * review queue is counted through the service's own `queue()` (its in-memory index).
 */
import type { SiteRebuilder } from '../site/builds.ts';
import type { ReviewService } from '../review/service.ts';
import { timed, type ArchiveMetrics } from './metrics.ts';
import { OPEN_STATUSES } from '../../src/domain/review/queue.ts';

export function instrumentRebuilder(rebuilder: SiteRebuilder, metrics: ArchiveMetrics): void {
  const rebuild = rebuilder.rebuildAndSwap.bind(rebuilder);
  rebuilder.rebuildAndSwap = async () => {
    metrics.rebuildQueue.inc();
    const started = Date.now();
    try {
      const result = await rebuild();
      // durationMs is the build itself, without the time spent waiting for an earlier rebuild.
      metrics.buildDuration.observe({ outcome: 'ok' }, result.durationMs / 1000);
      return result;
    } catch (err) {
      metrics.buildDuration.observe({ outcome: 'failed' }, (Date.now() - started) / 1000);
      throw err;
    } finally {
      metrics.rebuildQueue.dec();
    }
  };
}

export function instrumentReview(review: ReviewService, metrics: ArchiveMetrics): void {
  const act = review.act.bind(review);
  // `actor` and `options` pass through: an apply answered at once (`wait: false`) must not be made to wait.
  review.act = (kind, code, action, body, actor, options) =>
    action === 'apply'
      ? timed(
          (outcome, seconds) => metrics.applyDuration.observe({ kind, outcome }, seconds),
          () => act(kind, code, action, body, actor, options),
        )
      : act(kind, code, action, body, actor, options);
  metrics.countReviewQueueWith(async () => {
    const rows: Array<{ kind: string; status: string; count: number }> = [];
    for (const kind of ['contribution', 'correction-report'] as const) {
      for (const status of OPEN_STATUSES)
        rows.push({ kind, status, count: (await review.queue({ statuses: [status], kind }, 1, 1)).total });
    }
    return rows;
  });
}
