/**
 * OpenAPI operations of the admin review API (tag `admin`); document.ts lists them with the rest.
 * Every operation needs an admin key (ARCHIVE_ADMIN_KEYS) as Authorization: Bearer <key> (or
 * X-Archive-Import-Key); the schemes are LIBRARY_SECURITY_SCHEMES' `bearerKey` / `archiveImportKey`.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Envelope } from '../schemas/envelope.ts';
import {
  AdminActionBody,
  AdminItem,
  AdminQueue,
  AdminQueueQuery,
  ItemActionView,
  PullRequestReview,
  QueueItem,
  REVIEW_ACTIONS,
} from '../schemas/review.ts';
import { AdminSession, AdminSignInBody } from '../schemas/session.ts';
import { ReconcileCost, ReconcileStatus } from '../schemas/reconcile.ts';
import {
  enveloped,
  preferParam,
  problem,
  queryParameters,
  ref,
  type OperationSpec,
  type ParameterSpec,
} from './spec.ts';

const SECURITY: Array<Record<string, string[]>> = [
  { adminKey: [] },
  { bearerKey: [] },
  { archiveImportKey: [] },
  { deskSession: [] },
];
const KEY = 'Needs an admin key (ARCHIVE_ADMIN_KEYS) as Authorization: Bearer <key>; never in the URL.';

const codeParam = (what: string, example: string): ParameterSpec => ({
  name: 'code',
  in: 'path',
  required: true,
  description: `Tracking code of the ${what}, e.g. "${example}" (case ignored, hyphens optional).`,
  schema: { type: 'string', maxLength: 64 },
});
const actionParam: ParameterSpec = {
  name: 'action',
  in: 'path',
  required: true,
  description:
    'accept: fetch and verify the contributor files, run the technical checks, open the review branch / pull request (pending or needs-information -> accepted). ' +
    'request-information: -> needs-information with the public note. decline: close the review, -> declined (final). ' +
    'apply: merge and rebuild-and-swap, then -> applied with changedCanonicalData true (accepted only); `apply` in the item shows applying, then visible (with visibleAtUtc) or failed.',
  schema: { type: 'string', enum: [...REVIEW_ACTIONS] },
};

const itemResponse = enveloped(
  'The item as reviewers see it after the action.',
  'AdminItem',
  'Admin view in the envelope.',
);
const authProblems = {
  '400': problem('The body violates AdminActionBody (errors[] lists each field), or a key was sent in the URL.'),
  '401': problem('No key, or a wrong key (WWW-Authenticate: Bearer).'),
  '403': problem('A valid key without the admin role.'),
  '429': problem(
    'Too many failed key checks from this address, or too many requests with this key (Retry-After, seconds); while an address is limited no key is checked.',
  ),
};

function actionOperation(kind: 'contribution' | 'correction-report'): OperationSpec {
  const segment = kind === 'contribution' ? 'contributions' : 'correction-reports';
  const what = kind === 'contribution' ? 'contribution' : 'correction report';
  return {
    method: 'post',
    path: `/api/v1/admin/${segment}/{code}/{action}`,
    operationId: kind === 'contribution' ? 'reviewContribution' : 'reviewCorrectionReport',
    tags: ['admin'],
    security: SECURITY,
    summary: `Accept, request information on, apply or decline a ${what}`,
    description:
      `${KEY} An illegal transition is 409 naming the current status (\`currentStatus\`). Accept refuses a correction report that would change nothing (the field already reads the proposed value) with 409 and \`reasons[]\`; the item stays as it was. Apply refuses with 409 and \`reasons[]\`, merging nothing, ` +
      "when the target work vanished, `target.baseSha256` (or a report's currentValue) is stale, a file failed its digest or technical checks, or the " +
      'proposal does not pass the content lint; a failed build also answers 409: main is reset, the old site keeps serving, the item stays accepted ' +
      'with the error recorded. Applies are serialised. `assert` lets the named reviewer assert review states of contributed files (otherwise they ' +
      'land `pending`). Answers are `Cache-Control: no-store`. With `Prefer: respond-async` (RFC 7240) an apply answers at once, 202 with ' +
      '`apply.state` "applying" and `Preference-Applied: respond-async`; read the item (or its tracking record) until `apply.state` is "visible" ' +
      '(`apply.visibleAtUtc`, status "applied") or "failed" (status stays "accepted", `review.lastError` says why, the old site keeps serving). ' +
      'An apply acknowledged before the server stops resumes when it starts again. ' +
      '**Long actions are action records** (docs/review.md): accept, request-information and decline are checked at once (a refusal is answered as before, nothing stored), then run in the background as an action record. ' +
      'With `Prefer: respond-async` the answer is 202 at once with the action (`ItemActionView`: `state`, `progress`, then the outcome) and `Location`, its tracking resource. ' +
      'Without it the answer waits for the outcome at most 20 s (a third of ARCHIVE_IDLE_TIMEOUT_MS, or `Prefer: wait=N`): 200 with the item, or the problem that refused it, as before; ' +
      'else 202 with the running action, so the connection is never cut by the idle timeout while the work goes on. An apply without `Prefer: respond-async` waits the same way, then answers 202 with the item "applying" (`Location`: the item). ' +
      'An accepted item whose review holds blockers (a fetch the allow-list refused, a failed check) may be accepted again: its files are fetched and checked afresh.',
    parameters: [
      codeParam(what, kind === 'contribution' ? 'C-7KQM-T4XH-R2PZ-9WNB' : 'R-7KQM-T4XH-R2PZ-9WNB'),
      actionParam,
      preferParam,
    ],
    requestBody: {
      description: 'The reviewer, an optional public note and optional assertions.',
      required: true,
      contentTypes: ['application/json'],
      schema: ref('AdminActionBody'),
    },
    responses: {
      '200': itemResponse,
      '202': {
        description:
          'Acknowledged and still running. Accept, request-information, decline: the action (`ItemActionView`; `Location` is its tracking resource). Apply: the item, "applying" (its outcome lands in `apply`).',
        contentType: 'application/json',
        schema: Envelope(
          Type.Union([ref('AdminItem') as unknown as TSchema, ref('ItemActionView') as unknown as TSchema]),
          'The running action, or the item being applied, in the envelope.',
        ),
      },
      ...authProblems,
      '404': problem(`No ${what} has this tracking code, or the action is unknown.`),
      '409': problem(
        'Illegal transition (detail names the current status), accept of a correction that changes nothing, an action already running on the item (`runningAction` names it), or apply refused / failed with reasons; nothing was merged.',
      ),
      '413': problem('The body is larger than 1 MiB.'),
      '415': problem('The body is not JSON.'),
    },
  } as OperationSpec;
}

function actionRecordOperation(kind: 'contribution' | 'correction-report'): OperationSpec {
  const segment = kind === 'contribution' ? 'contributions' : 'correction-reports';
  const what = kind === 'contribution' ? 'contribution' : 'correction report';
  return {
    method: 'get',
    path: `/api/v1/admin/${segment}/{code}/actions/{actionId}`,
    operationId: kind === 'contribution' ? 'getContributionAction' : 'getCorrectionReportAction',
    tags: ['admin'],
    security: SECURITY,
    summary: `One review action on a ${what}: its progress, state and outcome`,
    description: `${KEY} The tracking resource of an accept, request-information or decline: \`state\` is "running" (\`progress\`: the step in words, steps done of all), then "completed" (\`status\`: the item's status after it; read the item for the rest) or "failed" (\`error\`: the problem detail; nothing was changed). An action a stop cut short resumes when the server starts again (\`resumedAtUtc\`).`,
    parameters: [
      codeParam(what, kind === 'contribution' ? 'C-7KQM-T4XH-R2PZ-9WNB' : 'R-7KQM-T4XH-R2PZ-9WNB'),
      {
        name: 'actionId',
        in: 'path',
        required: true,
        description: 'The action, as named by the answer to the POST.',
        schema: { type: 'string', maxLength: 100 },
      },
    ],
    responses: {
      '200': enveloped('The action.', 'ItemActionView', 'The action in the envelope.'),
      ...authProblems,
      '404': problem(`No ${what} has this tracking code, or it has no such action.`),
    },
  } as OperationSpec;
}

function readOperation(kind: 'contribution' | 'correction-report'): OperationSpec {
  const segment = kind === 'contribution' ? 'contributions' : 'correction-reports';
  const what = kind === 'contribution' ? 'contribution' : 'correction report';
  return {
    method: 'get',
    path: `/api/v1/admin/${segment}/{code}`,
    operationId: kind === 'contribution' ? 'getAdminContribution' : 'getAdminCorrectionReport',
    tags: ['admin'],
    security: SECURITY,
    summary: `Read a ${what} as reviewers see it`,
    description: `${KEY} The full submission (with contact details), verification and technical checks, blockers, assertions, the last error and the action log.`,
    parameters: [codeParam(what, kind === 'contribution' ? 'C-7KQM-T4XH-R2PZ-9WNB' : 'R-7KQM-T4XH-R2PZ-9WNB')],
    responses: { '200': itemResponse, ...authProblems, '404': problem(`No ${what} has this tracking code.`) },
  } as OperationSpec;
}

const queue: OperationSpec = {
  method: 'get',
  path: '/api/v1/admin/queue',
  operationId: 'getReviewQueue',
  tags: ['admin'],
  security: SECURITY,
  summary: 'List review items, oldest first, filtered and paged',
  description: `${KEY} Contributions and correction reports, oldest received first: the open ones (pending, needs-information, accepted) unless \`status\` names others; filtered by kind, operation, work and receive time; paged. \`counts\` gives the stored items per status. The server keeps the queue as an index updated on every write, so a page costs the same however many submissions are stored. An unknown parameter is a 400 naming it.`,
  parameters: queryParameters(AdminQueueQuery),
  responses: {
    '200': enveloped('The queue.', 'AdminQueue', 'Review queue in the envelope.'),
    ...authProblems,
    '400': problem('A query parameter is not valid or not known (the problem names it), or a key was sent in the URL.'),
  },
} as OperationSpec;

const sessionResponse = (description: string) =>
  enveloped(description, 'AdminSession', 'Desk session in the envelope.');

const signIn: OperationSpec = {
  method: 'post',
  path: '/api/v1/admin/session',
  operationId: 'signInToDesk',
  tags: ['admin'],
  summary: 'Sign in to the review desk with an admin key (sets the session cookie)',
  description:
    'The key travels in the body, never in the URL. The answer sets an HttpOnly, SameSite=Strict session cookie (Secure with the `__Host-` prefix on an https origin) ' +
    'that lives ARCHIVE_SESSION_HOURS (default 12) and is lost when the server restarts. With the cookie, the admin review API answers as with the key, and ' +
    'every state-changing request must send `csrfToken` in the X-CSRF-Token header; a request from another site is refused (403). The session grants the ' +
    'admin role only. Failed credential checks (sign-ins and keys on every route) are limited per client address, 10 per minute by default ' +
    '(ARCHIVE_CREDENTIAL_FAILURE_LIMIT); while limited, every sign-in is refused with 429 and Retry-After, the right key included.',
  requestBody: {
    description: 'The admin key.',
    required: true,
    contentTypes: ['application/json'],
    schema: ref('AdminSignInBody'),
  },
  responses: {
    '201': sessionResponse('Signed in: the session (its CSRF token, label and expiry). The cookie is in Set-Cookie.'),
    '400': problem('The body violates AdminSignInBody.'),
    '401': problem('Not a key of this service, or no admin key is configured (the detail says how to configure one).'),
    '403': problem('A valid key without the admin role.'),
    '429': problem('Too many failed credential checks from this address (Retry-After); no key is checked meanwhile.'),
  },
} as OperationSpec;

const readSession: OperationSpec = {
  method: 'get',
  path: '/api/v1/admin/session',
  operationId: 'getDeskSession',
  tags: ['admin'],
  security: [{ deskSession: [] }],
  summary: "The desk session of the request's cookie",
  description: 'Answers the session the cookie names (with its CSRF token), or 401 when there is none or it expired.',
  responses: { '200': sessionResponse('The session.'), '401': problem('No live desk session.') },
} as OperationSpec;

const signOut: OperationSpec = {
  method: 'delete',
  path: '/api/v1/admin/session',
  operationId: 'signOutOfDesk',
  tags: ['admin'],
  security: [{ deskSession: [] }, {}],
  summary: 'Sign out: end the session and expire the cookie',
  description:
    'With a live session the request must carry its CSRF token (X-CSRF-Token). Without a session it still answers 204 and expires the cookie.',
  responses: {
    '204': { description: 'Signed out.' },
    '403': problem('The CSRF token is missing or wrong, or the request came from another site.'),
  },
} as OperationSpec;

const pullRequest: OperationSpec = {
  method: 'get',
  path: '/api/v1/admin/pull-requests/{number}',
  operationId: 'getAdminPullRequest',
  tags: ['admin'],
  security: SECURITY,
  summary: 'Read a pull request a person opened on the content repository',
  description:
    `${KEY} With review on GitHub, every \`pull_request\` webhook event of a pull request that is not one of the archive's own \`review/<code>\` branches is recorded ` +
    '(queue kind `pull-request`, tracking code `PR-<number>`): who opened it, its head, changed files, and the content lint of its head (errors at file:line). ' +
    'Title and author are contributed text.',
  parameters: [
    {
      name: 'number',
      in: 'path',
      required: true,
      description: 'Pull request number on GitHub.',
      schema: { type: 'integer', minimum: 1, maximum: 2147483647 },
    },
  ],
  responses: {
    '200': enveloped('The recorded pull request.', 'PullRequestReview', 'Pull request in the envelope.'),
    ...authProblems,
    '400': problem('The number is not a positive integer, or a key was sent in the URL.'),
    '404': problem('No pull request with this number has been recorded (or review does not run on GitHub).'),
  },
} as OperationSpec;

const reconcileResponse = (description: string) =>
  enveloped(description, 'ReconcileStatus', 'Reconcile status in the envelope.');

const requestReconcile: OperationSpec = {
  method: 'post',
  path: '/api/v1/admin/reconcile',
  operationId: 'requestReconcile',
  tags: ['admin'],
  security: SECURITY,
  summary: 'Replace a served incremental build with a full build of the same commit, now',
  description:
    `${KEY} Applies build incrementally; the reconcile is the full build of the served commit that replaces the incremental folder ` +
    '(in the background, at the lowest CPU priority, reusing the render cache; close to an hour at 100,000 works). ' +
    'It also runs on the schedule ARCHIVE_RECONCILE_SCHEDULE sets, and after each apply with ARCHIVE_RECONCILE_DELAY_MS. ' +
    'A request while one runs starts nothing new and answers the running one (202); one waiting for its quiet period starts at once. ' +
    'An apply of a newer commit cancels it (state `cancelled`). No body. Read its progress and cost with GET on the same path.',
  responses: {
    '202': reconcileResponse('Started, or already running: `state` is "running" (Location: the same path).'),
    '200': reconcileResponse('Nothing to do: the served build is a full build (`state` "not-needed").'),
    ...authProblems,
    '400': problem('A key was sent in the URL (keys travel in headers only).'),
  },
} as OperationSpec;

const readReconcile: OperationSpec = {
  method: 'get',
  path: '/api/v1/admin/reconcile',
  operationId: 'getReconcile',
  tags: ['admin'],
  security: SECURITY,
  summary: 'The current or last reconcile, its cost and the schedule',
  description: `${KEY} State, trigger, commit, times (UTC), duration and the full build's cost from its build.json (build time, works, pages, scores engraved and from the render cache, peak memory), with the schedule and its next due time. Kept in memory: a restart starts from "idle".`,
  responses: {
    '200': reconcileResponse('The current or last reconcile.'),
    ...authProblems,
    '400': problem('A key was sent in the URL (keys travel in headers only).'),
  },
} as OperationSpec;

export const ADMIN_OPERATIONS: OperationSpec[] = [
  signIn,
  readSession,
  signOut,
  queue,
  pullRequest,
  readOperation('contribution'),
  actionOperation('contribution'),
  actionRecordOperation('contribution'),
  readOperation('correction-report'),
  actionOperation('correction-report'),
  actionRecordOperation('correction-report'),
  readReconcile,
  requestReconcile,
];

export const ADMIN_COMPONENTS: Record<string, TSchema> = {
  AdminActionBody,
  AdminItem,
  AdminQueue,
  QueueItem,
  ItemActionView,
  AdminSession,
  AdminSignInBody,
  PullRequestReview,
  ReconcileStatus,
  ReconcileCost,
};

export const ADMIN_TAGS: { name: string; description: string }[] = [
  {
    name: 'admin',
    description:
      'Editors review contributions and correction reports as pull requests: accept, request information, apply (merge + rebuild + swap) or decline; operators reconcile incremental builds. Admin key required.',
  },
];
