/**
 * A fake of GitHub's OAuth web flow and `GET /user` for reader sign-in tests: a local
 * HTTP server with the shapes of GitHub's docs ("Authorizing OAuth apps"), strict where GitHub is:
 *
 *   GET  /login/oauth/authorize?client_id&redirect_uri&state&code_challenge&code_challenge_method=S256
 *        -> 302 to redirect_uri?code=...&state=... (as if the user approved at once), or with
 *           error=access_denied when `deny` is set. An unknown client_id answers 404. A browser
 *           (Accept: text/html) gets a page of this site that moves on to that URL instead, as a
 *           user pressing "Authorize" on GitHub does: the callback is then a navigation started
 *           by another site, which decides which SameSite cookies go along.
 *   POST /login/oauth/access_token   form: grant_type, code, redirect_uri, code_verifier; client
 *        credentials as HTTP Basic (or client_id/client_secret in the form). A wrong code, reused
 *        code, other redirect_uri or a verifier whose S256 is not the challenge answers 200 with
 *        {"error":"bad_verification_code"} like GitHub; wrong credentials {"error":"incorrect_client_credentials"}.
 *   GET  /user                      Authorization: Bearer <token> -> { id, login, name, ... } or 401.
 *
 * It listens on 127.0.0.1 and, when the machine has IPv6 loopback, on ::1 at the same port, so
 * it can be addressed as http://localhost:<port> (another site than http://127.0.0.1:<archive
 * port> in a browser: the cross-site redirect a real sign-in makes).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOAuthUser {
  id: number;
  login: string;
  name: string | null;
}

export interface FakeOAuthCall {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
  authorization: string | undefined;
}

export interface FakeGitHubOAuth {
  /** http://localhost:<port> (or the host given). */
  url: string;
  port: number;
  calls: FakeOAuthCall[];
  /** The user the next authorize signs in as. */
  user: FakeOAuthUser;
  /** Answer the next authorize with error=access_denied. */
  deny: boolean;
  /** Access tokens issued (they are never given to the browser). */
  tokens: Map<string, FakeOAuthUser>;
  close(): Promise<void>;
}

interface Grant {
  challenge: string;
  method: string;
  redirectUri: string;
  user: FakeOAuthUser;
  used: boolean;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startFakeGitHubOAuth(options: {
  clientId: string;
  clientSecret: string;
  host?: string;
  user?: FakeOAuthUser;
}): Promise<FakeGitHubOAuth> {
  const grants = new Map<string, Grant>();
  const fake: FakeGitHubOAuth = {
    url: '',
    port: 0,
    calls: [],
    user: options.user ?? { id: 583231, login: 'octocat', name: 'The Octocat' },
    deny: false,
    tokens: new Map(),
    close: async () => undefined,
  };

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const raw = req.method === 'POST' ? await readBody(req) : '';
    const form = Object.fromEntries(new URLSearchParams(raw));
    const query = Object.fromEntries(url.searchParams);
    fake.calls.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      form,
      authorization: req.headers.authorization,
    });

    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      if (query.client_id !== options.clientId) return json(res, 404, { message: 'Not Found' });
      const redirect = query.redirect_uri;
      if (!redirect) return json(res, 400, { message: 'redirect_uri is required by this fake' });
      const back = new URL(redirect);
      if (fake.deny) {
        fake.deny = false;
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user has denied your application access.');
      } else {
        const code = randomBytes(10).toString('hex');
        grants.set(code, {
          challenge: query.code_challenge ?? '',
          method: query.code_challenge_method ?? '',
          redirectUri: redirect,
          user: { ...fake.user },
          used: false,
        });
        back.searchParams.set('code', code);
      }
      if (query.state !== undefined) back.searchParams.set('state', query.state);
      if ((req.headers.accept ?? '').includes('text/html')) {
        // A browser: like GitHub, the way back starts from a page of the provider's own site (there,
        // the user presses "Authorize"), so the callback is a cross-site navigation.
        const href = back.href.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
        const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${href}"><title>Authorize</title></head><body><a href="${href}">Authorize</a></body></html>`;
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(page) });
        return res.end(page);
      }
      res.writeHead(302, { Location: back.href, 'Content-Length': '0' });
      return res.end();
    }

    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      let id = form.client_id;
      let secret = form.client_secret;
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      if (basic) {
        const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
        id = decoded.slice(0, decoded.indexOf(':'));
        secret = decoded.slice(decoded.indexOf(':') + 1);
      }
      if (id !== options.clientId || secret !== options.clientSecret) {
        return json(res, 200, {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        });
      }
      const grant = form.code ? grants.get(form.code) : undefined;
      const verifier = form.code_verifier ?? '';
      const s256 = createHash('sha256').update(verifier).digest('base64url');
      if (
        !grant ||
        grant.used ||
        (form.redirect_uri !== undefined && form.redirect_uri !== grant.redirectUri) ||
        grant.method !== 'S256' ||
        s256 !== grant.challenge
      ) {
        return json(res, 200, {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
        });
      }
      grant.used = true;
      const token = `gho_${randomBytes(16).toString('hex')}`;
      fake.tokens.set(token, grant.user);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: '' });
    }

    if (req.method === 'GET' && url.pathname === '/user') {
      const bearer = /^(?:Bearer|token) (.+)$/.exec(req.headers.authorization ?? '');
      const user = bearer ? fake.tokens.get(bearer[1]!) : undefined;
      if (!user)
        return json(res, 401, {
          message: 'Requires authentication',
          documentation_url: 'https://docs.github.com/rest',
        });
      return json(res, 200, {
        login: user.login,
        id: user.id,
        node_id: 'MDQ6VXNlcjE=',
        type: 'User',
        site_admin: false,
        name: user.name,
      });
    }
    return json(res, 404, { message: 'Not Found' });
  };

  const v4 = createServer((req, res) => void handler(req, res));
  const port = await listen(v4, 0, '127.0.0.1');
  const v6 = createServer((req, res) => void handler(req, res));
  const hasV6 = await listen(v6, port, '::1').then(
    () => true,
    () => false,
  );
  fake.port = port;
  fake.url = `http://${options.host ?? 'localhost'}:${port}`;
  fake.close = async () => {
    await new Promise<void>((resolve) => v4.close(() => resolve()));
    if (hasV6) await new Promise<void>((resolve) => v6.close(() => resolve()));
  };
  return fake;
}
