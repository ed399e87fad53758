/**
 * Rebuild and swap: a new commit in the content repository becomes visible in JSON, Markdown and
 * HTML in one step; a commit that fails the build leaves the old site serving.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rebuilder } from '../../api/site/builds.ts';
import type { Config } from '../../api/config.ts';
import { git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';
import type { FastifyInstance } from 'fastify';

let writable: WritableApp;
let app: FastifyInstance;
let config: Config;
let handle: SiteHandle;
let rebuilder: Rebuilder;
let workFile: string;

beforeAll(async () => {
  writable = await openWritableApp({
    prefix: 'pdma-rebuild-',
    env: { PUBLIC_BASE_URL: 'https://rebuild.example.test' },
    seed: 'test/fixtures/mini',
    buildSeed: true,
  });
  ({ app, config, handle, rebuilder } = writable);
  workFile = path.join(config.contentRepo, 'works', 'bach-minuet-in-g', 'index.md');
});
afterAll(async () => {
  await writable?.close();
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
    await commitEdit('durationSeconds: 90', 'durationSeconds: 91', 'Break a duration');
    await expect(rebuilder.rebuildAndSwap()).rejects.toThrow(/durationSeconds: disagrees with duration/);
    expect(handle.current.dir).toBe(served);
    const json = await app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
    expect(json.statusCode).toBe(200);
    expect(json.json().data.arrangements[0].durationSeconds).toBe(90);
    const worktrees = execFileSync('git', ['-C', config.contentRepo, 'worktree', 'list'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(worktrees).toHaveLength(1); // the scratch checkout was removed
  });
});
