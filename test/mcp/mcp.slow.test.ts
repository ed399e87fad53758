/**
 * The MCP server through the SDK's own client over both transports (Streamable HTTP at /mcp on
 * the archive, stdio through `npm run mcp`'s entry point pointed at the same archive): the tool
 * list, every tool against a real server, refusals as tool errors with the problem detail, and
 * work records as resources.
 */
import { fillTemplate } from '../helpers/filled-template.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { listenArchive, mcpClient, type ListeningArchive, type McpTransport } from './helpers.ts';
import { openIntakeApp, validReport } from '../contributions/helpers.ts';
import type { AddressInfo } from 'node:net';
import { MCP_SERVER_NAME, MCP_SERVER_VERSION } from '../../api/mcp/server.ts';
import { expectEach } from '../helpers/expect-each.ts';

const TOOL_NAMES = [
  'answer_information_request',
  'get_contribution_template',
  'get_submission_status',
  'get_work',
  'list_instruments',
  'list_profiles',
  'resolve_music',
  'search_works',
  'submit_contribution',
  'submit_correction_report',
];
/** The tools that submit something; every other tool only reads. */
const WRITING = ['answer_information_request', 'submit_contribution', 'submit_correction_report'];
const READ_ONLY = TOOL_NAMES.filter((name) => !WRITING.includes(name));

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The problem detail a refused tool call carries. */
function problemOf(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const block = result.content.find((c) => c.type === 'text' && c.text.startsWith('{'));
  expect(block, JSON.stringify(result.content)).toBeDefined();
  return JSON.parse((block as { text: string }).text) as Record<string, unknown>;
}

