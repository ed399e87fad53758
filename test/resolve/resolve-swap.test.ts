/**
 * The resolve index follows the served build: after a swap, resolve answers from the new
 * records at once (an applied contribution is resolvable as soon as it is visible).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { indexBuild } from '../../api/catalog/build-index.ts';

const URL_ = '/api/v1/music/resolve';
let t: TestApp;
beforeEach(async () => {
  t = await openApp();
});
afterEach(() => t.close());

async function post(payload: unknown) {
  return t.request({
    method: 'POST',
    url: URL_,
    payload: JSON.stringify(payload),
    headers: { 'content-type': 'application/json' },
  });
}

describe('the index follows the served build', () => {
  let copy: string | null = null;
  afterEach(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
    copy = null;
  });

  it('a change visible in a new build is resolvable right after the swap', async () => {
    const body = {
      workSlug: 'beethoven-symphony-9-ode-to-joy',
      channel: { channelKey: 'k', intendedRole: 'music-lead' },
      requirements: { requiredFormats: ['mp3'] },
    };
    expect((await post(body)).json().data.verdict).toBe('prepare');
    // A copy of the build where the rights review of Ode to Joy #2 has been completed (as an applied review would).
    copy = mkdtempSync(path.join(os.tmpdir(), 'pdma-resolve-swap-'));
    cpSync(t.buildDir, copy, { recursive: true });
    const file = path.join(copy, 'client', 'api', 'v1', 'works', 'beethoven-symphony-9-ode-to-joy', 'index.json');
    const rec = JSON.parse(readFileSync(file, 'utf8'));
    const arr = rec.data.arrangements.find((a: { id: number }) => a.id === 2);
    arr.reviewState = 'human-listening-approved';
    arr.reviewStatus = 'Human listening approved';
    writeFileSync(file, JSON.stringify(rec));
    // The build's indexes are derived from its records: re-derive them, as an applied change does.
    await indexBuild(copy);
    await t.handle.swap(copy);
    const after = (await post(body)).json();
    expect(after.data.verdict).toBe('reuse');
    expect([after.data.candidates[0].workSlug, after.data.candidates[0].arrangementId]).toEqual([
      'beethoven-symphony-9-ode-to-joy',
      2,
    ]);
  });
});
