/**
 * GitHub App authentication (docs/github-review.md, section 2): the archive signs a JSON Web
 * Token with the app's private key (RS256, valid 9 minutes, issued 60 s in the past against clock
 * drift, as GitHub's documentation asks), exchanges it for an installation access token
 * (`POST /app/installations/{id}/access_tokens`), and uses that token until five minutes before
 * it expires (GitHub issues them for one hour), then mints the next. Concurrent requests share
 * one mint. Every failure is an Error naming the step and HTTP status.
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

export interface GitHubAppCredentials {
  appId: string;
  installationId: string;
  /** PEM text of the app's private key (GITHUB_APP_PRIVATE_KEY_FILE). */
  privateKey: string;
}

const REFRESH_BEFORE_MS = 5 * 60_000;

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** The app's JWT for `nowMs`. */
export function appJwt(appId: string, key: KeyObject | string, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000) - 60;
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ iat, exp: iat + 9 * 60, iss: appId }));
  const signature = sign(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    typeof key === 'string' ? createPrivateKey(key) : key,
  );
  return `${header}.${payload}.${signature.toString('base64url')}`;
}

/** A function answering a valid installation token, minting a new one when the last is about to expire. */
export function installationTokenProvider(
  app: GitHubAppCredentials,
  apiUrl = 'https://api.github.com',
  now: () => number = Date.now,
): () => Promise<string> {
  const key = createPrivateKey(app.privateKey);
  let current: { token: string; expiresAtMs: number } | null = null;
  let minting: Promise<string> | null = null;
  const mint = async (): Promise<string> => {
    const url = `${apiUrl.replace(/\/+$/, '')}/app/installations/${encodeURIComponent(app.installationId)}/access_tokens`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${appJwt(app.appId, key, now())}`,
        accept: 'application/vnd.github+json',
        'user-agent': 'public-domain-music-archive',
        'x-github-api-version': '2022-11-28',
      },
    });
    const body = (await res.json().catch(() => ({}))) as { token?: string; expires_at?: string; message?: string };
    if (res.status !== 201 || typeof body.token !== 'string') {
      throw new Error(
        `GitHub minting an installation token for app ${app.appId}, installation ${app.installationId} failed (HTTP ${res.status}): ${body.message ?? 'no token in the answer'}`,
      );
    }
    const expires = Date.parse(body.expires_at ?? '');
    current = { token: body.token, expiresAtMs: Number.isNaN(expires) ? now() + 60 * 60_000 : expires };
    return body.token;
  };
  return async () => {
    if (current && current.expiresAtMs - REFRESH_BEFORE_MS > now()) return current.token;
    minting ??= mint().finally(() => {
      minting = null;
    });
    return minting;
  };
}
