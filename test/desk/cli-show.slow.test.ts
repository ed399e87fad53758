/**
 * `npm run review -- show <code>` against a running server: the submission
 * summary, checks, history and the proposed change as a unified diff (the same bounded diff as the
 * admin item and the desk), before and after accept.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, listenOnLoopback } from '../helpers/app.ts';
import { openReviewHarness, type ReviewHarness } from '../review/harness.ts';
import { ADMIN_KEY, deskContribution, FILES, SLUG } from './helpers.ts';

const run = promisify(execFile);
let h: ReviewHarness;
let server: string;

beforeAll(async () => {
  h = await openReviewHarness(FILES);
  server = await listenOnLoopback(h.app);
});
afterAll(() => h?.close());

const show = (code: string) =>
  run(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'review.ts'), 'show', code, '--server', server], {
    env: { PATH: process.env.PATH ?? '', ARCHIVE_ADMIN_KEY: ADMIN_KEY },
  });

describe('review show', () => {
  it('prints the submission summary, then after accept the history and the diff', async () => {
    const body = deskContribution(
      h,
      'cli-show-1',
      'CLI Show arrangement',
      'Escape \u001b[31mred\u001b[0m stays out of the terminal.',
    );
    const res = await h.post('/api/v1/music/contributions', body, null);
    expect(res.statusCode, res.body).toBe(202);
    const code = res.json().data.trackingCode as string;

    const before = await show(code);
    expect(before.stdout).toContain(`${code}: pending`);
    expect(before.stdout).toContain(`proposes: arrangement for ${SLUG}: CLI Show arrangement`);
    expect(before.stdout).toMatch(/^summary: Adds CLI Show arrangement\./m);
    expect(before.stdout).toMatch(
      /^file 1: mp3 "CLI Show arrangement \(mp3\)" https:\/\/localhost:\d+\/desk\/arrangement\.mp3 sha256 [0-9a-f]{64}$/m,
    );
    expect(before.stdout).toContain('diff: none yet');
    expect(before.stdout).not.toContain('\u001b');

    const accepted = await h.post(`/api/v1/admin/contributions/${code}/accept`, {
      reviewer: 'Alice Editor',
      note: 'Checked.',
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const after = await show(code);
    expect(after.stdout).toContain(`${code}: accepted`);
    expect(after.stdout).toMatch(/^history:\n\s+\S+\s+pending\s+-\s+Received/m);
    expect(after.stdout).toMatch(/^\s+\S+\s+accepted\s+alice\s+Checked\.$/m);
    expect(after.stdout).toMatch(new RegExp(`^diff [0-9a-f]{12}\\.\\.[0-9a-f]{12} \\(1 file\\(s\\)\\):$`, 'm'));
    expect(after.stdout).toMatch(new RegExp(`^  works/${SLUG}/index\\.md  \\+\\d+ -\\d+$`, 'm'));
    expect(after.stdout).toContain(`diff --git a/works/${SLUG}/index.md b/works/${SLUG}/index.md`);
    expect(after.stdout).toMatch(/^\+.*CLI Show arrangement/m);
    expect(after.stdout).not.toContain('\u001b');
  }, 120_000);
});
