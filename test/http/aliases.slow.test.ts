/**
 * Popular titles and aliases: part of the work model, shown on the JSON,
 * Markdown and HTML pages, matched by catalog search and by resolve's title search, so an agent
 * asking for "Air on the G String" by Bach is offered the work the catalog has, not told to
 * contribute a duplicate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { indexWork } from '../../src/domain/works-query.ts';
import type { WorkRecord, WorkSummary } from '../../src/schemas/work.ts';
import { expectEach } from '../helpers/expect-each.ts';

let t: TestApp;
beforeAll(async () => {
  t = await openApp();
});
afterAll(() => t?.close());

const search = async (query: string) =>
  (await t.request({ url: `/api/v1/works?query=${encodeURIComponent(query)}&pageSize=50` }))
    .json()
    .data.items.map((w: { slug: string }) => w.slug);

async function resolveTitle(title: string, composer: string) {
  const res = await t.request({
    method: 'POST',
    url: '/api/v1/music/resolve',
    payload: {
      title,
      composer,
      channel: { channelKey: 'alias-check', intendedRole: 'music-bed' },
      requirements: { requiredFormats: [] },
    },
    headers: { 'content-type': 'application/json' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('popular titles and aliases', () => {
  it('are in the work record, the Markdown record and the HTML page', async () => {
    const json = (await t.request({ url: '/api/v1/works/bach-air-orchestral-suite-3' })).json().data as WorkRecord;
    expect(json.aliases).toEqual(['Air on the G String', 'Air on a G String']);
    const md = (await t.request({ url: '/api/v1/works/bach-air-orchestral-suite-3/index.md' })).body;
    expect(md).toContain('- Also known as: Air on the G String; Air on a G String');
    const html = (await t.request({ url: '/works/bach-air-orchestral-suite-3/' })).body;
    expect(html).toContain('Also known as: Air on the G String; Air on a G String');
    // A work without aliases has an empty list and no line.
    const plain = (await t.request({ url: '/api/v1/works/satie-gymnopedie-1' })).json().data as WorkRecord;
    expect(plain.aliases).toEqual([]);
    expect((await t.request({ url: '/api/v1/works/satie-gymnopedie-1/index.md' })).body).not.toContain('Also known as');
  });

  it('are matched by catalog search', async () => {
    expect(await search('Air on the G String')).toEqual(['bach-air-orchestral-suite-3']);
    expect(await search('Moonlight Sonata')).toEqual(['beethoven-moonlight-sonata-1']);
    expect(await search('Ode to Joy')).toEqual(['beethoven-symphony-9-ode-to-joy']);
    expect(await search('going home')).toEqual(['dvorak-symphony-9-largo']);
    expect(await search('Freude schoner Gotterfunken')).toEqual(['beethoven-symphony-9-ode-to-joy']);
  });

  it('the linear works filter sees them too (indexWork feeds the query field)', () => {
    const record = {
      title: 'Air',
      originalTitle: null,
      aliases: ['Air on the G String'],
      composer: { name: 'J. S. Bach', sortName: 'Bach', aliases: [] },
      instruments: [],
      arrangements: [],
      workNumber: null,
      catalogNumbers: [],
      genre: '',
      period: '',
      key: null,
      slug: 'x',
    } as unknown as WorkRecord;
    expect(indexWork(record, {} as WorkSummary, new Map()).all).toContain('air on the g string');
  });

  it('are matched by resolve: "Air on the G String" by Bach is the catalog work, not a new work', async () => {
    for (const [title, composer, slug] of [
      ['Air on the G String', 'Bach', 'bach-air-orchestral-suite-3'],
      ['Moonlight Sonata', 'Beethoven', 'beethoven-moonlight-sonata-1'],
      ['Ode to Joy', 'Beethoven', 'beethoven-symphony-9-ode-to-joy'],
    ] as const) {
      const answer = await resolveTitle(title, composer);
      expect(answer.search.by, title).toBe('title-composer');
      expect(answer.search.workSlugs, title).toEqual([slug]);
      expect(
        answer.missing.some((m: { what: string }) => m.what === 'work'),
        title,
      ).toBe(false);
      expectEach(answer.candidates as Array<{ workSlug: string }>, (c) => c.workSlug === slug);
    }
  });
});
