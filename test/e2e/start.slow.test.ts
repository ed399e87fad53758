/**
 * `npm start` as a user runs it: a fresh data folder, the sample catalog, a real socket. The
 * running service seeds its own content repository and never writes into the project tree.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { startService } from '../helpers/process.ts';

// The same base URL for both starts: the build is keyed by commit and base URL.
const BASE = 'http://archive.local:4321';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function projectContentStatus(): string {
  return execFileSync('git', ['-C', PROJECT_ROOT, 'status', '--porcelain', '--', 'content'], { encoding: 'utf8' });
}

describe('npm start on a fresh data folder', () => {
  it('seeds the content repository, builds, serves, and reuses the build on restart', async () => {
    const contentBefore = projectContentStatus();
    const first = await startService({ ARCHIVE_DATA_DIR: dataDir, PUBLIC_BASE_URL: BASE });
    try {
      expect(first.output()).toContain('created the content repository');
      expect(first.output()).toContain('building the site');
      const res = await fetch(`${first.url}/api/v1/works?composer=bach`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      const body = (await res.json()) as { data: { pageSize: number; items: { links: { self: string } }[] } };
      expect(body.data.pageSize).toBe(20);
      expect(body.data.items[0]!.links.self.startsWith(`${BASE}/api/v1/works/`)).toBe(true);
      const record = await fetch(body.data.items[0]!.links.self.replace(BASE, first.url));
      expect(record.status).toBe(200);
      expect(record.headers.get('etag')).toMatch(/^"/);
      const html = await fetch(`${first.url}/`);
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const repo = path.join(dataDir, 'content');
    expect(existsSync(path.join(repo, '.git'))).toBe(true);
    const log = execFileSync('git', ['-C', repo, 'log', '--format=%s'], { encoding: 'utf8' });
    expect(log.trim()).toBe('Seed the content repository from the shipped catalog');
    expect(projectContentStatus()).toBe(contentBefore);

    const second = await startService({ ARCHIVE_DATA_DIR: dataDir, PUBLIC_BASE_URL: BASE });
    try {
      expect(second.output()).not.toContain('building the site');
      expect((await fetch(`${second.url}/api/v1`)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('refuses a PUBLIC_BASE_URL with a path, naming the variable', async () => {
    await expect(
      startService({ ARCHIVE_DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://example.org/archive' }, 20_000),
    ).rejects.toThrow(/PUBLIC_BASE_URL must be an origin/);
  });
});
