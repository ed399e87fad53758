/**
 * Shared by the desk tests: contributor files (the sample's Gymnopedie score and recording), a
 * filled contribution proposing an arrangement with both, and a desk sign-in over HTTP.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { fillTemplate } from '../helpers/filled-template.ts';
import { buildContributionTemplate } from '../../src/domain/contributions/template.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { LABELED_ADMIN_KEY, sha256, type ReviewHarness } from '../review/harness.ts';

const WORK_DIR = path.join(PROJECT_ROOT, 'content', 'works', 'satie-gymnopedie-1');
export const FILES: Record<string, Buffer> = {
  '/desk/arrangement.musicxml': readFileSync(path.join(WORK_DIR, 'gymnopedie-1-ambient-piano.musicxml')),
  '/desk/arrangement.mp3': readFileSync(path.join(WORK_DIR, 'gymnopedie-1-ambient-piano.mp3')),
};
export const ADMIN_KEY = LABELED_ADMIN_KEY;
export const SLUG = 'satie-gymnopedie-1';

/** An arrangement of Gymnopedie No. 1 with a score and a recording; `text` goes into every free-text field. */
export function deskContribution(
  h: Pick<ReviewHarness, 'fileUrl'>,
  key: string,
  title: string,
  text = 'A calm arrangement for the desk test.',
): MusicContributionInput {
  const c = fillTemplate(
    buildContributionTemplate(
      {
        slug: SLUG,
        title: 'Gymnopédie No. 1',
        composer: 'Erik Satie',
        originalTitle: null,
        period: null,
        genre: null,
        year: null,
        workNumber: null,
        summary: null,
      },
      'warm-grand-piano',
    ),
  );
  c.idempotencyKey = key;
  c.submittedBy = { ...c.submittedBy, name: `Desk Tester ${text}`.slice(0, 100) };
  c.changeSummary = `Adds ${title}. ${text}`;
  c.rationale = text;
  c.assets = c.assets.map((a) => {
    const file = a.kind === 'mp3' ? '/desk/arrangement.mp3' : '/desk/arrangement.musicxml';
    return { ...a, title: `${title} (${a.kind})`, downloadUrl: h.fileUrl(file), sha256: sha256(FILES[file]!) };
  });
  c.arrangement = {
    ...c.arrangement!,
    title,
    duration: '0:19',
    style: 'solo piano',
    instrumentation: 'piano',
    moods: ['calm'],
  };
  return c;
}

/** The session cookie (name=value) from a sign-in answer's Set-Cookie. */
export function cookieOf(setCookie: string | string[] | undefined): string {
  const line = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  return line ? line.split(';')[0]! : '';
}

/** The CSRF token in a desk page (the sign-out form carries it). */
export function csrfOf(page: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!m) throw new Error('no CSRF token in the page');
  return m[1]!;
}

/** Submit a contribution as its contributor (no key); expects 202 and returns the receipt. */
export async function submitContribution(
  h: Pick<ReviewHarness, 'post'>,
  body: MusicContributionInput,
): Promise<{ trackingCode: string; responseToken: string }> {
  const res = await h.post('/api/v1/music/contributions', body, null);
  expect(res.statusCode, res.body).toBe(202);
  return res.json().data;
}
