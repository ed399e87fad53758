/**
 * Review on GitHub authenticated as a GitHub App (docs/github-review.md, section 2): settings from
 * the environment (GITHUB_APP_ID, GITHUB_APP_INSTALLATION_ID, GITHUB_APP_PRIVATE_KEY_FILE, each
 * refused clearly when wrong), the forge opening a pull request with an installation token it
 * minted from an RS256 JWT (checked by the fake GitHub against the app's public key), one mint for
 * many calls, and a new token before the old one expires.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, gitHubSettingsFromEnv } from '../../api/config.ts';
import { GitHubForge } from '../../api/forge/forge-github.ts';
import { installationTokenProvider } from '../../api/forge/github-app-auth.ts';
import type { Forge, ProposalInput, ReviewRef } from '../../api/forge/types.ts';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.ts';

const REPO = 'acme/content';
const APP_ID = '424242';
const INSTALLATION = '99001';
const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-gh-app-'));
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keyFile = path.join(dir, 'app.private-key.pem');
writeFileSync(keyFile, privateKey.export({ type: 'pkcs1', format: 'pem' }));
const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;
let gh: FakeGitHub;

class NoLocalForge implements Forge {
  readonly name = 'local' as const;
  async open(input: ProposalInput): Promise<ReviewRef> {
    return {
      kind: 'local-branch',
      branch: `review/${input.trackingCode}`,
      url: null,
      openedAtUtc: '2030-01-01T00:00:00Z',
    };
  }
  async setStatus(): Promise<void> {}
  async merge(): Promise<{ commit: string }> {
    return { commit: 'x' };
  }
  async close(): Promise<void> {}
}

const proposal = (code: string): ProposalInput => ({
  trackingCode: code,
  title: `Contribution ${code}`,
  message: `Contribution ${code}\n\nTracking-Code: ${code}`,
  body: 'body',
  changes: [{ path: 'works/test-work/index.md', content: `---\nslug: test-work\n---\n${code}\n` }],
  labels: ['status: pending'],
});

beforeAll(async () => {
  gh = await startFakeGitHub({
    token: 'no-personal-token-here',
    repository: REPO,
    app: {
      id: APP_ID,
      installationId: INSTALLATION,
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
    },
  });
});
afterAll(async () => {
  await gh?.close();
  rmSync(dir, { recursive: true, force: true });
});

const appEnv = (extra: Record<string, string> = {}) => ({
  GITHUB_APP_ID: APP_ID,
  GITHUB_APP_INSTALLATION_ID: INSTALLATION,
  GITHUB_APP_PRIVATE_KEY_FILE: keyFile,
  GITHUB_REPOSITORY: REPO,
  ...extra,
});

describe('GitHub App authentication', () => {
  it('reads the app settings from the environment and refuses incomplete or wrong ones', () => {
    const settings = gitHubSettingsFromEnv(appEnv({ GITHUB_API_URL: 'http://127.0.0.1:9/' }));
    expect(settings).toMatchObject({
      app: { appId: APP_ID, installationId: INSTALLATION },
      repository: REPO,
      apiUrl: 'http://127.0.0.1:9',
    });
    expect(settings!.token).toBeUndefined();
    expect(settings!.app!.privateKey).toContain('PRIVATE KEY');
    expect(() => gitHubSettingsFromEnv({ GITHUB_APP_ID: APP_ID, GITHUB_REPOSITORY: REPO })).toThrow(
      'missing: GITHUB_APP_INSTALLATION_ID, GITHUB_APP_PRIVATE_KEY_FILE',
    );
    expect(() => gitHubSettingsFromEnv(appEnv({ GITHUB_TOKEN: 't' }))).toThrow(/not both/);
    expect(() => gitHubSettingsFromEnv(appEnv({ GITHUB_APP_ID: 'my-app' }))).toThrow(
      /GITHUB_APP_ID must be the app's numeric id/,
    );
    expect(() => gitHubSettingsFromEnv(appEnv({ GITHUB_APP_PRIVATE_KEY_FILE: path.join(dir, 'missing.pem') }))).toThrow(
      ConfigError,
    );
    expect(() => gitHubSettingsFromEnv(appEnv({ GITHUB_REPOSITORY: '' }))).toThrow(/needs GITHUB_REPOSITORY/);
  });

  it('the forge opens a pull request with an installation token minted once from the app JWT', async () => {
    const settings = gitHubSettingsFromEnv(appEnv({ GITHUB_API_URL: gh.url }))!;
    const forge = new GitHubForge({ ...settings, local: new NoLocalForge() });
    const ref = await forge.open(proposal('APP1'));
    expect(ref).toMatchObject({ kind: 'github-pull-request', number: 1 });
    expect(gh.pulls[0]).toMatchObject({ head: 'review/APP1', labels: ['status: pending'] });
    expect(gh.installationTokens).toEqual(['ghs_fake1']);
    expect(gh.calls.filter((c) => c.path === `/app/installations/${INSTALLATION}/access_tokens`)).toHaveLength(1);
    expect(gh.calls.filter((c) => c.path.startsWith(`/repos/${REPO}`)).length).toBeGreaterThan(5);
  });

  it('mints a new token five minutes before the old one expires; a wrong key or installation is a clear error', async () => {
    let clock = Date.now();
    const token = installationTokenProvider(
      {
        appId: APP_ID,
        installationId: INSTALLATION,
        privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      },
      gh.url,
      () => clock,
    );
    const first = await token();
    expect(await Promise.all([token(), token()])).toEqual([first, first]);
    clock += 54 * 60_000;
    expect(await token()).toBe(first);
    clock += 2 * 60_000;
    // 56 minutes in: the hour-long token has less than five minutes left; GitHub's clock moved too.
    gh.advanceClock(56 * 60_000);
    gh.expireInstallationTokens();
    const second = await token();
    expect(second).not.toBe(first);
    expect(await token()).toBe(second);
    gh.advanceClock(-56 * 60_000);

    const wrongKey = installationTokenProvider(
      { appId: APP_ID, installationId: INSTALLATION, privateKey: otherKey },
      gh.url,
    );
    await expect(wrongKey()).rejects.toThrow(
      `GitHub minting an installation token for app ${APP_ID}, installation ${INSTALLATION} failed (HTTP 401): A JSON web token could not be decoded`,
    );
    const wrongInstallation = installationTokenProvider(
      { appId: APP_ID, installationId: '5', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string },
      gh.url,
    );
    await expect(wrongInstallation()).rejects.toThrow(/installation 5 failed \(HTTP 404\)/);
  });
});
