/**
 * Rebuild and swap: a new commit in the content repository becomes visible in JSON, Markdown and
 * HTML in one step; a commit that fails the build leaves the old site serving.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { ensureBuild, Rebuilder } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import type { FastifyInstance } from 'fastify';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-rebuild-'));
const config = loadConfig({ ARCHIVE_DATA_DIR: root, PUBLIC_BASE_URL: 'https://rebuild.example.test' }, PROJECT_ROOT);
const workFile = path.join(config.contentRepo, 'works', 'bach-minuet-in-g', 'index.md');
let app: FastifyInstance;
let handle: SiteHandle;
let rebuilder: Rebuilder;

beforeAll(async () => {
  const repo = await ensureContentRepo(config.contentRepo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  handle = await SiteHandle.open(await ensureBuild(config, repo.head));
  rebuilder = new Rebuilder(config, handle);
  app = await createApp({ config, handle, rebuilder });
});
afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

async function commitEdit(from: string, to: string, message: string) {
  writeFileSync(workFile, readFileSync(workFile, 'utf8').replace(from, to));
  await git(config.contentRepo, ['commit', '--quiet', '-am', message]);
}

describe('rebuild and swap', () => {
  it('shows a committed change in JSON, Markdown and HTML together', async () => {
    await commitEdit('title: Minuet in G major', 'title: Minuet in G major (revised)', 'Retitle the minuet');
    const before = await app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
    expect(before.json().data.title).toBe('Minuet in G major');
    const result = await rebuilder.rebuildAndSwap();
    expect(result.commit).toBe(await git(config.contentRepo, ['rev-parse', 'HEAD']));
    const json = await app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
    const md = await app.inject({ url: '/api/v1/works/bach-minuet-in-g/index.md' });
    const html = await app.inject({ url: '/works/bach-minuet-in-g/' });
    expect(json.json().data.title).toBe('Minuet in G major (revised)');
    expect(md.body).toContain('title: "Minuet in G major (revised)"');
    expect(html.body).toContain('Minuet in G major (revised)');
    const listing = await app.inject({ url: '/api/v1/works?query=revised' });
    expect(listing.json().data.total).toBe(1);
    expect(json.headers.etag).not.toBe(before.headers.etag);
  });

  it('keeps the old site serving when the new commit does not build', async () => {
    const served = handle.current.dir;
    await commitEdit('died: "1733-07-25"', 'died: "1733-02-30"', 'Break a date');
    await expect(rebuilder.rebuildAndSwap()).rejects.toThrow(/composer\/died: is not a real calendar date/);
    expect(handle.current.dir).toBe(served);
    const json = await app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
    expect(json.statusCode).toBe(200);
    expect(json.json().data.composer.died).toBe('1733-07-25');
    const worktrees = execFileSync('git', ['-C', config.contentRepo, 'worktree', 'list'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(worktrees).toHaveLength(1); // the scratch checkout was removed
  });
});
