/** OpenAPI operation of the GitHub webhook (api/forge/github-webhook.ts); document.ts lists it with the rest. */
import { Type } from '@sinclair/typebox';
import { problem, type OperationSpec } from './spec.ts';

const receiveGitHubWebhook: OperationSpec = {
  method: 'post',
  path: '/api/v1/review/github-webhook',
  operationId: 'receiveGitHubWebhook',
  tags: ['review'],
  summary: 'Receive GitHub pull request events for reviews mirrored on GitHub',
  description:
    "Configured as the repository webhook or the GitHub App's (event: Pull requests; content type application/json or " +
    'application/x-www-form-urlencoded). The `X-Hub-Signature-256` header must be the HMAC-SHA256 of the raw body with ' +
    '`GITHUB_WEBHOOK_SECRET`, or nothing happens and the answer is 401. `X-GitHub-Event` selects the event: `pull_request` ' +
    'closed on branch `review/<trackingCode>` marks the submission merged (to be applied) or declined; `pull_request_review` ' +
    'events are accepted but not acted on (202); `ping` answers 204. With review on GitHub, a `pull_request` event (opened, synchronize, reopened, ' +
    'closed, edited, ready_for_review, converted_to_draft) of any other branch is a pull request a person opened: it is recorded for the ' +
    "review queue (`PR-<number>`) and its head is linted; once merged, its change is brought into the archive's content repository " +
    'and the site rebuilt. It answers 200 with `pullRequest`, the `lint` state and, when merged, the `sync` state. Events of other ' +
    'actions or repositories answer 202 with `handled: false`. Redeliveries are harmless.',
  requestBody: {
    description: 'The GitHub webhook payload, signed.',
    required: true,
    content: {
      'application/json': { schema: { type: 'object' } },
      'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { payload: { type: 'string' } } } },
    },
  },
  responses: {
    '200': {
      description: 'The event changed the review of `trackingCode`.',
      contentType: 'application/json',
      schema: Type.Object({
        handled: Type.Literal(true),
        trackingCode: Type.String({
          description: 'The submission\'s tracking code, or "PR-<number>" for a person\'s pull request.',
        }),
        pullRequest: Type.Optional(Type.Integer({ description: "A person's pull request: its number." })),
        lint: Type.Optional(
          Type.String({
            description: "A person's pull request: the content lint of its head (pending, passed, failed, error).",
          }),
        ),
        sync: Type.Optional(
          Type.String({
            description:
              "A person's merged pull request: whether its change is now in the archive (applied) or not (failed; the item says why).",
          }),
        ),
      }),
    },
    '202': {
      description: 'A valid delivery that concerns no review (other branch, action or repository).',
      contentType: 'application/json',
      schema: Type.Object({
        handled: Type.Literal(false),
        trackingCode: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        reason: Type.Optional(Type.String()),
      }),
    },
    '204': { description: 'A `ping` event: the webhook is set up correctly.' },
    '400': problem(
      'The signed payload is not JSON, or a pull request event lacks a field the archive records (errors[] names each).',
    ),
    '401': problem(
      'The signature is missing or wrong, or no GITHUB_WEBHOOK_SECRET is configured (the detail says which).',
    ),
    '413': problem('The payload is larger than 5 MiB.'),
  },
};

export const GITHUB_WEBHOOK_OPERATIONS: OperationSpec[] = [receiveGitHubWebhook];
