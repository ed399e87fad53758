/**
 * Browser sessions (api/session/): the desk's admin sign-in and reader sign-in (api/signin/). One schema for the validator, the
 * OpenAPI document and the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { RETURN_PATH_PATTERN } from '../domain/access.ts';

export const AdminSignInBody = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 512,
      description:
        'An admin key (ARCHIVE_ADMIN_KEYS). Sent in the body, never in the URL; it is not stored in the session or the cookie.',
    }),
  },
  { $id: 'AdminSignInBody', additionalProperties: false, description: 'Sign in to the review desk with an admin key.' },
);
export type AdminSignInBody = Static<typeof AdminSignInBody>;

export const AdminSession = Type.Object(
  {
    kind: Type.Literal('admin'),
    label: Type.String({
      description: "The admin key's label: the actor named in the history and the commits of what this session does.",
    }),
    roles: Type.Array(Type.Literal('admin'), {
      description:
        'What the session grants: the admin review API and desk only (library, curator and metrics routes still need their key).',
    }),
    csrfToken: Type.String({
      description:
        'Send it back in the X-CSRF-Token header (or the `_csrf` form field of a desk form) with every state-changing request made with the session cookie.',
    }),
    createdAtUtc: Type.String({ format: 'date-time' }),
    expiresAtUtc: Type.String({
      format: 'date-time',
      description: 'Absolute end of the session (ARCHIVE_SESSION_HOURS after sign-in); sign in again after it.',
    }),
  },
  {
    $id: 'AdminSession',
    additionalProperties: false,
    description: 'A signed-in desk session. The session itself is an HttpOnly cookie; this body never contains it.',
  },
);
export type AdminSession = Static<typeof AdminSession>;

/** Reader sign-in (docs/reader-sign-in.md): `GET /api/v1/reader/sign-in?return=/works/x/`. */
export const ReaderSignInQuery = Type.Object(
  {
    return: Type.Optional(
      Type.String({
        maxLength: 500,
        pattern: RETURN_PATH_PATTERN,
        description: 'A path on this site to come back to after signing in (default "/"); other origins are refused.',
      }),
    ),
  },
  { $id: 'ReaderSignInQuery', additionalProperties: false },
);
export type ReaderSignInQuery = Static<typeof ReaderSignInQuery>;

/** GitHub's redirect back to the archive: `code` and `state`, or `error` when the reader declined. */
export const ReaderCallbackQuery = Type.Object(
  {
    code: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: "The provider's authorization code." }),
    ),
    state: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'The state the archive sent; must match the sign-in cookie.',
      }),
    ),
    error: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Set by the provider instead of code when the sign-in did not happen (e.g. access_denied).',
      }),
    ),
    error_description: Type.Optional(Type.String({ maxLength: 1000 })),
    error_uri: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { $id: 'ReaderCallbackQuery', additionalProperties: false },
);
export type ReaderCallbackQuery = Static<typeof ReaderCallbackQuery>;

export const ReaderSession = Type.Object(
  {
    kind: Type.Literal('reader'),
    provider: Type.Literal('github'),
    userId: Type.String({ description: "The provider's stable user id." }),
    login: Type.String({ description: 'The GitHub login, for display.' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'The display name on GitHub, when set.' }),
    grants: Type.Array(Type.Literal('signed-in-downloads'), {
      description:
        'What the session grants: downloading signed-in files. Never admin, curator, library or metrics rights.',
    }),
    csrfToken: Type.String({
      description: 'Send it back in the X-CSRF-Token header to sign out (DELETE /api/v1/reader/session).',
    }),
    createdAtUtc: Type.String({ format: 'date-time' }),
    expiresAtUtc: Type.String({
      format: 'date-time',
      description: 'Absolute end of the session (ARCHIVE_SESSION_HOURS after sign-in).',
    }),
  },
  {
    $id: 'ReaderSession',
    additionalProperties: false,
    description:
      'A reader signed in with GitHub. The session itself is an HttpOnly cookie; this body never contains it (nor the GitHub token, which the archive does not keep).',
  },
);
export type ReaderSession = Static<typeof ReaderSession>;

export const SignedInDownloadParams = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 160, description: 'Slug of the work.' }),
    assetId: Type.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'Id of the asset within the work.' }),
  },
  { $id: 'SignedInDownloadParams', additionalProperties: false },
);
export type SignedInDownloadParams = Static<typeof SignedInDownloadParams>;
