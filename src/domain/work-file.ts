/**
 * The work-file format, owned here and only here: `works/<slug>/index.md` is `---`, YAML front
 * matter, `---`, then the Markdown narrative. Reading (the catalog loader, review proposals) parses
 * the YAML with js-yaml's core schema: dates stay strings, and it is about ten times faster than
 * `yaml`, which matters at 10,000 works. Editing (review proposals, library publication) uses
 * `yaml`'s Document API, which rewrites only the nodes whose values changed and keeps the rest of
 * the text, its quoting and comments as they were, so diffs stay small and the body byte-identical.
 */
import jsYaml from 'js-yaml';
import { parseDocument, type Document } from 'yaml';

export interface SplitWorkFile {
  /** The YAML between the two `---` lines (without the line break before the closing one). */
  frontMatter: string;
  /** The line break after the closing `---` ("" when the file ends there). */
  closing: string;
  /** Everything after the closing `---` line, byte for byte. */
  rest: string;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/;

/** Split `---\n<yaml>\n---\n<body>`, or null when the file has no front matter. */
export function trySplitWorkFile(text: string): SplitWorkFile | null {
  const m = FRONT_MATTER.exec(text);
  return m ? { frontMatter: m[1]!, closing: m[2]!, rest: text.slice(m[0].length) } : null;
}

/** Split `---\n<yaml>\n---\n<body>`; throws when the file has no front matter. */
export function splitWorkFile(text: string): SplitWorkFile {
  const split = trySplitWorkFile(text);
  if (!split) throw new Error('the work file has no front matter between "---" lines');
  return split;
}

/**
 * Front matter data and the narrative (trimmed) of a work file. A file without front matter has
 * no data (the schema then names every missing field); invalid YAML throws js-yaml's error.
 */
export function parseWorkFile(text: string): { data: unknown; body: string } {
  const split = trySplitWorkFile(text);
  if (!split) return { data: {}, body: text.trim() };
  const data = jsYaml.load(split.frontMatter, { schema: jsYaml.CORE_SCHEMA });
  return { data: data ?? {}, body: split.rest.trim() };
}

/** Parse front matter the way the catalog loader does (core schema: dates stay strings). */
export function parseFrontMatter(yamlText: string): Record<string, unknown> {
  const data = jsYaml.load(yamlText, { schema: jsYaml.CORE_SCHEMA });
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error('the front matter is not a YAML mapping');
  return data as Record<string, unknown>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

function patch(doc: Document, path: (string | number)[], before: unknown, after: unknown): void {
  if (deepEqual(before, after)) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    const b = before as Record<string, unknown>;
    const a = after as Record<string, unknown>;
    for (const key of Object.keys(a)) {
      if (a[key] === undefined) continue;
      if (b[key] === undefined) doc.setIn([...path, key], a[key]);
      else patch(doc, [...path, key], b[key], a[key]);
    }
    for (const key of Object.keys(b)) if (a[key] === undefined && b[key] !== undefined) doc.deleteIn([...path, key]);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && after.length >= before.length && path.length > 0) {
    before.forEach((item, i) => patch(doc, [...path, i], item, after[i]));
    for (let i = before.length; i < after.length; i++) doc.addIn(path, after[i]);
    return;
  }
  doc.setIn(path, after);
}

/**
 * The work file with its front matter changed from `before` to `after` (both plain data), the
 * body untouched. Unchanged nodes keep their exact text.
 */
export function rewriteWorkFile(text: string, before: Record<string, unknown>, after: Record<string, unknown>): string {
  const { frontMatter, rest } = splitWorkFile(text);
  const doc = parseDocument(frontMatter, { version: '1.2', schema: 'core' });
  patch(doc, [], before, after);
  const yamlText = doc.toString({ lineWidth: 0 }).replace(/\n$/, '');
  return `---\n${yamlText}\n---\n${rest}`;
}

/** A new work file from front matter data and a Markdown body. */
export function newWorkFile(data: Record<string, unknown>, body: string): string {
  const doc = parseDocument('{}', { version: '1.2', schema: 'core' });
  doc.contents = doc.createNode(data) as typeof doc.contents;
  return `---\n${doc.toString({ lineWidth: 0 }).replace(/\n$/, '')}\n---\n\n${body.trim()}\n`;
}

/**
 * The work file with a top-level key of its front matter moved to just after another (a key a
 * rewrite added lands at the end of the mapping): keeps `firstPublished` beside `year`. Unchanged
 * when either key is missing.
 */
export function moveKeyAfter(text: string, key: string, after: string): string {
  const { frontMatter, rest } = splitWorkFile(text);
  const doc = parseDocument(frontMatter, { version: '1.2', schema: 'core' });
  const map = doc.contents as unknown as { items?: Array<{ key: { value?: unknown } | unknown }> };
  const items = map.items;
  if (!Array.isArray(items)) return text;
  const keyOf = (p: { key: unknown }) => (p.key as { value?: unknown } | null)?.value ?? p.key;
  const from = items.findIndex((p) => keyOf(p) === key);
  const to = items.findIndex((p) => keyOf(p) === after);
  if (from < 0 || to < 0 || from === to + 1) return text;
  const [pair] = items.splice(from, 1);
  items.splice(items.findIndex((p) => keyOf(p) === after) + 1, 0, pair!);
  const yamlText = doc.toString({ lineWidth: 0 }).replace(/\n$/, '');
  return `---\n${yamlText}\n---\n${rest}`;
}
