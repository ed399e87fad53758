/**
 * HTML building blocks of the review desk: escaping and the page frame. Every value
 * that reaches a page goes through `esc` (text and attribute values alike), so contributed text
 * is inert; pages carry no inline script or style (the CSP forbids both), only the desk's own
 * stylesheet and one small script file.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escape text for an HTML text node or a quoted attribute value. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/** Marks already-escaped HTML (the only way markup enters a page). */
export interface Html {
  readonly html: string;
}

export const raw = (html: string): Html => ({ html });

/** Template tag: interpolated values are escaped unless they are `Html`; arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return { html: out };
}

function render(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (Array.isArray(v)) return v.map(render).join('');
  if (typeof v === 'object' && 'html' in (v as object) && typeof (v as Html).html === 'string') return (v as Html).html;
  return esc(v);
}

export interface DeskSessionView {
  label: string;
  csrf: string;
}

export interface PageOptions {
  title: string;
  body: Html;
  session?: DeskSessionView | null;
  /** Without JavaScript, reload after this many seconds (apply progress). */
  refreshSeconds?: number;
}

/** The whole document: head (stylesheet, script), skip link, navigation with sign-out, main. */
export function page(options: PageOptions): string {
  const { session } = options;
  const nav = session
    ? html`<nav aria-label="Desk"><ul>
        <li><a href="/admin/queue">Review queue</a></li>
        <li><a href="/">Public site</a></li>
      </ul>
      <form method="post" action="/admin/sign-out" class="sign-out">
        <input type="hidden" name="_csrf" value="${session.csrf}">
        <span>Signed in as <strong>${session.label}</strong></span>
        <button type="submit">Sign out</button>
      </form></nav>`
    : html``;
  const refresh = options.refreshSeconds
    ? html`<noscript><meta http-equiv="refresh" content="${options.refreshSeconds}"></noscript>`
    : html``;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${options.title} · Review desk · Public-Domain Music Archive</title>
<link rel="stylesheet" href="/admin/assets/desk.css">
<script src="/admin/assets/desk.js" defer></script>
${refresh}
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header class="desk-header"><p class="brand">Review desk</p>${nav}</header>
<main id="main" tabindex="-1">
${options.body}
</main>
</body>
</html>
`.html;
}
