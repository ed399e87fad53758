/**
 * Issue 57 through the public surface: HTTP on a loopback socket (and `inject`) and the MCP SDK's
 * client over Streamable HTTP. Briefs in a producer's words (graded matches, narrower and broader
 * terms, production words, negations, "something like X", WordNet noise kept out, words quoted as
 * written); the published vocabulary; the compact answer an agent can act on; tools/list under
 * 30 KB with short text beside structuredContent and Connection: close; the Host allow-list and
 * /mcp Origins against a DNS-rebinding pair.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildLlmsTxt, buildWorkflow } from '../../src/domain/discovery.ts';
import { urls } from '../../src/domain/records.ts';
import { loadConfig, ConfigError } from '../../api/config.ts';
import { hostAllowList, hostName } from '../../api/http/hosts.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { archiveWithMcpClient } from './helpers.ts';
import { expectEach } from '../helpers/expect-each.ts';

const mcp = archiveWithMcpClient('producer-words-test');

interface Candidate {
  workSlug: string;
  arrangementId: number;
  ready: boolean;
  reasons: { requirement: string; passed: boolean; detail: string }[];
}

const resolve = async (role: string, requirements: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await mcp.archive.request({
    method: 'POST',
    url: '/api/v1/music/resolve',
    payload: JSON.stringify({
      channel: { channelKey: 'producer', intendedRole: role },
      requirements: { requiredFormats: [], ...requirements },
    }),
    headers: { 'content-type': 'application/json', ...headers },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { verdict: string; candidates: Candidate[] } & Record<string, unknown>;
};
const key = (c: { workSlug: string; arrangementId: number }) => `${c.workSlug}#${c.arrangementId}`;
const reason = (c: Candidate, requirement: string) => c.reasons.find((r) => r.requirement === requirement)!;

describe('briefs in a producer\u2019s words, over HTTP', () => {
  it('an exact tag ranks above a looser match of equal score ("plain": the "simple" piano sketch first)', async () => {
    const r = await resolve('music-bed', { mood: 'plain' });
    expect(key(r.candidates[0]!)).toBe('pachelbel-canon-in-d#3');
    expect(reason(r.candidates[0]!, 'mood').detail).toContain('"plain": synonym of "simple" (synonym)');
    const looser = r.candidates.find((c) => key(c) === 'bach-prelude-in-c-bwv-846#1')!;
    expect(reason(looser, 'mood').detail).toMatch(
      /"plain": synonym of "simple", a narrower term of "calm" \(two steps\)/,
    );
  });

  it('a narrower word finds the broader tag: "violin" finds a string ensemble, "peaceful" calm beds', async () => {
    const violin = await resolve('music-lead', { instrumentation: 'violin' });
    expect(violin.verdict).toBe('reuse');
    expect(key(violin.candidates[0]!)).toBe('mozart-eine-kleine-nachtmusik#1');
    expect(reason(violin.candidates[0]!, 'instrumentation').detail).toContain('narrower term of "strings"');
    expect((await resolve('music-bed', { mood: 'peaceful' })).verdict).toBe('reuse');
  });

  it('production words: "chilled, laid-back" finds calm beds, "eerie" the dark toccata, "bedtime" the lullaby', async () => {
    expect((await resolve('music-bed', { mood: 'chilled, laid-back' })).verdict).toBe('reuse');
    expect(key((await resolve('intro', { mood: 'eerie, creepy' })).candidates[0]!)).toBe(
      'bach-toccata-and-fugue-d-minor#1',
    );
    expect(key((await resolve('music-sleep-lead', { mood: 'bedtime' })).candidates[0]!)).toBe(
      'brahms-wiegenlied-op-49-no-4#1',
    );
  });

  it('negations are constraints: "no vocals" passes every instrumental bed; "no piano" fails a piano bed', async () => {
    const vocals = await resolve('music-bed', { instrumentation: 'no vocals' });
    expect(vocals.verdict).toBe('reuse');
    expect(reason(vocals.candidates[0]!, 'instrumentation').detail).toContain('without "vocals": kept');
    const strings = await resolve('music-bed', { instrumentation: 'strings, no piano' });
    expect(key(strings.candidates[0]!)).toBe('pachelbel-canon-in-d#1');
    const satie = strings.candidates.find((c) => key(c) === 'satie-gymnopedie-1#1');
    if (satie) expect(reason(satie, 'instrumentation').passed).toBe(false);
    // "Celesta (music-box voice)" is no voice: nothing answers "vocals".
    const sing = await resolve('music-sleep-lead', { instrumentation: 'vocals' });
    expectEach(sing.candidates, (c) => !reason(c, 'instrumentation').passed);
  });

  it('"something like Clair de lune" resolves the work and ranks by closeness to it, saying so', async () => {
    const r = await resolve('music-bed', { style: 'something like Clair de lune' });
    expect(r.verdict).toBe('reuse');
    expect(key(r.candidates[0]!)).toBe('satie-gymnopedie-1#1');
    expect(reason(r.candidates[0]!, 'style').detail).toMatch(/^Like "Clair de lune" \(debussy-clair-de-lune\): shares/);
  });

  it('WordNet noise stays out: "merciful" and "key" match nothing', async () => {
    const merciful = await resolve('music-lead', { mood: 'merciful' });
    expect(merciful.verdict).toBe('prepare');
    expectEach(merciful.candidates, (c) => !reason(c, 'mood').passed);
    const keyWord = await resolve('intro', { style: 'key sting' });
    expectEach(keyWord.candidates, (c) => !reason(c, 'style').passed);
  });

  it('reasons quote the words as written ("Baroque", never "baroqu"); "No. 1" in a title is a catalog number', async () => {
    const r = await resolve('music-bed', { style: 'Baroque' });
    expect(reason(r.candidates[0]!, 'style').detail).toContain('"Baroque": exact');
    expect(JSON.stringify(r)).not.toContain('baroqu"');
    const res = await mcp.archive.request({
      method: 'POST',
      url: '/api/v1/music/resolve',
      payload: JSON.stringify({
        title: 'Canon No. 37',
        composer: 'Pachelbel',
        channel: { channelKey: 'c', intendedRole: 'music-bed' },
        requirements: { requiredFormats: [] },
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.json().data.search.workSlugs).toEqual(['pachelbel-canon-in-d']);
  });
});

describe('the published vocabulary', () => {
  it('has a broader term for every genre and period, production words, and no non-word forms or WordNet noise', async () => {
    const doc = (await mcp.archive.request({ url: '/api/v1/music/vocabulary' })).json().data as {
      facets: Record<
        string,
        { term: string; broader: string | null; synonyms: string[]; related: string[]; wordForms: string[] }[]
      >;
    };
    const style = new Map(doc.facets.style!.map((t) => [t.term, t]));
    for (const genre of ['symphony movement', 'rag', 'lied', 'nocturne', 'canon', 'piano piece', 'violin concerto'])
      expect(style.get(genre)?.broader, genre).toBeTruthy();
    expect(style.get('symphony movement')!.broader).toBe('symphony');
    expect(style.get('rag')!.broader).toBe('ragtime');
    for (const period of [
      'baroque',
      'classical',
      'romantic',
      'impressionist',
      'ragtime',
      'late romantic',
      'early modern',
    ])
      expect(style.get(period)?.broader, period).toBeTruthy();
    expect(doc.facets.style!.some((t) => t.synonyms.includes('rag'))).toBe(false);
    const mood = new Map(doc.facets.mood!.map((t) => [t.term, t]));
    expect(mood.get('relaxed')!.synonyms).toEqual(expect.arrayContaining(['chilled', 'laid-back', 'mellow']));
    expect(mood.get('eerie')!.synonyms).toEqual(expect.arrayContaining(['creepy', 'spooky']));
    expect(mood.get('sleepy')!.synonyms).toEqual(expect.arrayContaining(['bedtime', 'sleep']));
    const all = Object.values(doc.facets).flat();
    const forms = all.flatMap((t) => t.wordForms);
    expect(forms).toContain('energetically');
    for (const bad of ['energeticly', 'hushedly', 'focusedly', 'melancholyly', 'courtlyly'])
      expect(forms).not.toContain(bad);
    const words = new Set(all.flatMap((t) => [...t.synonyms, ...t.related]));
    for (const noise of ['windless', 'cloudless', 'merciful', 'key', 'term', 'condition', 'pianissimo', 'lukewarm'])
      expect(words.has(noise), noise).toBe(false);
  });
});

describe('the compact answer an agent can act on', () => {
  it('gives per candidate the asset id and link of each requested format, license, attribution and territory notes, within 8,000 bytes', async () => {
    const res = await mcp.archive.request({
      method: 'POST',
      url: '/api/v1/music/resolve',
      payload: JSON.stringify({
        channel: { channelKey: 'act', intendedRole: 'music-bed' },
        requirements: { mood: 'calm', requiredFormats: ['musicxml', 'midi'] },
      }),
      headers: { 'content-type': 'application/json', prefer: 'return=minimal' },
    });
    expect(res.headers['preference-applied']).toBe('return=minimal');
    expect(Buffer.byteLength(res.body)).toBeLessThanOrEqual(8000);
    const data = res.json().data as {
      candidates: Array<{
        ready: boolean;
        downloads: { format: string; assetId: number; url: string }[];
        license: string | null;
        attribution: string | null;
        territories: string;
      }>;
    };
    expect(data.candidates.length).toBeGreaterThan(2);
    const ready = data.candidates.filter((c) => c.ready);
    expect(ready.length).toBeGreaterThan(0);
    for (const c of ready) {
      expect(c.downloads.map((d) => d.format).sort()).toEqual(['midi', 'musicxml']);
      for (const d of c.downloads) {
        expect(d.assetId).toBeGreaterThan(0);
        expect(d.url).toMatch(/^https:\/\/archive\.example\.test:8443\/works\/.+\/files\//);
      }
      expect(c.license).toBeTruthy();
      expect(c.attribution).toBeTruthy();
      expect(c.territories).toMatch(/US.*EU.*CA/);
    }
  });

  it('llms.txt and the workflow lead with Prefer: return=minimal', () => {
    const u = urls('https://archive.example.test');
    const llms = buildLlmsTxt(u, 'satie-gymnopedie-1');
    const loop = llms.split('\n').find((l) => l.startsWith('The loop:'))!;
    expect(loop).toContain('Prefer: return=minimal');
    expect(loop.indexOf('Prefer: return=minimal')).toBeLessThan(loop.indexOf('"reuse"'));
    const step = buildWorkflow(u).steps.find((s) => s.href === u.resolve)!;
    expect(step.description).toMatch(/^Send your channel .* with the header Prefer: return=minimal/);
    expect(step.description).toContain('download link');
  });
});

describe('MCP that survives a busy mcp.client (SDK mcp.client over HTTP)', () => {
  it('tools/list is under 30 KB; a result carries its data once, with a short summary as text', async () => {
    const { tools } = await mcp.client.listTools();
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(30_000);
    for (const t of tools) expect(t.description!.length, t.name).toBeGreaterThan(80);
    const result = (await mcp.client.callTool({
      name: 'resolve_music',
      arguments: {
        channel: { channelKey: 'mcp-bed', intendedRole: 'music-bed' },
        requirements: { mood: 'chilled', requiredFormats: ['mp3'] },
      },
    })) as CallToolResult;
    const structured = result.structuredContent as {
      data: { verdict: string; candidates: { downloads: unknown[] }[] };
    };
    expect(structured.data.verdict).toBe('reuse');
    expect(structured.data.candidates[0]!.downloads.length).toBe(1);
    expect(result.content).toHaveLength(1);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^reuse: /);
    expect(text.length).toBeLessThan(1000);
    expect(text).not.toContain('"candidates"');
    // The fast tier's catalog has no Markdown records: the instruments list stands for the others.
    const list = (await mcp.client.callTool({ name: 'list_instruments', arguments: {} })) as CallToolResult;
    expect(list.isError ?? false).toBe(false);
    const items = (list.structuredContent as { data: { instruments: unknown[] } }).data.instruments;
    expect(items.length).toBeGreaterThan(5);
    const summary = (list.content[0] as { text: string }).text;
    expect(summary).toMatch(/^\d+ instruments/);
    expect(summary.length).toBeLessThan(400);
  });

  it('/mcp answers with Connection: close', async () => {
    const res = await rawRequest('POST', '/mcp', { host: '127.0.0.1' }, initialize);
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe('close');
  });
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
});

/** A request on a new loopback connection with exactly these headers (Host included), through the server's fast path too. */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(mcp.archive.url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        agent: false,
        setHost: false,
        headers: {
          ...headers,
          ...(body !== undefined
            ? {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                'content-length': String(Buffer.byteLength(body)),
              }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('Host and Origin (DNS rebinding)', () => {
  it('refuses the rebinding pair Host: attacker.test + Origin: http://attacker.test on /mcp, the API and static records', async () => {
    const pair = { host: 'attacker.test', origin: 'http://attacker.test' };
    for (const [method, path, body] of [
      ['POST', '/mcp', initialize],
      ['GET', '/api/v1/works', undefined],
      ['GET', '/api/v1/works/satie-gymnopedie-1', undefined],
    ] as const) {
      const res = await rawRequest(method, path, pair, body);
      expect(res.status, `${method} ${path}`).toBe(421);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      const problem = JSON.parse(res.body) as { type: string; errors: { parameter: string }[] };
      expect(problem.type).toMatch(/\/problems\/host-not-allowed$/);
      expect(problem.errors[0]!.parameter).toBe('Host');
    }
    // The same requests addressed to the service's own name or a loopback name are answered.
    expect(
      (await rawRequest('GET', '/api/v1/works/satie-gymnopedie-1', { host: 'archive.example.test:8443' })).status,
    ).toBe(200);
    expect((await rawRequest('GET', '/api/v1/works', { host: 'localhost' })).status).toBe(200);
  });

  it('/mcp accepts only PUBLIC_BASE_URL\u2019s origin and the allow-list, whatever the Host', async () => {
    const own = await rawRequest(
      'POST',
      '/mcp',
      { host: '127.0.0.1', origin: 'https://archive.example.test:8443' },
      initialize,
    );
    expect(own.status).toBe(200);
    // A page on another local origin: the request is addressed to a loopback name, but the Origin is not the service's.
    const local = await rawRequest('POST', '/mcp', { host: '127.0.0.1', origin: 'http://127.0.0.1:5173' }, initialize);
    expect(local.status).toBe(403);
    expect(JSON.parse(local.body).type).toMatch(/\/problems\/origin-not-allowed$/);
  });

  it('ARCHIVE_ALLOWED_HOSTS admits listed names (and subdomains with a leading dot); a bad entry stops the start', () => {
    const allowed = hostAllowList('https://archive.example.org', ['lan-box', '.example.net']);
    for (const h of [
      'archive.example.org',
      'ARCHIVE.example.org:443',
      'lan-box:4321',
      'a.example.net',
      'localhost:4321',
      '127.0.0.1',
      '[::1]:4321',
    ])
      expect(allowed(h), h).toBe(true);
    for (const h of ['attacker.test', 'example.org', 'archive.example.org.attacker.test', '10.0.0.5:4321'])
      expect(allowed(h), h).toBe(false);
    expect(hostName('[::1]:80')).toBe('::1');
    expect(hostAllowList('https://a.example', ['*'])('anything')).toBe(true);
    expect(() => loadConfig({ ARCHIVE_ALLOWED_HOSTS: 'http://x/y' }, PROJECT_ROOT)).toThrow(ConfigError);
    expect(loadConfig({ ARCHIVE_ALLOWED_HOSTS: 'box, .example.net' }, PROJECT_ROOT).allowedHosts).toEqual([
      'box',
      '.example.net',
    ]);
  });
});
