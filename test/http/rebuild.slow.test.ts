/**
 * Rebuild and swap: a new commit in the content repository becomes visible in JSON, Markdown and
 * HTML in one step; a commit that fails the build leaves the old site serving.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../../api/site/content-repo.ts';
import { openMiniSite, type WritableApp } from '../helpers/writable-app.ts';

let w: WritableApp;
let workFile: string;

beforeAll(async () => {
  w = await openMiniSite('pdma-rebuild-', 'https://rebuild.example.test');
  workFile = path.join(w.config.contentRepo, 'works', 'bach-minuet-in-g', 'index.md');
});
afterAll(() => w?.close());

async function commitEdit(from: string, to: string, message: string) {
  writeFileSync(workFile, readFileSync(workFile, 'utf8').replace(from, to));
  await git(w.config.contentRepo, ['commit', '--quiet', '-am', message]);
}

describe('rebuild and swap', () => {
  it('shows a committed change in JSON, Markdown and HTML together', async () => {
    await commitEdit('title: Minuet in G major', 'title: Minuet in G major (revised)', 'Retitle the minuet');
    const before = await w.app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
    expect(before.json().data.title).toBe('Minuet in G major');
    const result = await w.rebuilder.rebuildAndSwap();
    expect(result.commit).toBe(await git(w.config.contentRepo, ['rev-parse', 'HEAD']));
    const json = await w.app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
    const md = await w.app.inject({ url: '/api/v1/works/bach-minuet-in-g/index.md' });
    const html = await w.app.inject({ url: '/works/bach-minuet-in-g/' });
    expect(json.json().data.title).toBe('Minuet in G major (revised)');
    expect(md.body).toContain('title: "Minuet in G major (revised)"');
    expect(html.body).toContain('Minuet in G major (revised)');
    const listing = await w.app.inject({ url: '/api/v1/works?query=revised' });
    expect(listing.json().data.total).toBe(1);
    expect(json.headers.etag).not.toBe(before.headers.etag);
  });

  it('keeps the old site serving when the new commit does not build', async () => {
    const served = w.handle.current.dir;
    await commitEdit('durationSeconds: 90', 'durationSeconds: 91', 'Break a duration');
    await expect(w.rebuilder.rebuildAndSwap()).rejects.toThrow(/durationSeconds: disagrees with duration/);
    expect(w.handle.current.dir).toBe(served);
    const json = await w.app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
    expect(json.statusCode).toBe(200);
    expect(json.json().data.arrangements[0].durationSeconds).toBe(90);
    const worktrees = execFileSync('git', ['-C', w.config.contentRepo, 'worktree', 'list'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(worktrees).toHaveLength(1); // the scratch checkout was removed
  });
});
