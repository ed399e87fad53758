/**
 * Pure rules of people's pull requests as review items (src/domain/review/pull-request.ts): what
 * each webhook event does to the record, when the head is linted again, when a merge is brought
 * in, and the queue entry.
 */
import { describe, expect, it } from 'vitest';
import {
  lintFailure,
  lintResult,
  needsLint,
  needsSync,
  pullRequestQueueEntry,
  recordEvent,
  type PullRequestEvent,
} from '../../src/domain/review/pull-request.ts';

const event = (over: Partial<PullRequestEvent> = {}): PullRequestEvent => ({
  action: 'opened',
  repository: 'acme/content',
  number: 7,
  title: 'Fix a date',
  author: 'carol',
  url: 'https://github.com/acme/content/pull/7',
  draft: false,
  merged: false,
  open: true,
  headRef: 'fix',
  headSha: 'a'.repeat(40),
  baseRef: 'main',
  createdAtUtc: '2026-11-20T10:00:00Z',
  ...over,
});

describe('pull request review records', () => {
  it('a first event makes a pending item whose head needs a lint', () => {
    const r = recordEvent(null, event(), '2026-11-20T10:00:05Z');
    expect(r).toMatchObject({
      trackingCode: 'PR-7',
      state: 'open',
      lint: { state: 'pending', headSha: 'a'.repeat(40) },
      events: [{ action: 'opened', atUtc: '2026-11-20T10:00:05Z' }],
    });
    expect(needsLint(r)).toBe(true);
    expect(pullRequestQueueEntry(r)).toEqual({
      trackingCode: 'PR-7',
      kind: 'pull-request',
      status: 'pending',
      receivedAtUtc: '2026-11-20T10:00:00Z',
      updatedAtUtc: '2026-11-20T10:00:05Z',
      operation: null,
      workSlug: null,
      summary: 'pull request #7 by @carol: Fix a date',
    });
  });

  it('keeps a lint of the same head, drops it for a new head, retries one that could not run', () => {
    const linted = {
      ...recordEvent(null, event(), '2026-11-20T10:00:05Z'),
      workSlugs: ['x'],
      changedFiles: ['works/x/index.md'],
    };
    linted.lint = lintResult('a'.repeat(40), [], '1 changed work(s): x', '2026-11-20T10:00:06Z');
    const edited = recordEvent(linted, event({ action: 'edited', title: 'Fix the date' }), '2026-11-20T10:01:00Z');
    expect(edited).toMatchObject({ title: 'Fix the date', lint: { state: 'passed' }, workSlugs: ['x'] });
    expect(needsLint(edited)).toBe(false);
    expect(pullRequestQueueEntry(edited).workSlug).toBe('x');
    const pushed = recordEvent(
      edited,
      event({ action: 'synchronize', headSha: 'b'.repeat(40) }),
      '2026-11-20T10:02:00Z',
    );
    expect(pushed).toMatchObject({
      lint: { state: 'pending', headSha: 'b'.repeat(40) },
      changedFiles: [],
      workSlugs: [],
    });
    expect(needsLint(pushed)).toBe(true);
    const failed = { ...pushed, lint: lintFailure('b'.repeat(40), 'GitHub unreachable', '2026-11-20T10:02:01Z') };
    expect(
      needsLint(recordEvent(failed, event({ action: 'synchronize', headSha: 'b'.repeat(40) }), '2026-11-20T10:03:00Z')),
    ).toBe(true);
    expect(pushed.events.map((e) => e.action)).toEqual(['opened', 'edited', 'synchronize']);
  });

  it('closed and merged states; a merge is brought in until it is applied', () => {
    const open = recordEvent(null, event(), '2026-11-20T10:00:05Z');
    const closed = recordEvent(open, event({ action: 'closed', open: false }), '2026-11-20T11:00:00Z');
    expect(pullRequestQueueEntry(closed).status).toBe('closed');
    expect(needsLint(closed)).toBe(false);
    expect(needsSync(closed)).toBe(false);
    const merged = recordEvent(open, event({ action: 'closed', open: false, merged: true }), '2026-11-20T11:00:00Z');
    expect(pullRequestQueueEntry(merged).status).toBe('merged');
    expect(needsSync(merged)).toBe(true);
    const failed = recordEvent(
      { ...merged, sync: { state: 'failed', atUtc: '2026-11-20T11:00:01Z', commit: null, detail: 'lint' } },
      event({ action: 'closed', open: false, merged: true }),
      '2026-11-20T11:05:00Z',
    );
    expect(failed.sync?.state).toBe('failed');
    expect(needsSync(failed)).toBe(true);
    expect(
      needsSync({
        ...failed,
        sync: { state: 'applied', atUtc: '2026-11-20T11:06:00Z', commit: 'c'.repeat(40), detail: null },
      }),
    ).toBe(false);
  });

  it('lists at most 200 lint problems and says so', () => {
    const messages = Array.from({ length: 205 }, (_, i) => ({
      file: 'works/x/index.md',
      pointer: `/a/${i}`,
      message: 'bad',
      line: i + 2,
    }));
    const lint = lintResult('a'.repeat(40), messages, 'scope', '2026-11-20T10:00:00Z');
    expect(lint).toMatchObject({
      state: 'failed',
      errorCount: 205,
      detail: 'Only the first 200 of 205 problems are listed.',
    });
    expect(lint.errors).toHaveLength(200);
    expect(lint.errors[0]).toEqual({ file: 'works/x/index.md', line: 2, pointer: '/a/0', message: 'bad' });
  });
});
