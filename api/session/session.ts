/**
 * What a browser session is (api/session/sessions.ts keeps them; api/session/state-backend.ts is
 * where they live): its own file, so that the store and the backends both depend on it and not on
 * each other.
 */
export interface AdminSubject {
  kind: 'admin';
  /** Label of the admin key used to sign in (the actor named in history and commits). */
  label: string;
}

export interface ReaderSubject {
  kind: 'reader';
  provider: 'github';
  /** The provider's stable user id (GitHub's numeric id, as a string). */
  userId: string;
  /** The provider's login name, for display. */
  login: string;
  name: string | null;
}

export type SessionSubject = AdminSubject | ReaderSubject;

export interface Session {
  subject: SessionSubject;
  /** Sent back by state-changing requests (form field `_csrf` or header `X-CSRF-Token`). */
  csrf: string;
  createdAtMs: number;
  expiresAtMs: number;
}
