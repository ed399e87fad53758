/**
 * GitHub OAuth for reader sign-in (docs/reader-sign-in.md), through arctic's generic OAuth 2.0 client
 * (authorization code + PKCE S256; RFC 6749 / 7636). arctic's own `GitHub` provider has its
 * endpoints fixed to github.com and sends no PKCE challenge, so the generic client is given
 * GitHub's endpoints under GITHUB_OAUTH_BASE_URL (a local fake in the tests).
 *
 *   authorize     GET  {GITHUB_OAUTH_BASE_URL}/login/oauth/authorize   (the reader's browser)
 *   access token  POST {GITHUB_OAUTH_BASE_URL}/login/oauth/access_token (client id + secret as HTTP Basic)
 *   user          GET  {GITHUB_API_URL}/user                            (Bearer access token)
 *
 * No scope is asked for: GET /user with an unscoped token reads the public profile, which is all
 * the archive needs (id, login, name). The access token is used once and not kept.
 */
import {
  ArcticFetchError,
  CodeChallengeMethod,
  OAuth2Client,
  OAuth2RequestError,
  generateCodeVerifier,
  generateState,
} from 'arctic';
import type { ReaderSignInSettings } from '../config.ts';
import type { ReaderSubject } from '../session/sessions.ts';

/** How long the archive waits for GitHub per call. */
export const PROVIDER_TIMEOUT_MS = 10_000;
/** The largest `GET /user` answer read. */
const MAX_USER_BYTES = 256 * 1024;

/** Why a sign-in did not complete: the reader's side (400) or the provider's (502). */
export class SignInError extends Error {
  readonly kind: 'refused' | 'unavailable';
  constructor(kind: 'refused' | 'unavailable', message: string) {
    super(message);
    this.name = 'SignInError';
    this.kind = kind;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SignInError('unavailable', `GitHub did not answer ${what} within ${ms / 1000} s.`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class GitHubSignIn {
  private readonly client: OAuth2Client;
  private readonly settings: ReaderSignInSettings;

  constructor(settings: ReaderSignInSettings, redirectUri: string) {
    this.settings = settings;
    this.client = new OAuth2Client(settings.clientId, settings.clientSecret, redirectUri);
  }

  /** A fresh state and PKCE verifier, and the provider URL to send the browser to. */
  start(): { state: string; codeVerifier: string; url: URL } {
    const state = generateState();
    const codeVerifier = generateCodeVerifier();
    const url = this.client.createAuthorizationURLWithPKCE(
      `${this.settings.oauthBaseUrl}/login/oauth/authorize`,
      state,
      CodeChallengeMethod.S256,
      codeVerifier,
      [],
    );
    // GitHub: do not offer creating an account in the middle of a download.
    url.searchParams.set('allow_signup', 'false');
    return { state, codeVerifier, url };
  }

  /** Exchange the code (with the PKCE verifier) and read who signed in. */
  async finish(code: string, codeVerifier: string): Promise<ReaderSubject> {
    let accessToken: string;
    try {
      const tokens = await withTimeout(
        this.client.validateAuthorizationCode(
          `${this.settings.oauthBaseUrl}/login/oauth/access_token`,
          code,
          codeVerifier,
        ),
        PROVIDER_TIMEOUT_MS,
        'the access-token request',
      );
      // GitHub answers a refused code with 200 and an `error` member, which the generic client passes through.
      const data = tokens.data as Record<string, unknown>;
      if (typeof data.error === 'string')
        throw new SignInError(
          'refused',
          `GitHub refused the sign-in code (${data.error}${typeof data.error_description === 'string' ? `: ${data.error_description.slice(0, 200)}` : ''}).`,
        );
      if (typeof data.access_token !== 'string' || data.access_token.length === 0)
        throw new SignInError('unavailable', 'GitHub answered the access-token request without an access token.');
      accessToken = data.access_token;
    } catch (error) {
      if (error instanceof SignInError) throw error;
      if (error instanceof OAuth2RequestError)
        throw new SignInError(
          'refused',
          `GitHub refused the sign-in code (${error.code}${error.description ? `: ${error.description.slice(0, 200)}` : ''}).`,
        );
      if (error instanceof ArcticFetchError)
        throw new SignInError('unavailable', 'GitHub could not be reached for the access token.');
      throw new SignInError(
        'unavailable',
        `GitHub's access-token answer could not be read (${(error as Error).message.slice(0, 200)}).`,
      );
    }
    return this.user(accessToken);
  }

  private async user(accessToken: string): Promise<ReaderSubject> {
    let res: Response;
    try {
      res = await fetch(`${this.settings.apiUrl}/user`, {
        headers: {
          Authorization: `Bearer ${accessToken}`,
          Accept: 'application/vnd.github+json',
          'X-GitHub-Api-Version': '2022-11-28',
          'User-Agent': 'public-domain-music-archive',
        },
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
    } catch {
      throw new SignInError('unavailable', 'GitHub could not be reached for the signed-in user (GET /user).');
    }
    const text = await res.text().catch(() => '');
    if (res.status !== 200) throw new SignInError('unavailable', `GitHub answered GET /user with ${res.status}.`);
    if (text.length > MAX_USER_BYTES)
      throw new SignInError('unavailable', 'GitHub answered GET /user with more than 256 KiB.');
    let user: Record<string, unknown>;
    try {
      user = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new SignInError('unavailable', 'GitHub answered GET /user with something that is not JSON.');
    }
    if (
      typeof user !== 'object' ||
      user === null ||
      !Number.isSafeInteger(user.id) ||
      typeof user.login !== 'string' ||
      !/^[A-Za-z0-9-]{1,39}$/.test(user.login)
    ) {
      throw new SignInError('unavailable', 'GitHub answered GET /user without a numeric id and a login.');
    }
    const name = typeof user.name === 'string' && user.name.trim() ? user.name.trim().slice(0, 200) : null;
    return { kind: 'reader', provider: 'github', userId: String(user.id), login: user.login, name };
  }
}
