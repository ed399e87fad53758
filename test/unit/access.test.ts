/** Access wording and the reader sign-in settings: pure rules and configuration parsing. */
import { describe, expect, it } from 'vitest';
import {
  accessMeaning,
  isLocalReturnPath,
  NOT_OFFERED,
  signInUrl,
  signedInDownloadUrl,
} from '../../src/domain/access.ts';
import { ACCESS_MEANINGS } from '../../src/domain/review-states.ts';
import { ConfigError, loadConfig } from '../../api/config.ts';
import { buildKey } from '../../api/site/builds.ts';

describe('access wording', () => {
  it('signed-in says "not offered" without sign-in, and names the 401 and the sign-in link with it', () => {
    expect(accessMeaning('signed-in', { readerSignIn: false })).toBe(NOT_OFFERED);
    expect(NOT_OFFERED).toMatch(/^Signed-in download is not offered by this archive/);
    const link = signInUrl('https://a.example', '/works/x/');
    expect(link).toBe('https://a.example/api/v1/reader/sign-in?return=%2Fworks%2Fx%2F');
    expect(accessMeaning('signed-in', { readerSignIn: true }, link)).toBe(
      `Requires a reader signed in with GitHub: the link answers 401 without a session; sign in at ${link}.`,
    );
    expect(accessMeaning('public', { readerSignIn: false })).toBe(ACCESS_MEANINGS.public);
    expect(accessMeaning('admin-only', { readerSignIn: true })).toBe(ACCESS_MEANINGS['admin-only']);
    expect(signedInDownloadUrl('https://a.example', 'a b', 2)).toBe(
      'https://a.example/api/v1/works/a%20b/assets/2/download',
    );
  });

  it('a return path must stay on this site', () => {
    for (const ok of ['/', '/works/x/', '/api/v1/works/x/assets/2/download', '/search/?q=a%20b&x=1'])
      expect([ok, isLocalReturnPath(ok)]).toEqual([ok, true]);
    for (const bad of [
      '',
      'works',
      '//evil.example',
      '/\\evil.example',
      'https://evil.example/',
      '/a"b',
      "/a'b",
      '/a<b>',
      '/a b',
      `/${'a'.repeat(600)}`,
    ])
      expect([bad, isLocalReturnPath(bad)]).toEqual([bad, false]);
  });
});

describe('reader sign-in settings', () => {
  const root = '/tmp';
  it('are off without the client id and secret, and need both', () => {
    expect(loadConfig({}, root).readerSignIn).toBeNull();
    expect(() => loadConfig({ GITHUB_OAUTH_CLIENT_ID: 'x' }, root)).toThrow(ConfigError);
    expect(() => loadConfig({ GITHUB_OAUTH_CLIENT_SECRET: 'x' }, root)).toThrow(
      /GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET must be set together/,
    );
  });
  it('default to github.com and api.github.com, and take other base URLs', () => {
    expect(loadConfig({ GITHUB_OAUTH_CLIENT_ID: 'id', GITHUB_OAUTH_CLIENT_SECRET: 's' }, root).readerSignIn).toEqual({
      provider: 'github',
      clientId: 'id',
      clientSecret: 's',
      oauthBaseUrl: 'https://github.com',
      apiUrl: 'https://api.github.com',
    });
    const c = loadConfig(
      {
        GITHUB_OAUTH_CLIENT_ID: 'id',
        GITHUB_OAUTH_CLIENT_SECRET: 's',
        GITHUB_OAUTH_BASE_URL: 'http://127.0.0.1:9/',
        GITHUB_API_URL: 'http://127.0.0.1:9/api',
      },
      root,
    );
    expect(c.readerSignIn).toMatchObject({ oauthBaseUrl: 'http://127.0.0.1:9', apiUrl: 'http://127.0.0.1:9/api' });
    expect(() =>
      loadConfig(
        { GITHUB_OAUTH_CLIENT_ID: 'id', GITHUB_OAUTH_CLIENT_SECRET: 's', GITHUB_OAUTH_BASE_URL: 'github.com' },
        root,
      ),
    ).toThrow(/GITHUB_OAUTH_BASE_URL must be an absolute http\(s\) URL/);
  });
  it('are part of the build folder key (records and pages differ), leaving keys without sign-in unchanged', () => {
    const commit = 'a'.repeat(40);
    expect(buildKey(commit, 'https://a.example', 'none')).toBe(buildKey(commit, 'https://a.example'));
    expect(buildKey(commit, 'https://a.example', 'github')).not.toBe(buildKey(commit, 'https://a.example'));
  });
});
