/**
 * GitHub events for reviews mirrored as pull requests (docs/review-infra.md): a webhook endpoint that
 * verifies `X-Hub-Signature-256` over the raw body before reading anything else, and a poll that
 * catches events the webhook missed (server down, delivery failed). A PR on branch
 * `review/<code>` that is merged calls `onMerged(code)`, closed unmerged `onClosed(code)`, and a
 * submitted review `onReview(code, state, reviewer)`. Handlers must be idempotent: GitHub redelivers,
 * and the poll may report what a webhook already did.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { GitHubSettings } from '../config.ts';
import type { AppContext } from '../context.ts';
import { sendProblem } from '../http/problem.ts';
import { createOctokit, trackingCodeFromBranch } from './forge-github.ts';
import type { ReviewRef } from './types.ts';
import { normalizeTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import type { PullRequestEvent } from '../../src/domain/review/pull-request.ts';
import type { PullRequestReview } from '../../src/schemas/review.ts';

export const GITHUB_WEBHOOK_PATH = '/api/v1/review/github-webhook';
/** GitHub caps webhook payloads at 25 MB; pull request events are far smaller. */
const WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;

export interface GitHubEventHandlers {
  onMerged(code: string): Promise<void>;
  onClosed(code: string): Promise<void>;
  /** state: "approved" | "changes_requested" | "commented" (GitHub's review states, lower case). */
  onReview?(code: string, state: string, reviewer: string): Promise<void>;
  /** Any `pull_request` event of a pull request a person opened (not on one of the archive's review branches). */
  onPullRequest?(event: PullRequestEvent): Promise<PullRequestReview>;
}

/** Pull request actions recorded for people's pull requests (others, e.g. "labeled", change nothing the queue shows). */
const RECORDED_ACTIONS = new Set([
  'opened',
  'synchronize',
  'reopened',
  'closed',
  'edited',
  'ready_for_review',
  'converted_to_draft',
]);

/** True for `review/<code>` where <code> is a contribution or correction-report tracking code: the archive's own branch. */
export function isArchiveReviewBranch(branch: string): boolean {
  const code = trackingCodeFromBranch(branch);
  return (
    code !== null &&
    (normalizeTrackingCode(code, 'contribution') !== null || normalizeTrackingCode(code, 'correction-report') !== null)
  );
}

export interface GitHubWebhookOptions {
  /** The shared secret; defaults to GITHUB_WEBHOOK_SECRET. Without one every delivery is refused. */
  secret?: string | null;
  /** "owner/name": events from other repositories are ignored (defaults to GITHUB_REPOSITORY). */
  repository?: string | null;
}

