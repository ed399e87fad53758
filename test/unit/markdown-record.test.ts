/**
 * The Markdown record never carries raw HTML: text from a correction or a contribution (a summary
 * with `<script>`, an `<img onerror>` in a title) is escaped, so a Markdown viewer or an agent
 * that renders `index.md` gets text, not markup. Checked by parsing the record as Markdown (mdast
 * `html` nodes are raw HTML).
 */
import path from 'node:path';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkRehype from 'remark-rehype';
import rehypeStringify from 'rehype-stringify';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildWorkRecord, renderWorkMarkdown, urls } from '../../src/domain/records.ts';
import { buildLlmsFullTxt, buildLlmsTxt } from '../../src/domain/discovery.ts';
import { MCP_TOOL_TEXTS } from '../../src/domain/mcp-tools.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { INJECTED_TEXTS } from '../helpers/hostile-scores.ts';
import { elements, textOf, type HastNode } from '../helpers/hast.ts';

interface Node {
  type: string;
  value?: string;
  children?: Node[];
}
function htmlNodes(node: Node, out: string[] = []): string[] {
  if (node.type === 'html') out.push(node.value ?? '');
  for (const c of node.children ?? []) htmlNodes(c, out);
  return out;
}

describe('the Markdown record', () => {
  it('escapes raw HTML from every text field: no html node when it is parsed', () => {
    const { catalog } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
    const loaded = catalog.works[0]!;
    const hostile = structuredClone(loaded);
    const c = hostile.content as unknown as Record<string, unknown> & { composer: Record<string, unknown> };
    c.title = 'Minuet <img src=x onerror=alert(1)>';
    c.summary = 'A minuet.<script>alert("applied correction")</script>';
    c.instrumentation = '<b>piano</b>';
    c.composer = { ...c.composer, name: '</h1><script>x()</script>' };
    const md = renderWorkMarkdown(
      buildWorkRecord(hostile, catalog, 'https://archive.example.org'),
      '2026-01-01T00:00:00.000Z',
    );
    const tree = unified().use(remarkParse).use(remarkGfm).parse(md) as Node;
    expect(htmlNodes(tree)).toEqual([]);
    expect(md).not.toMatch(/<script|<img|<b>|<\/h1>/);
    // The words are all still there, readable.
    expect(md).toContain('- Summary: A minuet.&lt;script&gt;alert("applied correction")&lt;/script&gt;');
    expect(md).toContain('title: "Minuet \\u003cimg src=x onerror=alert(1)\\u003e"');
    // The untouched record has no html node either, and reads as before where it had no markup.
    const plain = renderWorkMarkdown(
      buildWorkRecord(loaded, catalog, 'https://archive.example.org'),
      '2026-01-01T00:00:00.000Z',
    );
    expect(htmlNodes(unified().use(remarkParse).use(remarkGfm).parse(plain) as Node)).toEqual([]);
    expect(plain).toContain(`# ${loaded.content.title} — `);
  });
});

/** Keys whose values are structured (ids, digests, enums, dates, URLs): the rest is text from people. */
const STRUCTURED = new Set([
  'slug',
  'id',
  'file',
  'blob',
  'sha256',
  'mediaType',
  'kind',
  'access',
  'reviewState',
  'status',
  'born',
  'died',
  'checkedAtUtc',
  'postedAtUtc',
  'duration',
  'intendedRole',
  'alsoSuits',
  'instruments',
  'renderingProfileSlugs',
  'type',
  'arrangementId',
  'assetId',
  'wikidataId',
  'genre',
  'period',
  'license',
  'byteLength',
  'bars',
]);
const URL_KEYS = new Set(['url', 'sourcePageUrl', 'evidenceUrls']);

/** Replace every person-written string under `value` with hostile Markdown, every URL with a tricky https one. */
function poison(value: unknown, key: string, n: { i: number; urls: string[] }): unknown {
  if (typeof value === 'string') {
    if (URL_KEYS.has(key)) {
      n.urls.push(`https://evil.example/a_(b)*c~d?e=1&f=${n.i++}`);
      return n.urls.at(-1);
    }
    if (STRUCTURED.has(key)) return value;
    return INJECTED_TEXTS[n.i++ % INJECTED_TEXTS.length];
  }
  if (Array.isArray(value)) return value.map((v) => poison(v, key, n));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v, k, n)]));
  return value;
}

