/**
 * /llms.txt by the llmstxt.org convention (H1, summary blockquote, free text, H2 sections that
 * are lists of `[name](url): note` links, an `## Optional` section), every link answering 200;
 * /llms-full.txt with workflow, rules and contract; a Markdown alternate on every work page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await openApp();
});
afterAll(() => t.close());

interface LlmsTxt {
  title: string;
  summary: string;
  sections: { heading: string; links: { name: string; url: string; note: string | null }[] }[];
}

/** A strict reader of the llmstxt.org format: anything out of place throws with its line. */
function parseLlmsTxt(text: string): LlmsTxt {
  const lines = text.split('\n');
  let i = 0;
  const next = () => lines[i++] ?? '';
  const title = /^# (\S.*)$/.exec(next())?.[1];
  if (!title) throw new Error('line 1 must be the H1 title');
  while (lines[i] === '') i++;
  const summary = /^> (\S.*)$/.exec(next())?.[1];
  if (!summary) throw new Error(`line ${i} must be the summary blockquote`);
  // Free text (no headings) until the first H2.
  while (i < lines.length && !lines[i]!.startsWith('## ')) {
    if (/^#/.test(lines[i]!)) throw new Error(`line ${i + 1}: only H2 sections may follow the summary`);
    i++;
  }
  const sections: LlmsTxt['sections'] = [];
  while (i < lines.length) {
    const line = next();
    if (line === '') continue;
    const heading = /^## (\S.*)$/.exec(line)?.[1];
    if (heading) {
      sections.push({ heading, links: [] });
      continue;
    }
    const link = /^- \[([^\]]+)\]\(([^)\s]+)\)(?:: (\S.*))?$/.exec(line);
    if (!link || sections.length === 0)
      throw new Error(`line ${i}: expected "- [name](url): note", got ${JSON.stringify(line)}`);
    sections.at(-1)!.links.push({ name: link[1]!, url: link[2]!, note: link[3] ?? null });
  }
  return { title, summary, sections };
}

describe('/llms.txt', () => {
  it('follows the llmstxt.org structure: H1, summary, H2 link lists with notes, Optional last', async () => {
    const res = await t.request({ url: '/llms.txt' });
    expect(res.statusCode).toBe(200);
    const doc = parseLlmsTxt(res.body);
    expect(doc.title).toBe('Public-Domain Music Archive');
    expect(doc.summary.length).toBeGreaterThan(40);
    expect(doc.sections.length).toBeGreaterThanOrEqual(3);
    expect(doc.sections.at(-1)!.heading).toBe('Optional');
    for (const s of doc.sections) {
      expect(s.links.length, s.heading).toBeGreaterThan(0);
      for (const l of s.links) expect(l.note, l.name).toBeTruthy();
    }
    const urls = doc.sections.flatMap((s) => s.links.map((l) => l.url));
    expect(urls).toEqual(
      expect.arrayContaining([
        `${t.baseUrl}/llms-full.txt`,
        `${t.baseUrl}/api/v1/openapi.json`,
        `${t.baseUrl}/changelog.md`,
      ]),
    );
  });

  it('rejects what is not the format (the reader is strict)', () => {
    expect(() => parseLlmsTxt('Title\n')).toThrow(/H1/);
    expect(() => parseLlmsTxt('# T\n\n> s\n\n## A\n\nsee https://x.test/a\n')).toThrow(/expected/);
    expect(() => parseLlmsTxt('# T\n\n> s\n\n### A\n')).toThrow(/H2/);
  });

  it('every link answers 200', async () => {
    const doc = parseLlmsTxt((await t.request({ url: '/llms.txt' })).body);
    const links = doc.sections.flatMap((s) => s.links);
    expect(links.length).toBeGreaterThanOrEqual(10);
    for (const { url } of links) {
      expect(url.startsWith(`${t.baseUrl}/`), url).toBe(true);
      const res = await t.app.inject({ method: 'GET', url: url.slice(t.baseUrl.length) });
      expect(res.statusCode, url).toBe(200);
    }
  });
});

describe('/llms-full.txt', () => {
  it('holds the workflow, the rules, the versioning policy, the MCP tools and every operation', async () => {
    const res = await t.request({ url: '/llms-full.txt' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const text = res.body;
    for (const heading of [
      '## How to use it',
      '## Resolve music for your channel',
      '## Rules that keep your output publishable',
      '## Caching and back-off',
      '## Keys',
      '## Versioning and deprecation',
      '## MCP server',
      '## Contract: contribution fields',
      '## Contract: every operation',
    ]) {
      expect(text).toContain(heading);
    }
    expect(text).toContain('`submit_contribution`');
    expect(text).toContain('- `idempotencyKey` (required)');
    expect(text).toContain(`POST ${t.baseUrl}/api/v1/music/contributions`);
    expect(text).toMatch(/at least 180 days/);
  });
});

describe('work pages', () => {
  it('every work page links its Markdown record as rel="alternate" type="text/markdown"', async () => {
    const slugs = t.handle.current.catalog.records.slugs();
    expect(slugs.length).toBeGreaterThan(0);
    for (const slug of slugs) {
      const html = (await t.app.inject({ method: 'GET', url: `/works/${slug}/` })).body;
      const md = `${t.baseUrl}/api/v1/works/${slug}/index.md`;
      expect(html, slug).toContain(`<link rel="alternate" type="text/markdown" href="${md}">`);
      expect((await t.app.inject({ method: 'GET', url: md.slice(t.baseUrl.length) })).statusCode, md).toBe(200);
    }
  });
});