/** `sha256=<hex>` of the raw body, compared in constant time. */
export function verifySignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function signPayload(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

interface PullRequestPayload {
  action?: string;
  repository?: { full_name?: string };
  pull_request?: {
    merged?: boolean;
    head?: { ref?: string; sha?: string };
    base?: { ref?: string };
    number?: number;
    title?: string;
    user?: { login?: string };
    html_url?: string;
    state?: string;
    draft?: boolean;
    created_at?: string;
  };
  review?: { state?: string; user?: { login?: string } };
}

/** The pull request of a payload, checked field by field; a list of what is wrong otherwise. */
export function pullRequestEventOf(
  payload: PullRequestPayload,
  fallbackRepository: string | null,
): PullRequestEvent | string[] {
  const pr = payload.pull_request;
  const wrong: string[] = [];
  const str = (v: unknown, pointer: string, max: number): string => {
    if (typeof v !== 'string' || v.length === 0) wrong.push(`${pointer} must be a non-empty string`);
    return typeof v === 'string' ? v.slice(0, max) : '';
  };
  const number = pr?.number;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1)
    wrong.push('/pull_request/number must be a positive integer');
  const headSha = str(pr?.head?.sha, '/pull_request/head/sha', 64);
  if (headSha && !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(headSha))
    wrong.push('/pull_request/head/sha must be a commit id');
  const createdAt = str(pr?.created_at, '/pull_request/created_at', 40);
  const created = Date.parse(createdAt);
  if (createdAt && Number.isNaN(created)) wrong.push('/pull_request/created_at must be a timestamp');
  const url = str(pr?.html_url, '/pull_request/html_url', 500);
  if (url && !/^https?:\/\//.test(url)) wrong.push('/pull_request/html_url must be an http(s) URL');
  const event: PullRequestEvent = {
    action: str(payload.action, '/action', 40),
    repository: (payload.repository?.full_name ?? fallbackRepository ?? '').slice(0, 200),
    number: number as number,
    title: str(pr?.title, '/pull_request/title', 300),
    author: str(pr?.user?.login, '/pull_request/user/login', 100),
    url,
    draft: pr?.draft === true,
    merged: pr?.merged === true,
    open: pr?.state === 'open',
    headRef: str(pr?.head?.ref, '/pull_request/head/ref', 255),
    headSha,
    baseRef: str(pr?.base?.ref, '/pull_request/base/ref', 255),
    createdAtUtc: Number.isNaN(created) ? '' : new Date(created).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  return wrong.length > 0 ? wrong : event;
}

export async function registerGitHubWebhook(
  app: FastifyInstance,
  ctx: AppContext,
  handlers: GitHubEventHandlers,
  options: GitHubWebhookOptions = {},
): Promise<void> {
  const secret = options.secret !== undefined ? options.secret : ctx.config.githubWebhookSecret;
  const repository =
    (options.repository !== undefined ? options.repository : (ctx.config.github?.repository ?? null))?.toLowerCase() ??
    null;
  const base = ctx.config.publicBaseUrl;

  // A plugin scope of its own: the raw-body parser applies to this route only, the rest of the
  // API keeps its JSON parsers.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );

    scope.post(GITHUB_WEBHOOK_PATH, { bodyLimit: WEBHOOK_BODY_LIMIT }, async (request, reply) => {
      const unauthorized = (detail: string) =>
        sendProblem(reply, request, base, 'unauthorized', detail, {
          headers: { 'WWW-Authenticate': 'X-Hub-Signature-256 realm="github-webhook"' },
        });
      if (!secret) {
        return unauthorized(
          "GitHub webhooks are not configured on this server: set GITHUB_WEBHOOK_SECRET to the secret entered in the repository's webhook settings.",
        );
      }
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['x-hub-signature-256'];
      if (!verifySignature(secret, raw, typeof header === 'string' ? header : undefined)) {
        return unauthorized(
          'The X-Hub-Signature-256 header is missing or does not match the body signed with the configured webhook secret.',
        );
      }

      const event = String(request.headers['x-github-event'] ?? '');
      let payload: PullRequestPayload;
      try {
        payload = parsePayload(raw, String(request.headers['content-type'] ?? ''));
      } catch (err) {
        return sendProblem(
          reply,
          request,
          base,
          'malformed-json',
          `The webhook payload is not JSON: ${(err as Error).message}`,
        );
      }
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
        return sendProblem(reply, request, base, 'malformed-json', 'The webhook payload is not a JSON object.');
      }
      if (event === 'ping') return reply.code(204).header('Cache-Control', 'no-store').send();
      if (repository && payload.repository?.full_name && payload.repository.full_name.toLowerCase() !== repository) {
        return reply
          .code(202)
          .header('Cache-Control', 'no-store')
          .send({ handled: false, reason: `events of ${payload.repository.full_name} are ignored` });
      }
      const branch = payload.pull_request?.head?.ref ?? '';
      if (
        event === 'pull_request' &&
        handlers.onPullRequest &&
        !isArchiveReviewBranch(branch) &&
        RECORDED_ACTIONS.has(payload.action ?? '')
      ) {
        // A pull request a person opened: recorded for the review queue, its head linted.
        const parsed = pullRequestEventOf(payload, repository);
        if (Array.isArray(parsed)) {
          return sendProblem(
            reply,
            request,
            base,
            'invalid-body',
            `The pull_request payload is not usable: ${parsed.join('; ')}.`,
            {
              errors: parsed.map((w) => ({ pointer: w.split(' ')[0]!, detail: w.slice(w.indexOf(' ') + 1) })),
            },
          );
        }
        const recorded = await handlers.onPullRequest(parsed);
        return reply
          .code(200)
          .header('Cache-Control', 'no-store')
          .send({
            handled: true,
            trackingCode: recorded.trackingCode,
            pullRequest: recorded.number,
            lint: recorded.lint.state,
            ...(recorded.sync ? { sync: recorded.sync.state } : {}),
          });
      }
      const code = trackingCodeFromBranch(branch);
      let handled = false;
      if (code) {
        if (event === 'pull_request' && payload.action === 'closed') {
          await (payload.pull_request?.merged ? handlers.onMerged(code) : handlers.onClosed(code));
          handled = true;
        } else if (event === 'pull_request_review' && payload.action === 'submitted' && handlers.onReview) {
          await handlers.onReview(
            code,
            (payload.review?.state ?? '').toLowerCase(),
            payload.review?.user?.login ?? 'unknown',
          );
          handled = true;
        }
      }
      return reply
        .code(handled ? 200 : 202)
        .header('Cache-Control', 'no-store')
        .send({ handled, trackingCode: code });
    });
  });
}

