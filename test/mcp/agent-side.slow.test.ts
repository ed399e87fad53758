/**
 * The agent's side through the public surface: HTTP on a real socket and the MCP SDK's client
 * over Streamable HTTP. Matching by meaning seen through resolve; `Prefer: return=minimal` and
 * its linked full answer; the published vocabulary and where it is linked; the compact MCP
 * resolve_music with an input for the full answer; search_works paging; the size of tools/list;
 * /mcp refusing a cross-site Origin. Answers through `archive.request` are checked against the
 * OpenAPI document.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { archiveWithMcpClient } from './helpers.ts';

const mcp = archiveWithMcpClient('agent-side-test');

const catalogWide = {
  channel: { channelKey: 'sleep-stories', intendedRole: 'music-bed', narrationPresent: true },
  requirements: { mood: 'restful', targetDurationSeconds: 60, requiredFormats: ['mp3'] },
};

const resolveHttp = (body: unknown, headers: Record<string, string> = {}) =>
  mcp.archive.request({
    method: 'POST',
    url: '/api/v1/music/resolve',
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });

const call = (name: string, args: Record<string, unknown> = {}) =>
  mcp.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe('resolve over HTTP', () => {
  it('matches by meaning: "restful" finds the calm beds "calm" finds, and says how', async () => {
    const restful = (await resolveHttp(catalogWide)).json().data;
    const calm = (
      await resolveHttp({ ...catalogWide, requirements: { ...catalogWide.requirements, mood: 'calm' } })
    ).json().data;
    expect(restful.verdict).toBe('reuse');
    const ids = (d: { candidates: { workSlug: string; arrangementId: number; ready: boolean }[] }) =>
      d.candidates.filter((c) => c.ready).map((c) => `${c.workSlug}#${c.arrangementId}`);
    expect(ids(restful)).toEqual(ids(calm));
    const mood = restful.candidates[0].reasons.find((r: { requirement: string }) => r.requirement === 'mood');
    expect(mood.detail).toContain('"restful": synonym of "calm"');
  });

  it('the full answer is the default; Prefer: return=minimal gives the compact one, at most 8,000 bytes, linking the full', async () => {
    const full = await resolveHttp(catalogWide);
    expect(full.headers['preference-applied']).toBeUndefined();
    expect(full.headers.vary).toMatch(/Prefer/);
    const fullData = full.json().data;
    expect(fullData.candidates).toHaveLength(10);
    expect(fullData.candidates[0].reasons.length).toBeGreaterThan(5);

    const compact = await resolveHttp(catalogWide, { prefer: 'return=minimal' });
    expect(compact.statusCode).toBe(200);
    expect(compact.headers['preference-applied']).toBe('return=minimal');
    expect(compact.headers['cache-control']).toBe('no-store');
    expect(Buffer.byteLength(compact.body)).toBeLessThanOrEqual(8000);
    const data = compact.json().data;
    expect(data.candidates).toHaveLength(10);
    expect(data.verdict).toBe(fullData.verdict);
    expect(
      data.candidates.map((c: { workSlug: string; arrangementId: number }) => `${c.workSlug}#${c.arrangementId}`),
    ).toEqual(
      fullData.candidates.map((c: { workSlug: string; arrangementId: number }) => `${c.workSlug}#${c.arrangementId}`),
    );
    expect(data.candidates[0]).toEqual(
      expect.objectContaining({
        ready: true,
        fit: expect.objectContaining({ kind: 'loop', repeats: expect.any(Number) }),
      }),
    );
    expect(data.links.vocabulary).toBe(`${mcp.archive.baseUrl}/api/v1/music/vocabulary`);
    const linked = await mcp.archive.request({ url: new URL(data.links.full).pathname });
    expect(linked.statusCode).toBe(200);
    expect(linked.json().data).toEqual(fullData);

    // Several preferences in one header, any case, as RFC 7240 allows.
    const mixed = await resolveHttp(catalogWide, { prefer: 'respond-async, RETURN=minimal' });
    expect(mixed.headers['preference-applied']).toBe('return=minimal');
    const unknown = await mcp.archive.request({ url: `/api/v1/music/resolve/answers/${'f'.repeat(32)}` });
    expect(unknown.statusCode).toBe(404);
    const bad = await mcp.archive.request({ url: '/api/v1/music/resolve/answers/not-an-id' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].parameter).toBe('id');
  });

  it('publishes the vocabulary, linked from /api/v1, the workflow and llms.txt', async () => {
    const res = await mcp.archive.request({ url: '/api/v1/music/vocabulary' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBeTruthy();
    const doc = res.json().data;
    expect(doc.facetNames).toEqual(['mood', 'style', 'instrumentation']);
    const calm = doc.facets.mood.find((t: { term: string }) => t.term === 'calm');
    expect(calm.synonyms).toContain('restful');
    expect(doc.facets.mood.find((t: { term: string }) => t.term === 'serene').broader).toBe('calm');
    const again = await mcp.archive.request({
      url: '/api/v1/music/vocabulary',
      headers: { 'if-none-match': res.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    const url = `${mcp.archive.baseUrl}/api/v1/music/vocabulary`;
    expect((await mcp.archive.request({ url: '/api/v1' })).json().data.links.vocabulary).toBe(url);
    expect((await mcp.archive.request({ url: '/llms.txt' })).body).toContain(url);
    expect(JSON.stringify((await mcp.archive.request({ url: '/api/v1/music/workflow' })).json())).toContain(url);
    const openapi = (await mcp.archive.request({ url: '/api/v1/openapi.json' })).json();
    expect(openapi.paths['/api/v1/music/vocabulary'].get.operationId).toBe('getVocabulary');
  });
});

describe('resolve and search through the MCP SDK client', () => {
  it('resolve_music is compact by default and full on request; its description links the vocabulary', async () => {
    const { tools } = await mcp.client.listTools();
    const tool = tools.find((t) => t.name === 'resolve_music')!;
    expect(tool.description).toContain('/api/v1/music/vocabulary');
    expect(Object.keys(tool.inputSchema.properties ?? {})).toContain('full');

    const compact = await call('resolve_music', catalogWide);
    expect(compact.isError ?? false).toBe(false);
    const data = (
      compact.structuredContent as { data: { candidates: { failing: string[] }[]; links: { full: string } } }
    ).data;
    expect(data.candidates[0]!.failing).toEqual([]);
    expect(data.links.full).toMatch(/\/api\/v1\/music\/resolve\/answers\/[0-9a-f]{32}$/);
    expect(Buffer.byteLength(JSON.stringify(compact.structuredContent))).toBeLessThanOrEqual(8000);

    const full = await call('resolve_music', { ...catalogWide, full: true });
    const fullData = (full.structuredContent as { data: { candidates: { reasons: unknown[] }[] } }).data;
    expect(fullData.candidates[0]!.reasons.length).toBeGreaterThan(5);
    expect(fullData).toEqual((await resolveHttp(catalogWide)).json().data);
  });

  it('"gloomy", "merry" and "keys" find somber, joyful and piano music through MCP', async () => {
    const first = async (requirements: Record<string, unknown>, role = 'music-bed') =>
      (
        (
          await call('resolve_music', {
            channel: { channelKey: 'mcp-meaning', intendedRole: role },
            requirements: { requiredFormats: [], ...requirements },
            full: true,
          })
        ).structuredContent as {
          data: { verdict: string; candidates: { reasons: { requirement: string; detail: string }[] }[] };
        }
      ).data;
    const gloomy = await first({ mood: 'gloomy' });
    expect(gloomy.candidates[0]!.reasons.find((r) => r.requirement === 'mood')!.detail).toContain(
      'synonym of "somber"',
    );
    const merry = await first({ mood: 'merry' }, 'music-lead');
    expect(merry.verdict).toBe('reuse');
    expect(merry.candidates[0]!.reasons.find((r) => r.requirement === 'mood')!.detail).toContain('synonym of "joyful"');
    const keys = await first({ instrumentation: 'keys' });
    expect(keys.verdict).toBe('reuse');
    expect(keys.candidates[0]!.reasons.find((r) => r.requirement === 'instrumentation')!.detail).toContain(
      'synonym of "keyboard"',
    );
  });

  it('search_works pages its output (10 works unless asked), with a link to the next page', async () => {
    const result = await call('search_works', {});
    const data = (
      result.structuredContent as {
        data: { items: unknown[]; pageSize: number; total: number; links: { next: string | null } };
      }
    ).data;
    expect(data.pageSize).toBe(10);
    expect(data.items).toHaveLength(10);
    expect(data.total).toBeGreaterThan(10);
    expect(data.links.next).toContain('page=2');
    const two = await call('search_works', { page: 2 });
    expect((two.structuredContent as { data: { page: number } }).data.page).toBe(2);
  });

  it('tools/list stays under 30 KB: output schemas by reference, and no schema is repeated whole', async () => {
    const { tools } = await mcp.client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    // Measured 163,799 bytes, then 88,943 (output schemas without prose), before output schemas went by reference.
    expect(bytes).toBeLessThan(30_000);
    const answer = tools.find((t) => t.name === 'answer_information_request')!;
    expect(JSON.stringify(answer.inputSchema).length).toBeLessThan(3000);
    for (const t of tools)
      if (t.name !== 'resolve_music') expect(JSON.stringify(t.outputSchema).length, t.name).toBeLessThan(1000);
    // The one schema inlined is the compact resolve answer an agent reads; the rest name their OpenAPI component.
    expect(JSON.stringify(tools.find((t) => t.name === 'get_work')!.outputSchema)).toContain(
      '/api/v1/openapi.json#/components/schemas/',
    );
  });
});

describe('/mcp and the Origin header', () => {
  // A new connection per request (node:http without an agent): a pooled keep-alive socket the
  // server is closing would turn a POST into ECONNRESET, which is not what is tested here.
  const initialize = (origin?: string) =>
    new Promise<{ status: number; headers: { get(name: string): string | null }; json(): Promise<unknown> }>(
      (resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'origin-test', version: '1' },
          },
        });
        const req = http.request(
          `${mcp.archive.url}/mcp`,
          {
            method: 'POST',
            agent: false,
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'content-length': Buffer.byteLength(body),
              ...(origin ? { origin } : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({
                status: res.statusCode ?? 0,
                headers: { get: (name) => (res.headers[name.toLowerCase()] as string | undefined) ?? null },
                json: async () => JSON.parse(text) as unknown,
              });
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      },
    );

  it('refuses a cross-site Origin with a 403 problem; allows none, its own, and the configured list', async () => {
    const cross = await initialize('https://evil.example');
    expect(cross.status).toBe(403);
    expect(cross.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await cross.json()) as { type: string }).type).toMatch(/\/problems\/origin-not-allowed$/);
    expect((await initialize()).status).toBe(200);
    // Only PUBLIC_BASE_URL's origin and the allow-list: the origin the request was addressed to proves nothing (DNS rebinding).
    expect((await initialize(mcp.archive.url)).status).toBe(403);
    expect((await initialize(mcp.archive.baseUrl)).status).toBe(200);
  });

  it('ARCHIVE_MCP_ALLOWED_ORIGINS admits a listed origin', async () => {
    const { openIntakeApp } = await import('../contributions/helpers.ts');
    const t = await openIntakeApp({}, { ARCHIVE_MCP_ALLOWED_ORIGINS: 'https://app.example.org' });
    try {
      const post = (origin: string) =>
        t.app.inject({
          method: 'POST',
          url: '/mcp',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin },
          payload: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'o', version: '1' } },
          }),
        });
      expect((await post('https://app.example.org')).statusCode).toBe(200);
      expect((await post('https://other.example.org')).statusCode).toBe(403);
    } finally {
      await t.close();
    }
  });
});

describe('the contribution template for a work and an operation', () => {
  it('over HTTP: every operation, for the named work; filled in, each is accepted', async () => {
    const { fillTemplate } = await import('../helpers/filled-template.ts');
    for (const operation of [
      'arrangement',
      'performance',
      'source-score',
      'score-revision',
      'metadata-revision',
      'new-work',
      'rendering-profile',
    ]) {
      const res = await mcp.archive.request({
        url: `/api/v1/music/contributions/template?workSlug=bach-prelude-in-c-bwv-846&operation=${operation}`,
      });
      expect(res.statusCode, res.body).toBe(200);
      const t = res.json();
      expect(t.operation).toBe(operation);
      if (operation !== 'new-work' && operation !== 'rendering-profile')
        expect(t.target.workSlug, operation).toBe('bach-prelude-in-c-bwv-846');
      const filled = fillTemplate(t);
      if (filled.target?.workSlug) filled.target.workSlug = 'bach-prelude-in-c-bwv-846';
      const posted = await mcp.archive.post('/api/v1/music/contributions', {
        ...filled,
        idempotencyKey: `template-${operation}-1`,
      });
      expect(posted.statusCode, `${operation}: ${posted.body}`).toBe(202);
    }
    const performance = (
      await mcp.archive.request({
        url: '/api/v1/music/contributions/template?workSlug=bach-prelude-in-c-bwv-846&operation=performance&arrangementId=2',
      })
    ).json();
    expect(performance.target.arrangementId).toBe(2);
    expect(performance.assets.map((a: { kind: string }) => a.kind)).toEqual(['mp3']);
    const unknown = await mcp.archive.request({ url: '/api/v1/music/contributions/template?workSlug=no-such-work' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errors[0].parameter).toBe('workSlug');
    const bad = await mcp.archive.request({ url: '/api/v1/music/contributions/template?operation=remix' });
    expect(bad.statusCode).toBe(400);

    // The contribution checks: words outside the vocabulary come back as warnings, not refusals.
    const arrangementTemplate = fillTemplate(
      (
        await mcp.archive.request({ url: '/api/v1/music/contributions/template?workSlug=bach-prelude-in-c-bwv-846' })
      ).json(),
    );
    arrangementTemplate.target.workSlug = 'bach-prelude-in-c-bwv-846';
    const warned = await mcp.archive.post('/api/v1/music/contributions', {
      ...arrangementTemplate,
      idempotencyKey: 'template-vocabulary-1',
      arrangement: {
        ...arrangementTemplate.arrangement,
        moods: ['calm', 'calmm'],
        style: 'solo piano, calm',
        instrumentation: 'Piano',
      },
    });
    expect(warned.statusCode, warned.body).toBe(202);
    const warnings = warned.json().data.vocabularyWarnings;
    expect(warnings).toEqual([
      expect.objectContaining({ pointer: '/arrangement/moods/1', nearest: expect.arrayContaining(['calm']) }),
    ]);
  });

  it('through MCP: get_contribution_template takes workSlug and operation', async () => {
    const result = await call('get_contribution_template', {
      workSlug: 'debussy-clair-de-lune',
      operation: 'source-score',
    });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({
      operation: 'source-score',
      target: { workSlug: 'debussy-clair-de-lune' },
    });
    const missing = await call('get_contribution_template', { workSlug: 'no-such-work' });
    expect(missing.isError).toBe(true);
  });
});
