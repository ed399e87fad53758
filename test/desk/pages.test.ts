/**
 * Pure parts of the desk's pages (api/desk/html.ts, api/desk/pages.ts): escaping, the bounded
 * rendering of a submission, the diff's line classes, the queue's links.
 */
import { describe, expect, it } from 'vitest';
import { esc, html, raw } from '../../api/desk/html.ts';
import { diffSection, queueHref, readable } from '../../api/desk/pages.ts';

describe('desk HTML', () => {
  it('escapes text and attribute values; only raw() passes markup', () => {
    expect(esc(`<a href="x" onclick='y'>&\``)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;');
    expect(html`<p title="${'"><b>'}">${'<i>'}${raw('<b>ok</b>')}${['<u>', raw('<s>')]}</p>`.html).toBe(
      '<p title="&quot;&gt;&lt;b&gt;">&lt;i&gt;<b>ok</b>&lt;u&gt;<s></p>',
    );
    expect(html`${null}${undefined}${false}${0}`.html).toBe('0');
  });

  it('renders a submission as nested lists, bounded in depth and width, every string escaped', () => {
    let deep: unknown = '<deepest>';
    for (let i = 0; i < 10; i++) deep = { [`level${i}`]: deep };
    const out = readable({
      title: '<script>x</script>',
      n: 3,
      none: null,
      list: Array.from({ length: 250 }, (_, i) => i),
      deep,
    }).html;
    // Field names are shown as words (labelOf): "title" reads "Title".
    expect(out).toContain('<dt>Title</dt><dd><span class="text">&lt;script&gt;x&lt;/script&gt;</span></dd>');
    expect(out).toContain('<dt>None</dt><dd><span class="none">none</span></dd>');
    expect(out).toContain('… 50 more');
    expect((out.match(/<li>/g) ?? []).length).toBe(201);
    // Past six levels the rest is shown as (escaped) JSON text.
    expect(out).toContain('<code>{&quot;level');
    expect(out).not.toContain('<deepest>');
  });

  it('marks diff lines by kind and says when there is no branch yet', () => {
    const out = diffSection(
      {
        base: 'a'.repeat(40),
        head: 'b'.repeat(40),
        files: [{ path: 'w/<x>.md', added: 1, deleted: 1 }],
        moreFiles: 0,
        text: 'diff --git a/x b/x\n@@ -1 +1 @@\n-old <b>\n+new\n same\n',
        truncated: false,
        maxBytes: 1024,
      },
      'review/C-1',
    ).html;
    expect(out).toContain('<span class="dl del">-old &lt;b&gt;</span>');
    expect(out).toContain('<span class="dl add">+new</span>');
    expect(out).toContain('<span class="dl hunk">@@ -1 +1 @@</span>');
    expect(out).toContain('<code>w/&lt;x&gt;.md</code>');
    expect(diffSection(null, null).html).toContain('No review branch yet');
  });

  it('keeps the filters in the queue links', () => {
    expect(queueHref({ kind: 'contribution', status: '', operation: '', age: 'old-7d', work: 'a b' }, 2)).toBe(
      '/admin/queue?kind=contribution&age=old-7d&work=a+b&page=2',
    );
    expect(queueHref({ kind: '', status: '', operation: '', age: '', work: '' }, 1)).toBe('/admin/queue');
  });
});