describe.each<McpTransport>(['streamable-http', 'stdio'])('MCP over %s', (kind) => {
  let archive: ListeningArchive;
  let client: Client;
  beforeAll(async () => {
    // Three contributions per window: the third call over the limit must surface as a tool error.
    archive = await listenArchive({ contributions: '3/600', reports: '5/600' });
    client = await mcpClient(archive, 'archive-test', kind);
  });
  afterAll(async () => {
    await client?.close();
    await archive?.close();
  });

  it('introduces itself as server.json names it, with instructions', () => {
    const registry = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'server.json'), 'utf8'));
    expect(client.getServerVersion()).toMatchObject({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION });
    expect(registry).toMatchObject({
      name: MCP_SERVER_NAME,
      version: MCP_SERVER_VERSION,
      remotes: [{ type: 'streamable-http', url: 'https://{host}/mcp' }],
    });
    expect(client.getInstructions()).toMatch(/resolve_music/);
  });

  it('lists exactly the archive tools, with TypeBox input schemas, output schemas and read-only hints', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_ONLY.includes(tool.name));
      expect(tool.description, tool.name).toBeTruthy();
    }
    const resolve = tools.find((t) => t.name === 'resolve_music')!;
    expect(Object.keys(resolve.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['channel', 'requirements']),
    );
    const submit = tools.find((t) => t.name === 'submit_contribution')!;
    expect(submit.inputSchema.required).toEqual(expect.arrayContaining(['idempotencyKey']));
  });

  it('reads: resolve_music, search_works, get_work, list_profiles, list_instruments answer what HTTP answers', async () => {
    const resolved = await call(client, 'resolve_music', {
      workSlug: 'pachelbel-canon-in-d',
      channel: { channelKey: 'calm-history', intendedRole: 'music-bed', narrationPresent: true },
      requirements: { requiredFormats: ['mp3'] },
    });
    expect(resolved.isError ?? false).toBe(false);
    expect((resolved.structuredContent as { data: { verdict: string } }).data.verdict).toMatch(
      /^(reuse|prepare|no-music)$/,
    );

    const search = await call(client, 'search_works', { composer: 'satie', pageSize: 5 });
    const page = (search.structuredContent as { data: { items: { slug: string }[]; pageSize: number } }).data;
    expect(page.pageSize).toBe(5);
    expect(page.items.map((w) => w.slug)).toContain('satie-gymnopedie-1');
    const http = (await archive.request({ url: '/api/v1/works?composer=satie&pageSize=5' })).json();
    expect(page.items).toEqual(http.data.items);

    const work = await call(client, 'get_work', { slug: 'satie-gymnopedie-1' });
    const structured = work.structuredContent as { record: { data: { slug: string } }; markdown: string };
    expect(structured.record.data.slug).toBe('satie-gymnopedie-1');
    expect(structured.markdown).toBe(
      (await archive.request({ url: '/api/v1/works/satie-gymnopedie-1/index.md' })).body,
    );

    const noSlug = await call(client, 'get_work', {});
    expect(noSlug.isError).toBe(true);
    expect(noSlug.content).toEqual([
      { type: 'text', text: 'Invalid arguments: "slug" is required and must be a non-empty string.' },
    ]);

    const missing = await call(client, 'get_work', { slug: 'no-such-work' });
    expect(problemOf(missing)).toMatchObject({ status: 404 });

    const profiles = await call(client, 'list_profiles', { renderReady: true });
    const items = (profiles.structuredContent as { data: { items: { renderReady: boolean }[] } }).data.items;
    expect(items.length).toBeGreaterThan(0);
    expectEach(items, (p) => p.renderReady);

    const instruments = await call(client, 'list_instruments');
    expect(
      (instruments.structuredContent as { data: { instruments: unknown[] } }).data.instruments.length,
    ).toBeGreaterThan(0);

    const badQuery = await call(client, 'search_works', { pageSize: 1000 });
    expect(problemOf(badQuery)).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ parameter: 'pageSize' })],
    });
  });

  it('contribute: template -> refused submission (problem with pointers) -> accepted -> same code on retry -> tracked -> 429 as a tool error', async () => {
    const served = (await call(client, 'get_contribution_template')).structuredContent as Record<string, unknown> & {
      assets: Record<string, unknown>[];
    };
    expect(served.idempotencyKey).toMatch(/^REPLACE-/);
    // The untouched template is refused; an agent fills its placeholders first.
    const template = fillTemplate(served);

    // Refused: counts against the allowance like any HTTP submission (1 of 3).
    const refused = await call(client, 'submit_contribution', {
      ...template,
      idempotencyKey: `mcp-${kind}-bad`,
      assets: [{ ...template.assets[0], downloadUrl: 'http://example.org/a.musicxml' }],
    });
    const problem = problemOf(refused);
    expect(problem).toMatchObject({ status: 400, type: expect.stringMatching(/\/problems\/invalid-body$/) });
    expect((problem.errors as { pointer: string }[]).map((e) => e.pointer)).toContain('/assets/0/downloadUrl');

    const body = { ...template, idempotencyKey: `mcp-${kind}-1` };
    const accepted = await call(client, 'submit_contribution', body); // 2 of 3
    expect(accepted.isError ?? false).toBe(false);
    const code = (accepted.structuredContent as { data: { trackingCode: string; status: string } }).data.trackingCode;
    expect(code).toMatch(/^C-/);
    const replay = await call(client, 'submit_contribution', body); // 3 of 3
    expect((replay.structuredContent as { data: { trackingCode: string } }).data.trackingCode).toBe(code);

    const status = await call(client, 'get_submission_status', { trackingCode: code.toLowerCase() });
    expect(status.structuredContent).toMatchObject({
      kind: 'contribution',
      tracking: { data: { trackingCode: code, status: 'pending' } },
    });
    expect((await archive.request({ url: `/api/v1/music/contributions/${code}` })).json().data.trackingCode).toBe(code);

    const limited = await call(client, 'submit_contribution', { ...template, idempotencyKey: `mcp-${kind}-2` });
    expect(problemOf(limited)).toMatchObject({ status: 429, type: expect.stringMatching(/\/problems\/rate-limited$/) });
    expect(limited._meta?.retryAfterSeconds).toBeGreaterThan(0);
    expect(limited.content.some((c) => c.type === 'text' && /Retry after \d+ s/.test(c.text))).toBe(true);
  });

  it('correction reports: submit_correction_report and get_submission_status with an R- code', async () => {
    const report = await call(client, 'submit_correction_report', validReport());
    expect(report.isError ?? false).toBe(false);
    const code = (report.structuredContent as { data: { trackingCode: string } }).data.trackingCode;
    expect(code).toMatch(/^R-/);
    const status = await call(client, 'get_submission_status', { trackingCode: code });
    expect(status.structuredContent).toMatchObject({
      kind: 'correction-report',
      tracking: { data: { trackingCode: code } },
    });

    const bad = await call(client, 'submit_correction_report', { ...validReport(), evidenceUrl: 'not a url' });
    expect((problemOf(bad).errors as { pointer: string }[]).map((e) => e.pointer)).toContain('/evidenceUrl');

    const unknown = await call(client, 'get_submission_status', { trackingCode: 'R-2222-2222-2222-2222' });
    expect(problemOf(unknown)).toMatchObject({ status: 404 });
  });

  it('serves work records as resources in JSON and Markdown', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['archive://works/{slug}']);
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain('archive://works/satie-gymnopedie-1');
    const read = await client.readResource({ uri: 'archive://works/satie-gymnopedie-1' });
    const byType = Object.fromEntries(read.contents.map((c) => [c.mimeType, (c as { text: string }).text]));
    expect(JSON.parse(byType['application/json']!).data.slug).toBe('satie-gymnopedie-1');
    expect(byType['text/markdown']).toBe(
      (await archive.request({ url: '/api/v1/works/satie-gymnopedie-1/index.md' })).body,
    );
    await expect(client.readResource({ uri: 'archive://works/no-such-work' })).rejects.toThrow(/No work record/);
  });
});

