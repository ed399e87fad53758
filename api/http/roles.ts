/**
 * The roles a key or a session can hold. Its own module because both the key check
 * (api/http/auth.ts) and the session store (api/session/sessions.ts) name them, and the key check
 * also reads sessions: with the type here, neither imports the other for it.
 */
export type Role = 'library' | 'curator' | 'admin' | 'metrics';
