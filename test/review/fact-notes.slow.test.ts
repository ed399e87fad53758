/**
 * Records never go stale: a rights note names the facts it quotes by placeholder and the build
 * writes them in, so once a correction of a work's year is applied (accept, apply, real
 * rebuild and swap), the composition rights note quotes the new year on all four surfaces: the
 * JSON record, the Markdown record, the HTML page and the resolve answer. Plus the pure rules.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../helpers/app.ts';
import type { Config } from '../../api/config.ts';
import { git } from '../../api/site/content-repo.ts';
import { quoteFacts, unknownPlaceholders } from '../../src/domain/fact-notes.ts';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';

const ADMIN_KEY = 'fact-notes-admin-secret';
const WORK = 'satie-gymnopedie-1';
let app: FastifyInstance;
let config: Config;
let writable: WritableApp;
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

beforeAll(async () => {
  writable = await openWritableApp({ prefix: 'pdma-fact-notes-', env: { ARCHIVE_ADMIN_KEYS: `alice=${ADMIN_KEY}` } });
  ({ app, config } = writable);
});
afterAll(async () => {
  await writable?.close();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = auth) =>
  postJson(app, url, payload, headers);

async function resolveNote(): Promise<string> {
  const res = await post(
    '/api/v1/music/resolve',
    {
      workSlug: WORK,
      channel: { channelKey: 'fact-notes', intendedRole: 'music-bed' },
      requirements: { requiredFormats: [] },
    },
    {},
  );
  expect(res.statusCode, res.body).toBe(200);
  const candidates = res.json().data.candidates as Array<{
    workSlug: string;
    rights: { composition: { note: string } };
  }>;
  const mine = candidates.find((c) => c.workSlug === WORK);
  expect(mine, res.body).toBeDefined();
  return mine!.rights.composition.note;
}

describe('a corrected year is quoted by the rights note everywhere', () => {
  it('JSON, Markdown, HTML and resolve show the new year after apply; the work file changes in one line', async () => {
    const before = (await app.inject({ url: `/api/v1/works/${WORK}` })).json().data;
    expect(before.year).toBe('1888');
    expect(before.rights.composition.note).toContain('the composition (1888)');
    expect(await resolveNote()).toContain('the composition (1888)');

    const filed = await post(
      '/api/v1/correction-reports',
      {
        workSlug: WORK,
        targetType: 'work',
        fieldName: 'year',
        currentValue: '1888',
        proposedValue: '1887',
        rationale: 'Dated manuscript.',
        evidenceUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
        reporterName: 'Dana',
        reporterKind: 'Human',
      },
      {},
    );
    expect(filed.statusCode, filed.body).toBe(202);
    const code = filed.json().data.trackingCode as string;
    expect((await post(`/api/v1/admin/correction-reports/${code}/accept`, { reviewer: 'Alice' })).statusCode).toBe(200);
    const head = await git(config.contentRepo, ['rev-parse', 'main']);
    const applied = await post(`/api/v1/admin/correction-reports/${code}/apply`, { reviewer: 'Alice' });
    expect(applied.statusCode, applied.body).toBe(200);
    // Only the fact changed in the content: the notes quote it by placeholder.
    expect(await git(config.contentRepo, ['diff', head, 'main', '--stat'])).toContain(
      '1 file changed, 1 insertion(+), 1 deletion(-)',
    );

    const json = (await app.inject({ url: `/api/v1/works/${WORK}` })).json().data;
    expect(json.year).toBe('1887');
    expect(json.rights.composition.note).toContain('the composition (1887)');
    expect(json.rights.composition.note).not.toContain('1888)');
    expect(json.rights.composition.note).not.toContain('{');
    const md = (await app.inject({ url: `/api/v1/works/${WORK}/index.md` })).body;
    expect(md).toContain('the composition (1887)');
    expect(md).not.toContain('the composition (1888)');
    const html = (await app.inject({ url: `/works/${WORK}/` })).body;
    expect(html).toContain('the composition (1887)');
    expect(html).not.toContain('the composition (1888)');
    expect(await resolveNote()).toContain('the composition (1887)');
  });
});

describe('fact placeholders (pure)', () => {
  const facts = {
    title: 'Gymnopédie No. 1',
    year: '1888',
    workNumber: null,
    composer: { name: 'Erik Satie', born: '1866-05-17', died: '1925-07-01' },
  };
  it('writes the facts in and leaves unknown names as written', () => {
    expect(quoteFacts('{composer} ({born}–{died}) wrote it in {year}{workNumber}.', facts)).toBe(
      'Erik Satie (1866–1925) wrote it in 1888.',
    );
    expect(quoteFacts('{diedd} stays', facts)).toBe('{diedd} stays');
    expect(quoteFacts(null, facts)).toBeNull();
    expect(unknownPlaceholders('{died} and {diedd}')).toEqual(['diedd']);
  });
});
