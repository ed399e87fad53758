/**
 * Pull requests people open on the content repository, as review items (docs/github-review.md): the
 * stored record's transitions on each webhook event, its queue entry, and the lint result from
 * the content lint's messages. Pure: the webhook (api/forge/github-webhook.ts) and the runner
 * (api/forge/pull-requests.ts) do the I/O.
 */
import type { LocatedLintMessage } from '../content-lint.ts';
import { PULL_REQUEST_MAX_LINT_ERRORS, type PullRequestLint, type PullRequestReview } from '../../schemas/review.ts';
import type { QueueEntry } from './queue.ts';

/** The queue's identifier of pull request `n`. */
export const pullRequestCode = (n: number): string => `PR-${n}`;

/** The webhook's view of a pull request, checked (api/forge/github-webhook.ts parses it). */
export interface PullRequestEvent {
  action: string;
  repository: string;
  number: number;
  title: string;
  author: string;
  url: string;
  draft: boolean;
  merged: boolean;
  open: boolean;
  headRef: string;
  headSha: string;
  baseRef: string;
  createdAtUtc: string;
}

const MAX_EVENTS = 50;

const pendingLint = (headSha: string): PullRequestLint => ({
  state: 'pending',
  headSha,
  checkedAtUtc: null,
  scope: 'not linted yet',
  errorCount: 0,
  errors: [],
  detail: null,
});

/** The record after one webhook event (a new record for the first event of a pull request). */
export function recordEvent(
  current: PullRequestReview | null,
  event: PullRequestEvent,
  nowUtc: string,
): PullRequestReview {
  const state = event.merged ? 'merged' : event.open ? 'open' : 'closed';
  const lint = current && current.lint.headSha === event.headSha ? current.lint : pendingLint(event.headSha);
  const events = [...(current?.events ?? []), { action: event.action, atUtc: nowUtc, headSha: event.headSha }].slice(
    -MAX_EVENTS,
  );
  return {
    recordVersion: 1,
    trackingCode: pullRequestCode(event.number),
    repository: event.repository,
    number: event.number,
    title: event.title,
    author: event.author,
    url: event.url,
    state,
    draft: event.draft,
    headRef: event.headRef,
    headSha: event.headSha,
    baseRef: event.baseRef,
    createdAtUtc: current?.createdAtUtc ?? event.createdAtUtc,
    updatedAtUtc: nowUtc,
    changedFiles: current?.headSha === event.headSha ? current.changedFiles : [],
    changedFilesTotal: current?.headSha === event.headSha ? current.changedFilesTotal : 0,
    workSlugs: current?.headSha === event.headSha ? current.workSlugs : [],
    lint,
    ...(current?.sync ? { sync: current.sync } : {}),
    events,
  };
}

/** A merged pull request whose change the archive has not brought in yet (or could not: retried on the next event). */
export function needsSync(record: PullRequestReview): boolean {
  return record.state === 'merged' && record.sync?.state !== 'applied';
}

/**
 * Whether to (re)run the lint: an open pull request whose head has no result yet (a new head, or
 * a lint that could not run: any later event, a redelivery included, retries it).
 */
export function needsLint(record: PullRequestReview): boolean {
  return (
    record.state === 'open' &&
    (record.lint.state === 'pending' || record.lint.state === 'error' || record.lint.headSha !== record.headSha)
  );
}

/** The lint result from the content lint's messages about the changed files. */
export function lintResult(
  headSha: string,
  messages: LocatedLintMessage[],
  scope: string,
  checkedAtUtc: string,
  detail: string | null = null,
): PullRequestLint {
  return {
    state: messages.length > 0 ? 'failed' : 'passed',
    headSha,
    checkedAtUtc,
    scope,
    errorCount: messages.length,
    errors: messages
      .slice(0, PULL_REQUEST_MAX_LINT_ERRORS)
      .map((m) => ({ file: m.file, line: m.line, pointer: m.pointer, message: m.message })),
    detail:
      detail ??
      (messages.length > PULL_REQUEST_MAX_LINT_ERRORS
        ? `Only the first ${PULL_REQUEST_MAX_LINT_ERRORS} of ${messages.length} problems are listed.`
        : null),
  };
}

/** A lint that could not run (GitHub unreachable, too many or too large files): says why, blocks nothing silently. */
export function lintFailure(
  headSha: string,
  detail: string,
  checkedAtUtc: string,
  scope = 'not linted',
): PullRequestLint {
  return { state: 'error', headSha, checkedAtUtc, scope, errorCount: 0, errors: [], detail };
}

/** Work folders a list of changed paths touches, sorted. */
export function workSlugsOf(files: readonly string[]): string[] {
  const slugs = new Set<string>();
  for (const f of files) {
    const m = /^works\/([^/]+)\//.exec(f);
    if (m) slugs.add(m[1]!);
  }
  return [...slugs].sort();
}

/** The queue's entry: open -> pending (awaiting review), merged, closed. */
export function pullRequestQueueEntry(pr: PullRequestReview): QueueEntry {
  return {
    trackingCode: pr.trackingCode,
    kind: 'pull-request',
    status: pr.state === 'open' ? 'pending' : pr.state,
    receivedAtUtc: pr.createdAtUtc,
    updatedAtUtc: pr.updatedAtUtc,
    operation: null,
    workSlug: pr.workSlugs.length === 1 ? pr.workSlugs[0]! : null,
    summary: `pull request #${pr.number} by @${pr.author}: ${pr.title}`,
  };
}
