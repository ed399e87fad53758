/** The pure review-queue index (src/domain/review/queue.ts). */
import { describe, expect, it } from 'vitest';
import { QueueIndex, type QueueEntry } from '../../src/domain/review/queue.ts';

const entry = (
  code: string,
  status: QueueEntry['status'],
  at: string,
  extra: Partial<QueueEntry> = {},
): QueueEntry => ({
  trackingCode: code,
  kind: 'correction-report',
  status,
  receivedAtUtc: at,
  updatedAtUtc: at,
  operation: null,
  workSlug: null,
  summary: code,
  ...extra,
});

describe('QueueIndex', () => {
  it('orders by receive instant, then code, and moves an entry between statuses on put', () => {
    const q = new QueueIndex();
    q.put(entry('R-B', 'pending', '2026-01-01T00:00:00.000Z'));
    q.put(entry('R-A', 'pending', '2026-01-01T00:00:00Z'));
    q.put(entry('R-C', 'accepted', '2025-12-31T23:59:59.999Z'));
    expect(q.page({ statuses: [] }, 1, 10).items.map((e) => e.trackingCode)).toEqual(['R-C', 'R-A', 'R-B']);
    q.put(entry('R-C', 'applied', '2025-12-31T23:59:59.999Z'));
    expect(q.page({ statuses: [] }, 1, 10).items.map((e) => e.trackingCode)).toEqual(['R-A', 'R-B']);
    expect(q.page({ statuses: ['applied'] }, 1, 10).total).toBe(1);
    expect(q.counts()).toEqual({ pending: 2, applied: 1 });
    expect(q.size).toBe(3);
  });

  it('lets a newer write win over a bulk load of the same code', () => {
    const q = new QueueIndex();
    q.put(entry('R-A', 'declined', '2026-01-01T00:00:00Z'));
    q.putIfAbsent(entry('R-A', 'pending', '2026-01-01T00:00:00Z'));
    expect(q.counts()).toEqual({ declined: 1 });
  });

  it('pages with an exact total and filters by time bounds (after inclusive, before exclusive)', () => {
    const q = new QueueIndex();
    for (let i = 0; i < 25; i++)
      q.put(entry(`R-${String(i).padStart(2, '0')}`, 'pending', `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`));
    const p3 = q.page({ statuses: ['pending'] }, 3, 10);
    expect([p3.total, p3.items.length, p3.items[0]!.trackingCode]).toEqual([25, 5, 'R-20']);
    const window = q.page(
      { statuses: [], receivedAfter: '2026-01-05T00:00:00Z', receivedBefore: '2026-01-08T00:00:00Z' },
      1,
      10,
    );
    expect(window.items.map((e) => e.trackingCode)).toEqual(['R-04', 'R-05', 'R-06']);
  });
});
