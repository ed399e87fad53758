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
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildWorkRecord, renderWorkMarkdown } from '../../src/domain/records.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

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
