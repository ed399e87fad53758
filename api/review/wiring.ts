/**
 * Connects the review pipeline to the server: the admin routes, and — when review runs on GitHub —
 * the signed webhook plus a poll every few minutes for events the webhook missed. A pull request
 * merged on GitHub is applied here; one closed without merging is declined. Events that no longer
 * fit the item's status (already applied, already declined) are ignored.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { registerAdminRoutes } from './routes.ts';
import { ItemActions } from './item-actions.ts';
import { pollGitHub, registerGitHubWebhook, type GitHubEventHandlers } from '../forge/github-webhook.ts';
import { GITHUB_ACTOR, type ReviewService } from './service.ts';
import { ProblemError } from '../http/problem.ts';
import type { AdminAction } from '../../src/schemas/review.ts';
import type { ReviewRef } from '../forge/types.ts';
import type { SubmissionKind } from '../../src/schemas/contribution.ts';
import { PullRequestReviews } from '../forge/pull-requests.ts';
import path from 'node:path';

const POLL_INTERVAL_MS = 5 * 60_000;

export async function registerReview(
  app: FastifyInstance,
  ctx: AppContext,
  service: ReviewService,
  now?: () => Date,
): Promise<ItemActions> {
  // Pull requests people open on the content repository: recorded from the webhook, in the queue.
  const pullRequests = ctx.config.github
    ? new PullRequestReviews({
        dir: path.join(ctx.config.dataDir, 'state', 'pull-requests'),
        contentRepo: ctx.config.contentRepo,
        github: ctx.config.github,
        scratchDir: path.join(ctx.config.dataDir, 'worktrees'),
        rebuild: () => ctx.rebuilder.rebuildAndSwap(),
      })
    : null;
  if (pullRequests) service.addQueueSource(pullRequests.queueSource());
  // Accept, decline and request-information run as action records (api/review/item-actions.ts).
  const actions = new ItemActions(ctx, service, now);
  app.addHook('onReady', async () => {
    void actions.resume((line) => app.log.warn(line));
  });
  app.addHook('preClose', async () => actions.stop());
  await registerAdminRoutes(app, ctx, service, actions, pullRequests);
  service.logger = app.log;
  // Applies acknowledged before a stop resume on start (their outcome lands in the tracking
  // record); a stop waits for the applies running now.
  app.addHook('onReady', async () => {
    void service.resumeApplies((line) => app.log.warn(line));
    // The build checkout applies use is made now, not by the first apply, and the warm build
    // process warms up (api/site/warm-up.ts, `prepare`).
    void ctx.rebuilder.prepare?.();
  });
  app.addHook('onClose', async () => service.settled());
  const kindOf = (code: string): SubmissionKind =>
    code.toUpperCase().startsWith('R-') ? 'correction-report' : 'contribution';
  const fromGitHub = (action: AdminAction, note: string) => async (code: string) => {
    try {
      await service.act(kindOf(code), code, action, { reviewer: 'GitHub', note }, GITHUB_ACTOR);
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
    }
  };
  const handlers: GitHubEventHandlers = {
    onMerged: fromGitHub('apply', 'Merged on GitHub.'),
    onClosed: fromGitHub('decline', 'Closed on GitHub without merging.'),
    ...(pullRequests ? { onPullRequest: (event) => pullRequests.onEvent(event) } : {}),
  };
  await registerGitHubWebhook(app, ctx, handlers);

  const github = ctx.config.github;
  if (!github) return actions;
  const openRefs = async (): Promise<ReviewRef[]> => {
    const refs: ReviewRef[] = [];
    for await (const review of service.reviews.all()) {
      if (!review.ref || review.appliedCommit !== null) continue;
      // Only reviews still open: declined and applied items never change again.
      const { record } = await service.get(review.kind, review.trackingCode).catch(() => ({ record: null }));
      if (record && record.status !== 'declined' && record.status !== 'applied') refs.push(review.ref);
    }
    return refs;
  };
  const timer = setInterval(() => {
    openRefs()
      .then((refs) => pollGitHub(github, refs, handlers))
      .then((r) => r.errors.forEach((e) => app.log.warn(`GitHub poll: ${e}`)))
      .catch((err: unknown) => app.log.warn(`GitHub poll failed: ${(err as Error).message}`));
  }, POLL_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  return actions;
}
