/**
 * Browser sessions (api/session/): the desk's admin sign-in. One schema for the validator, the
 * OpenAPI document and the types.
 */
import { Type, type Static } from '@sinclair/typebox';

export const AdminSignInBody = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 512, description: 'An admin key (ARCHIVE_ADMIN_KEYS). Sent in the body, never in the URL; it is not stored in the session or the cookie.' }),
  },
  { $id: 'AdminSignInBody', additionalProperties: false, description: 'Sign in to the review desk with an admin key.' },
);
export type AdminSignInBody = Static<typeof AdminSignInBody>;

export const AdminSession = Type.Object(
  {
    kind: Type.Literal('admin'),
    label: Type.String({ description: "The admin key's label: the actor named in the history and the commits of what this session does." }),
    roles: Type.Array(Type.Literal('admin'), { description: 'What the session grants: the admin review API and desk only (library, curator and metrics routes still need their key).' }),
    csrfToken: Type.String({ description: 'Send it back in the X-CSRF-Token header (or the `_csrf` form field of a desk form) with every state-changing request made with the session cookie.' }),
    createdAtUtc: Type.String({ format: 'date-time' }),
    expiresAtUtc: Type.String({ format: 'date-time', description: 'Absolute end of the session (ARCHIVE_SESSION_HOURS after sign-in); sign in again after it.' }),
  },
  { $id: 'AdminSession', additionalProperties: false, description: 'A signed-in desk session. The session itself is an HttpOnly cookie; this body never contains it.' },
);
export type AdminSession = Static<typeof AdminSession>;
