/**
 * Audio after an apply (docs/audio.md, "Made once, off the request thread"): the apply's
 * incremental build takes only audio the render cache holds, so a changed score's audio is
 * `pending` in the build that makes the change visible (nothing waits for the renderer); the
 * server then starts a background full build of the same commit at once, which renders it and is
 * swapped in: the served record's audio becomes `rendered`, of the new score's bytes.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBuildInfo, type ReconcileEvent } from '../../api/site/builds.ts';
import { git } from '../../api/site/content-repo.ts';
import { openMiniSite, type WritableApp } from '../helpers/writable-app.ts';
import type { RenderedAudio } from '../../src/schemas/audio.ts';

// This file's builds render audio (the other tests' builds render none: vitest.config.ts); the
// build child takes the mode from the server's environment.
process.env.ARCHIVE_AUDIO_RENDER = 'build';

const SLUG = 'bach-minuet-in-g';
const events: ReconcileEvent[] = [];
let w: WritableApp;
let scoreFile: string;

beforeAll(async () => {
  w = await openMiniSite(
    'pdma-audio-apply-',
    'https://audio-apply.example.test',
    { onReconcile: (e) => events.push(e) },
    { ARCHIVE_AUDIO_RENDER: 'build' },
  );
  scoreFile = path.join(w.config.contentRepo, 'works', SLUG, 'score.musicxml');
}, 600_000);
afterAll(() => w?.close());

async function servedAudio(): Promise<RenderedAudio> {
  const res = await w.app.inject({ url: `/api/v1/works/${SLUG}` });
  return res.json().data.sourceAssets.find((a: { id: number }) => a.id === 1).renderedAudio as RenderedAudio;
}

async function until(what: string, test: () => boolean | Promise<boolean>, ms = 600_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; reconcile events: ${JSON.stringify(events)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('audio after an apply', () => {
  it("is pending in the apply's build, then rendered by the background full build the server starts", async () => {
    const first = await servedAudio();
    expect(first.status, first.reason ?? '').toBe('rendered');

    // A changed score: its audio is in no cache yet.
    writeFileSync(scoreFile, `${readFileSync(scoreFile, 'utf8').trimEnd()}\n<!-- edited after the first build -->\n`);
    await git(w.config.contentRepo, ['commit', '--quiet', '-am', 'Edit the score']);
    const commit = await git(w.config.contentRepo, ['rev-parse', 'HEAD']);
    const scoreSha256 = createHash('sha256').update(readFileSync(scoreFile)).digest('hex');

    const swap = await w.rebuilder.rebuildAndSwap();
    expect(swap.mode).toBe('incremental');
    // The change is served at once, its audio not yet: nothing waited for the renderer.
    const info = readBuildInfo(swap.buildDir)!;
    expect(info.audio).toEqual({ pending: 1, later: true });
    const pending = await servedAudio();
    expect(pending.status).toBe('pending');
    expect(pending.reason).toContain('made in the background');
    const page = await w.app.inject({ url: `/works/${SLUG}/` });
    expect(page.body).toContain('has not been rendered yet');

    // The background full build of the same commit renders it and is swapped in.
    await until('the rendered audio to be served', async () => (await servedAudio()).status === 'rendered');
    const rendered = await servedAudio();
    expect(rendered.scoreSha256).toBe(scoreSha256);
    expect(rendered.scoreSha256).not.toBe(first.scoreSha256);
    expect(readBuildInfo(w.handle.current.dir)!.mode).toBe('full');
    expect(events).toContainEqual(expect.objectContaining({ commit, trigger: 'after-apply' }));
    const master = rendered.files.find((f) => f.role === 'master' && f.format === 'flac')!;
    const served = await w.app.inject({ url: new URL(master.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(createHash('sha256').update(served.rawPayload).digest('hex')).toBe(master.sha256);
  }, 900_000);
});
