/**
 * Text from people (a title, a composer's name, a rights note) placed in Markdown that the archive
 * writes (`index.md`, which MCP's `get_work` and the `archive://works/{slug}` resource return as
 * they are): escaped so that any ordinary Markdown renderer shows it as the same text, never as a
 * link, image, autolink, raw HTML or code it did not mean.
 *
 * - `markdownText`: raw HTML made inert (`<` and `>` as `&lt;`/`&gt;`: no tag, no `<scheme:...>`
 *   autolink), and the characters that open links, images, emphasis, code and table cells escaped
 *   with a backslash (`\ [ ] * _ ` ~ |`), on one line. Without `[` no link or image can form,
 *   inline or by reference. A plain `https://...` or `www.` in the text stays text that GFM
 *   renderers show as a link to exactly what it says (as they would anywhere); it can never be a
 *   `javascript:` or `data:` link, nor a link whose words say something else.
 * - `markdownUrl`: a URL a record gives as a link (a source page, evidence): an `https://` URL
 *   with nothing that could end an autolink is written as `<url>`, a link to exactly that URL;
 *   anything else is text.
 * - `yamlString`: a front-matter value: a YAML double-quoted string whose Markdown-active
 *   characters are `\u` escapes, because a renderer that does not know front matter shows those
 *   lines as a heading and would read links in them.
 */

const ACTIVE = /[\\`*_[\]~|]/g;

/** Person-written text as Markdown that renders as exactly that text, on one line. */
export function markdownText(text: string | number): string {
  return String(text)
    .replace(/\r\n?|\n/g, ' ')
    .replace(ACTIVE, (c) => `\\${c}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** An https URL as an autolink to exactly it; anything else as text. */
export function markdownUrl(url: string): string {
  return /^https:\/\/[^\s<>\\\x00-\x1f\x7f]+$/.test(url) ? `<${url}>` : markdownText(url);
}

/** A YAML double-quoted scalar with no character a Markdown renderer would act on. */
export function yamlString(text: string): string {
  return JSON.stringify(text).replace(/[<>[\]*_`~|]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
