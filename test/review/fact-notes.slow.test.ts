/**
 * Records never go stale: rights are derived from the facts at build time, so once a correction of
 * a person's death year is applied (accept, apply, real rebuild and swap), every work naming them
 * shows the verdict of the new fact on all four surfaces: the JSON record, the Markdown record, the
 * HTML page and the resolve answer. Plus the pure rules of the notes that quote facts by placeholder.
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

describe("a person's corrected death year re-derives every work that names them, in one apply", () => {
  it('JSON, Markdown, HTML and resolve show the derived verdict of the new fact; only the person record changes', async () => {
    const before = (await app.inject({ url: `/api/v1/works/${WORK}` })).json().data;
    expect(before.composer).toMatchObject({ died: '1925-07-01', slug: 'satie-erik' });
    expect(before.rights.territories.EU.status).toBe('public-domain');
    expect(before.rights.composition.note).toContain('Erik Satie (composer) died in 1925');
    expect(await resolveNote()).toContain('Erik Satie (composer) died in 1925');

    // A hypothetical correction (this repository is a test's copy): the composer died in 1960.
    const filed = await post(
      '/api/v1/correction-reports',
      {
        workSlug: WORK,
        targetType: 'composer',
        fieldName: 'died',
        currentValue: '1925-07-01',
        proposedValue: '1960',
        rationale: 'A test correction.',
        evidenceUrl: 'https://example.org/evidence/test-correction',
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
    // Only the person's record changed; every work naming them is derived again.
    const stat = await git(config.contentRepo, ['diff', head, 'main', '--stat']);
    expect(stat).toContain('people/satie-erik.json');
    expect(stat).toContain('1 file changed');

    const json = (await app.inject({ url: `/api/v1/works/${WORK}` })).json().data;
    expect(json.composer.died).toBe('1960');
    expect(json.rights.territories.EU).toMatchObject({ status: 'not-public-domain' });
    expect(json.rights.territories.EU.note).toBe(
      'Not public domain until 2031: life + 70 years of the last surviving author; composer died in 1960.',
    );
    expect(json.rights.composition.status).toBe('unknown');
    expect(json.rights.decidedBy[0]).toMatchObject({
      fact: 'Erik Satie (composer) died in 1960',
      evidenceUrl: 'https://example.org/evidence/test-correction',
      acceptedBy: 'alice',
    });
    expect(json.rights.checkedAtUtc).toBe(json.rights.decidedBy[0].acceptedAtUtc);
    const md = (await app.inject({ url: `/api/v1/works/${WORK}/index.md` })).body;
    expect(md).toContain('composer died in 1960');
    const html = (await app.inject({ url: `/works/${WORK}/` })).body;
    expect(html).toContain('Not public domain until 2031');
    expect(await resolveNote()).toContain('Not public domain in the EU as of');
    const person = (await app.inject({ url: '/api/v1/people/satie-erik' })).json().data;
    expect(person.died).toBe('1960');
    expect(person.works.map((w: { slug: string }) => w.slug)).toEqual([WORK]);
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
