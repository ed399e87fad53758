/**
 * OpenAPI operations of reader sign-in and signed-in downloads (tag `reader`; docs/reader-sign-in.md;
 * api/signin/routes.ts). Parameters come from the routes' own TypeBox schemas.
 */
import type { TSchema } from '@sinclair/typebox';
import { ReaderCallbackQuery, ReaderSession, ReaderSignInQuery, SignedInDownloadParams } from '../schemas/session.ts';
import {
  RANGE_RESPONSES,
  enveloped,
  plain,
  problem,
  queryParameters,
  taggedFileResponses,
  type OperationSpec,
  type ParameterSpec,
} from './spec.ts';

const NOT_OFFERED =
  'Reader sign-in is not configured (GITHUB_OAUTH_CLIENT_ID/SECRET): signed-in download is not offered by this archive (problem signed-in-download-not-offered).';

const pathParameters: ParameterSpec[] = Object.entries(SignedInDownloadParams.properties).map(([name, prop]) => {
  const { description, ...schema } = plain(prop) as { description?: string };
  return { name, in: 'path' as const, required: true, description: description ?? name, schema };
});

const download: OperationSpec = {
  method: 'get',
  path: '/api/v1/works/{slug}/assets/{assetId}/download',
  operationId: 'downloadSignedInAsset',
  tags: ['reader'],
  security: [{ readerSession: [] }],
  summary: 'Download a file for signed-in readers (session cookie); supports Range',
  description:
    'The `links.download` of an asset whose access is `signed-in`, when this archive offers reader sign-in. Without a session: 401 `sign-in-required` whose `signIn` member is the sign-in URL. ' +
    'With a reader session (the HttpOnly cookie set by the GitHub sign-in): the file, ETag = quoted SHA-256, one byte range (206, If-Range, 416), If-None-Match -> 304, ' +
    'Cache-Control: private, no-cache, Vary: Cookie. Administrator-only files answer 403 to everyone here. Public files are not served here (404): use their public link.',
  parameters: pathParameters,
  responses: {
    ...taggedFileResponses('The file, with the media type its asset declares (never HTML or script).'),
    ...RANGE_RESPONSES,
    '307': {
      description: 'Only with presigned downloads (S3 blob store) for a blob-backed file: fetch it from Location.',
      headers: {
        Location: { description: 'A presigned URL of the object store.', schema: { type: 'string', format: 'uri' } },
      },
    },
    '400': problem('The asset id is not a positive integer.'),
    '401': problem('No session: sign in at the `signIn` URL first (problem sign-in-required).'),
    '403': problem('The file is administrator-only for now (problem administrator-only).'),
    '404': problem(`No signed-in or administrator-only file has this slug and id; or ${NOT_OFFERED}`),
  },
};

const signIn: OperationSpec = {
  method: 'get',
  path: '/api/v1/reader/sign-in',
  operationId: 'startReaderSignIn',
  tags: ['reader'],
  summary: 'Sign in with GitHub (a browser navigation): redirects to GitHub',
  description:
    "Answers 302 to GitHub's authorize page (OAuth 2.0 authorization code with PKCE S256, no scope) and sets a short-lived SameSite=Lax cookie holding the state, the PKCE verifier and the return path. " +
    'The sign-in must finish within 10 minutes in the same browser.',
  parameters: queryParameters(ReaderSignInQuery),
  responses: {
    '302': {
      description: 'To GitHub.',
      headers: {
        Location: {
          description: "GitHub's authorize URL with client_id, redirect_uri, state and code_challenge.",
          schema: { type: 'string', format: 'uri' },
        },
      },
    },
    '400': problem('`return` is not a path on this site.'),
    '404': problem(NOT_OFFERED),
  },
};

const callback: OperationSpec = {
  method: 'get',
  path: '/api/v1/reader/sign-in/callback',
  operationId: 'finishReaderSignIn',
  tags: ['reader'],
  summary:
    'Where GitHub sends the reader back: checks state, exchanges the code with the PKCE verifier, starts the session',
  description:
    'Sets the session cookie (HttpOnly, SameSite=Strict) and answers a small page that continues to the return path: a redirect here would not carry the Strict cookie, because the navigation came from GitHub. ' +
    'The GitHub token is used once to read GET /user and is not kept.',
  parameters: queryParameters(ReaderCallbackQuery),
  responses: {
    '200': {
      description: 'Signed in: a page that moves on to the return path. The cookie is in Set-Cookie.',
      contentType: 'text/html',
    },
    '400': problem(
      'sign-in-failed: declined on GitHub, no sign-in in progress in this browser (cookie missing or expired), state mismatch, or GitHub refused the code (e.g. a wrong PKCE verifier).',
    ),
    '404': problem(NOT_OFFERED),
    '502': problem('sign-in-provider-unavailable: GitHub did not answer, or answered something unreadable.'),
  },
};

const readSession: OperationSpec = {
  method: 'get',
  path: '/api/v1/reader/session',
  operationId: 'getReaderSession',
  security: [{ readerSession: [] }],
  tags: ['reader'],
  summary: "The reader session of the request's cookie",
  description:
    'Who is signed in (GitHub id, login, name), what the session grants (signed-in downloads only) and its CSRF token for sign-out.',
  responses: {
    '200': enveloped('The session.', 'ReaderSession', 'Reader session in the envelope.'),
    '401': problem('No reader session (problem sign-in-required, with the sign-in URL).'),
    '404': problem(NOT_OFFERED),
  },
};

const signOut: OperationSpec = {
  method: 'delete',
  path: '/api/v1/reader/session',
  operationId: 'signOutReader',
  security: [{ readerSession: [] }, {}],
  tags: ['reader'],
  summary: 'Sign out: end the session and expire the cookie',
  description:
    'With a live session the request must carry its CSRF token (X-CSRF-Token) and not come from another site. Without a session it still answers 204 and expires the cookie.',
  responses: {
    '204': { description: 'Signed out.' },
    '403': problem('The CSRF token is missing or wrong, or the request came from another site.'),
  },
};

export const READER_OPERATIONS: OperationSpec[] = [download, signIn, callback, readSession, signOut];

export const READER_COMPONENTS: Record<string, TSchema> = { ReaderSession };

export const READER_TAGS: { name: string; description: string }[] = [
  {
    name: 'reader',
    description:
      'Reader sign-in with GitHub (when the archive offers it) and downloads of files marked signed-in. A reader session grants those downloads only: never admin, curator, library or metrics rights.',
  },
];