describe('Streamable HTTP at /mcp', () => {
  let archive: ListeningArchive;
  beforeAll(async () => {
    archive = await listenArchive();
  });
  afterAll(() => archive?.close());

  it('is stateless: GET answers 405 with Allow: POST', async () => {
    const res = await fetch(`${archive.url}/mcp`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
  });
});

describe('stdio without a running archive', () => {
  it('answers tool calls with an error naming the unreachable archive', async () => {
    const client = new Client({ name: 'archive-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(PROJECT_ROOT, 'scripts', 'mcp.ts')],
        cwd: PROJECT_ROOT,
        env: { PATH: process.env.PATH ?? '', ARCHIVE_BASE_URL: 'http://127.0.0.1:9' },
        stderr: 'pipe',
      }),
    );
    try {
      await client.listTools();
      const result = await call(client, 'list_instruments');
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        { type: 'text', text: expect.stringMatching(/^The archive could not be reached: /) },
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('rate limits through /mcp count per calling client', () => {
  it('an MCP client on ::1 and an HTTP client on 127.0.0.1 have separate allowances', async () => {
    const t = await openIntakeApp({ contributions: '1/600' });
    const client = new Client({ name: 'archive-test', version: '1.0.0' });
    try {
      await t.app.listen({ port: 0, host: '::' });
      const { port } = t.app.server.address() as AddressInfo;
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://[::1]:${port}/mcp`)));
      const template = fillTemplate(
        (await call(client, 'get_contribution_template')).structuredContent as Record<string, unknown>,
      );
      const first = await call(client, 'submit_contribution', { ...template, idempotencyKey: 'per-client-mcp-1' });
      expect(first.isError ?? false).toBe(false);
      // Another address still has its own allowance (the tool did not submit as "the server").
      const http = await fetch(`http://127.0.0.1:${port}/api/v1/music/contributions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...template, idempotencyKey: 'per-client-http-1' }),
      });
      expect(http.status).toBe(202);
      const second = await call(client, 'submit_contribution', { ...template, idempotencyKey: 'per-client-mcp-2' });
      expect(problemOf(second)).toMatchObject({ status: 429 });
    } finally {
      await client.close();
      await t.close();
    }
  });
});