/** GitHub sends JSON, or a form with the JSON in `payload` when the webhook is set to that type. */
function parsePayload(raw: Buffer, contentType: string): PullRequestPayload {
  const text = raw.toString('utf8');
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    return JSON.parse(new URLSearchParams(text).get('payload') ?? '') as PullRequestPayload;
  }
  return JSON.parse(text) as PullRequestPayload;
}

export interface PollResult {
  merged: string[];
  closed: string[];
  /** Handler failures, one line each; the poll goes on with the next PR. */
  errors: string[];
}

/**
 * Look for merges and closes of open reviews that no webhook reported. Lists closed PRs, most
 * recently updated first, and stops once every open review is accounted for or the PRs are older
 * than the oldest open review (a PR closed after its review was opened was updated after that).
 */
export async function pollGitHub(
  forgeOptions: Pick<GitHubSettings, 'token' | 'app' | 'repository' | 'apiUrl'>,
  openRefs: ReviewRef[],
  handlers: GitHubEventHandlers,
): Promise<PollResult> {
  const result: PollResult = { merged: [], closed: [], errors: [] };
  const waiting = new Map(openRefs.filter((r) => r.kind === 'github-pull-request').map((r) => [r.branch, r]));
  if (waiting.size === 0) return result;
  const [owner, repo] = forgeOptions.repository.split('/');
  const octokit = createOctokit(forgeOptions);
  const oldest = Math.min(...[...waiting.values()].map((r) => Date.parse(r.openedAtUtc) || 0));
  const pages = octokit.paginate.iterator(octokit.rest.pulls.list, {
    owner: owner!,
    repo: repo!,
    state: 'closed',
    sort: 'updated',
    direction: 'desc',
    per_page: 100,
  });
  outer: for await (const page of pages) {
    for (const pr of page.data) {
      if (Date.parse(pr.updated_at) < oldest - 60_000) break outer;
      const ref = waiting.get(pr.head.ref);
      // The number must match too: a reopened code on a new PR must not inherit an old PR's fate.
      if (!ref || (ref.number !== undefined && ref.number !== pr.number)) continue;
      waiting.delete(pr.head.ref);
      const code = trackingCodeFromBranch(pr.head.ref)!;
      const merged = pr.merged_at !== null;
      try {
        await (merged ? handlers.onMerged(code) : handlers.onClosed(code));
        (merged ? result.merged : result.closed).push(code);
      } catch (err) {
        result.errors.push(`${code}: ${(err as Error).message}`);
      }
      if (waiting.size === 0) break outer;
    }
  }
  return result;
}