describe('the Markdown record rendered by an ordinary Markdown stack', () => {
  it('carries no link, image or autolink its text did not mean: no javascript: or data: URL, every link says where it goes', () => {
    const { catalog } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
    // The richest work of the sample: arrangements, assets, comments and videos all carry text.
    const loaded = [...catalog.works].sort(
      (a, b) => JSON.stringify(b.content).length - JSON.stringify(a.content).length,
    )[0]!;
    const hostile = structuredClone(loaded);
    // Movement titles are text from people too (a work kept as one score per movement).
    (hostile.content as { movements?: { number: number; title: string }[] }).movements = [
      { number: 1, title: 'Allegro' },
      { number: 2, title: 'Adagio' },
    ];
    const n = { i: 0, urls: [] as string[] };
    (hostile as { content: unknown }).content = poison(hostile.content, '', n);
    expect(n.i).toBeGreaterThan(40);
    const md = renderWorkMarkdown(
      buildWorkRecord(hostile, catalog, 'https://archive.example.org'),
      '2026-01-01T00:00:00.000Z',
    );
    for (const gfm of [true, false]) {
      // Raw HTML passed through, as a careless renderer would: it must find none to pass.
      const processor = gfm
        ? unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true })
        : unified().use(remarkParse).use(remarkRehype, { allowDangerousHtml: true });
      const hast = processor.runSync(processor.parse(md)) as unknown as HastNode;
      const html = String(
        unified()
          .use(rehypeStringify, { allowDangerousHtml: true })
          .stringify(hast as never),
      );
      expect(html).not.toMatch(/<img|<script|<iframe/i);
      const all = elements(hast);
      // No attribute anywhere carries a script or data URL, nor a handler.
      for (const e of all)
        for (const [name, value] of Object.entries(e.properties ?? {})) {
          expect(name, `${e.tagName} ${name}`).not.toMatch(/^on/i);
          expect(String(value), `${e.tagName} ${name}`).not.toMatch(/^\s*(javascript|data|vbscript):/i);
        }
      expect(all.filter((e) => e.tagName === 'img')).toEqual([]);
      expect(all.filter((e) => e.type === 'raw')).toEqual([]);
      for (const a of all.filter((e) => e.tagName === 'a')) {
        const href = String(a.properties?.href ?? '');
        expect(href, href).toMatch(/^(https:\/\/|http:\/\/www\.|mailto:)/);
        // A link's words are its address: nothing disguised as something else.
        expect(href.replace(/^mailto:/, '').replace(/^http:\/\/(?=www\.)/, '')).toBe(textOf(a));
      }
      // The tricky https URLs stay whole links, exactly as given.
      const hrefs = new Set(all.filter((e) => e.tagName === 'a').map((e) => String(e.properties?.href)));
      expect(n.urls.length).toBeGreaterThan(3);
      expect(n.urls.filter((u) => md.includes(u) && !hrefs.has(u))).toEqual([]);
    }
    expect(md).toContain('## Movements');
    // Readable: the injected words are all there as text.
    expect(md).toContain('# \\[t\\](javascript:alert(1)) — ');
    expect(md).toContain('title: "\\u005bt\\u005d(javascript:alert(1))"');
  });
});

describe('llms.txt and llms-full.txt rendered as Markdown', () => {
  it('carry no script or data link (they hold no person-written text: slugs and the archive own words only)', () => {
    const u = urls('https://archive.example.org');
    for (const text of [
      buildLlmsTxt(u, 'satie-gymnopedie-1'),
      buildLlmsFullTxt(
        u,
        MCP_TOOL_TEXTS.map((t) => ({ name: t.name, description: t.description })),
      ),
    ]) {
      const processor = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true });
      const all = elements(processor.runSync(processor.parse(text)) as unknown as HastNode);
      expect(all.filter((e) => e.tagName === 'img')).toEqual([]);
      for (const a of all.filter((e) => e.tagName === 'a'))
        expect(String(a.properties?.href)).toMatch(/^(https:\/\/|http:\/\/www\.|mailto:|#)/);
    }
  });
});
