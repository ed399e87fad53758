/**
 * POST /api/v1/music/resolve through the front server: answers in the envelope, the accepted
 * media types, every invalid body a 400 problem with pointers, no caching, absolute links.
 * Every answer is checked against the OpenAPI document. Resolve changes nothing, so one app
 * serves the whole file (the OpenAPI checker registers one document per test file).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';

const URL_ = '/api/v1/music/resolve';
let t: TestApp;
beforeAll(async () => {
  t = await openApp();
});
afterAll(() => t.close());

const valid = (over: Record<string, unknown> = {}) => ({
  workSlug: 'pachelbel-canon-in-d',
  channel: { channelKey: 'calm-history', intendedRole: 'music-bed', narrationPresent: true },
  requirements: { requiredFormats: ['mp3'] },
  ...over,
});

async function post(payload: unknown, headers: Record<string, string> = {}) {
  return t.request({
    method: 'POST',
    url: URL_,
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

describe('POST /api/v1/music/resolve answers', () => {
  it('200 in the envelope, not cacheable, with absolute links under the configured base', async () => {
    const res = await post(valid());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.apiVersion).toBe('v1');
    expect(body.generatedAtUtc).toMatch(/Z$/);
    expect(body.data.verdict).toBe('reuse');
    expect(body.data.catalogGeneratedAtUtc).toBe(t.handle.current.generatedAtUtc);
    const first = body.data.candidates[0];
    expect([first.workSlug, first.arrangementId]).toEqual(['pachelbel-canon-in-d', 1]);
    expect(first.formats.find((f: { format: string }) => f.format === 'mp3').download).toMatch(
      new RegExp(`^${t.baseUrl}/works/pachelbel-canon-in-d/files/`),
    );
    expect(body.data.links).toEqual({
      contributionTemplate: `${t.baseUrl}/api/v1/music/contributions/template`,
      contributionSchema: `${t.baseUrl}/api/v1/music/contributions/schema`,
      contributions: `${t.baseUrl}/api/v1/music/contributions`,
      workflow: `${t.baseUrl}/api/v1/music/workflow`,
      works: `${t.baseUrl}/api/v1/works`,
    });
  });

  it('the downloads it names are served', async () => {
    const body = (await post(valid())).json();
    for (const f of body.data.candidates[0].formats as Array<{ download: string }>) {
      const file = await t.request({ url: new URL(f.download).pathname });
      expect(file.statusCode, f.download).toBe(200);
    }
  });

  it('prepare with missing items for an unknown slug; no-music when music is not allowed', async () => {
    const prepare = (await post(valid({ workSlug: 'not-in-the-catalog' }))).json();
    expect(prepare.data.verdict).toBe('prepare');
    expect(prepare.data.missing.map((m: { what: string; operation: string }) => [m.what, m.operation])).toEqual([
      ['work', 'new-work'],
    ]);
    const none = (
      await post(valid({ channel: { channelKey: 'asmr', intendedRole: 'music-bed', musicAllowed: false } }))
    ).json();
    expect(none.data).toMatchObject({ verdict: 'no-music', candidates: [], missing: [] });
  });

  it.each(['text/json', 'application/vnd.example.resolve+json', 'application/json; charset=utf-8'])(
    'accepts %s',
    async (type) => {
      const res = await post(valid(), { 'content-type': type });
      expect(res.statusCode, res.body).toBe(200);
    },
  );

  it('415 for another media type, 400 for malformed JSON', async () => {
    const plain = await post(JSON.stringify(valid()), { 'content-type': 'application/xml' });
    expect(plain.statusCode).toBe(415);
    expect(plain.headers['content-type']).toMatch(/^application\/problem\+json/);
    const broken = await post('{"channel": ', {});
    expect(broken.statusCode).toBe(400);
    expect(broken.json().type).toBe(`${t.baseUrl}/problems/malformed-json`);
  });
});

describe('invalid bodies are 400 problems naming every field', () => {
  const long = (n: number) => 'x'.repeat(n);
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['unknown property at the root', valid({ extra: 1 }), ['/extra']],
    [
      'unknown property in channel',
      valid({ channel: { channelKey: 'k', intendedRole: 'music-bed', colour: 'red' } }),
      ['/channel/colour'],
    ],
    [
      'unknown property in requirements',
      valid({ requirements: { requiredFormats: [], tempo: 90 } }),
      ['/requirements/tempo'],
    ],
    [
      'role outside the enumeration',
      valid({ channel: { channelKey: 'k', intendedRole: 'background' } }),
      ['/channel/intendedRole'],
    ],
    ['missing channel and requirements', { workSlug: 'x' }, ['/channel', '/requirements']],
    [
      'missing channelKey, intendedRole and requiredFormats',
      valid({ channel: {}, requirements: {} }),
      ['/channel/channelKey', '/channel/intendedRole', '/requirements/requiredFormats'],
    ],
    [
      'target duration 0',
      valid({ requirements: { requiredFormats: [], targetDurationSeconds: 0 } }),
      ['/requirements/targetDurationSeconds'],
    ],
    [
      'target duration 14401',
      valid({ requirements: { requiredFormats: [], targetDurationSeconds: 14401 } }),
      ['/requirements/targetDurationSeconds'],
    ],
    [
      'target duration not an integer',
      valid({ requirements: { requiredFormats: [], targetDurationSeconds: 1.5 } }),
      ['/requirements/targetDurationSeconds'],
    ],
    [
      'target duration as a string (no coercion)',
      valid({ requirements: { requiredFormats: [], targetDurationSeconds: '60' } }),
      ['/requirements/targetDurationSeconds'],
    ],
    [
      'requiredFormats not an array',
      valid({ requirements: { requiredFormats: 'mp3' } }),
      ['/requirements/requiredFormats'],
    ],
    [
      'a format that is not a string',
      valid({ requirements: { requiredFormats: ['mp3', 3] } }),
      ['/requirements/requiredFormats/1'],
    ],
    [
      'booleans as strings',
      valid({
        channel: { channelKey: 'k', intendedRole: 'intro', musicAllowed: 'false', narrationPresent: 1 },
        requirements: { requiredFormats: [], requireMusicXml: 'yes' },
      }),
      ['/channel/musicAllowed', '/channel/narrationPresent', '/requirements/requireMusicXml'],
    ],
    [
      'every maximum length exceeded at once',
      {
        workSlug: long(161),
        title: long(201),
        composer: long(161),
        channel: {
          channelKey: long(101),
          displayName: long(161),
          audioProfile: long(121),
          intendedRole: 'intro',
          usageNotes: long(601),
        },
        requirements: { style: long(81), instrumentation: long(221), mood: long(121), requiredFormats: [] },
      },
      [
        '/workSlug',
        '/title',
        '/composer',
        '/channel/channelKey',
        '/channel/displayName',
        '/channel/audioProfile',
        '/channel/usageNotes',
        '/requirements/style',
        '/requirements/instrumentation',
        '/requirements/mood',
      ],
    ],
    ['a body that is not an object', [] as unknown as Record<string, unknown>, ['']],
  ];
  for (const [name, body, pointers] of cases) {
    it(name, async () => {
      const res = await post(body);
      expect(res.statusCode, res.body).toBe(400);
      const problem = res.json();
      expect(problem.type).toBe(`${t.baseUrl}/problems/invalid-body`);
      expect(problem.instance).toBe(URL_);
      expect(res.headers['cache-control']).toBe('no-store');
      expect([...new Set(problem.errors.map((e: { pointer: string }) => e.pointer))].sort()).toEqual(
        [...pointers].sort(),
      );
      for (const e of problem.errors) expect(e.detail).toEqual(expect.any(String));
    });
  }

  it('accepts every field at its limit, and null wherever the spec allows it', async () => {
    const at = (n: number) => 'y'.repeat(n);
    const atLimits = {
      workSlug: at(160),
      title: at(200),
      composer: at(160),
      channel: {
        channelKey: at(100),
        displayName: at(160),
        audioProfile: at(120),
        intendedRole: 'outro',
        musicAllowed: true,
        narrationPresent: false,
        usageNotes: at(600),
      },
      requirements: {
        style: at(80),
        instrumentation: at(220),
        mood: at(120),
        targetDurationSeconds: 14400,
        requireMusicXml: false,
        requireApprovedRenderingProfile: false,
        requiredFormats: [at(300)],
      },
    };
    expect((await post(atLimits)).statusCode).toBe(200);
    const nulls = {
      workSlug: null,
      title: null,
      composer: null,
      channel: { channelKey: 'k', displayName: null, audioProfile: null, intendedRole: 'intro', usageNotes: null },
      requirements: {
        style: null,
        instrumentation: null,
        mood: null,
        targetDurationSeconds: null,
        requiredFormats: [],
      },
    };
    const res = await post(nulls);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.search.by).toBe('catalog');
    expect(
      (await post(valid({ requirements: { requiredFormats: ['mp3'], targetDurationSeconds: 1 } }))).statusCode,
    ).toBe(200);
  });
});

describe('the OpenAPI document describes resolve', () => {
  it('declares the body under every JSON media type, and every status it answers', async () => {
    const doc = (await t.request({ url: '/api/v1/openapi.json' })).json();
    const op = doc.paths['/api/v1/music/resolve'].post;
    expect(Object.keys(op.requestBody.content).sort()).toEqual(['application/*+json', 'application/json', 'text/json']);
    expect(op.requestBody.required).toBe(true);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '413', '415', '429']);
    for (const name of ['MusicResolveInput', 'ResolveResult', 'ResolveCandidate', 'MissingItem'])
      expect(doc.components.schemas[name]).toBeDefined();
  });
});
