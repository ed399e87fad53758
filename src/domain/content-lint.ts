/**
 * The content lint of a change (docs/github-review.md): which part of a content repository a set of
 * changed files puts in question, the lint of just that part, each message's line in its YAML or
 * JSON source, and GitHub's `::error file=…,line=…::` workflow commands for annotations.
 *
 * Scope. A work is checked against the shared files (instruments.json, genres.json, profiles/, and
 * the people of people/, whose facts its rights are derived from), so:
 *   - a changed file under `works/<folder>/` puts that work in question (its index.md and the
 *     stored files its assets name);
 *   - a changed shared file puts every work in question (a removed instrument breaks the works
 *     naming it): the whole repository is linted;
 *   - anything else (README.md, .github/) is not content and is not linted.
 * Only messages about the files in question are reported: an error elsewhere was there before
 * the change and is not the change's to answer for.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { loadCatalog, type LintMessage, type LoadResult } from './catalog.ts';
import { trySplitWorkFile } from './work-file.ts';
import { Meaning, buildVocabulary, vocabularyWarnings } from './vocabulary/meaning.ts';

/** Files every work is checked against: a change to one of them re-checks the whole repository. */
export function isSharedContentFile(file: string): boolean {
  return (
    file === 'instruments.json' || file === 'genres.json' || file.startsWith('profiles/') || file.startsWith('people/')
  );
}

export interface LintScope {
  /** True when a shared file changed: every work is linted and every message reported. */
  full: boolean;
  /** Work folders (names under works/) in question, sorted. */
  works: string[];
  /** The changed paths that are content (the rest was ignored), normalized, sorted. */
  files: string[];
}

/** "./works\\x/index.md" -> "works/x/index.md"; null for a path outside the repository. */
export function normalizeContentPath(file: string): string | null {
  const p = path.posix.normalize(file.replace(/\\/g, '/').trim());
  if (p === '' || p === '.' || p.startsWith('../') || p === '..' || p.startsWith('/')) return null;
  return p.replace(/^\.\//, '');
}

/** What a set of changed files (paths relative to the content repository) puts in question. */
export function lintScope(changed: Iterable<string>): LintScope {
  const works = new Set<string>();
  const files = new Set<string>();
  let full = false;
  for (const raw of changed) {
    const file = normalizeContentPath(raw);
    if (!file) continue;
    const m = /^works\/([^/]+)(\/|$)/.exec(file);
    if (m) {
      works.add(m[1]!);
      files.add(file);
    } else if (isSharedContentFile(file)) {
      full = true;
      files.add(file);
    }
  }
  return { full, works: [...works].sort(), files: [...files].sort() };
}

/** A lint message with the line it points at (1-based; 1 when the file as a whole is meant). */
export interface LocatedLintMessage extends LintMessage {
  line: number;
}

export interface ChangeLintResult {
  scope: LintScope;
  /** Messages about the files in question, in the loader's order, each with its line. */
  messages: LocatedLintMessage[];
  /**
   * Arrangement moods, styles and instrumentation outside the vocabulary (vocabulary/meaning.ts),
   * each with the nearest terms: warnings, never a failure (the vocabulary grows with the catalog).
   */
  warnings: LocatedLintMessage[];
  /** Works actually loaded and checked. */
  worksChecked: number;
  /** Profiles and instruments loaded (always all of them). */
  profiles: number;
  instruments: number;
}

/**
 * Lint a content repository. Without `files` (or with `files` undefined) the whole repository,
 * as `npm run lint:content` always did; with `files`, only what they put in question.
 */
export function lintContent(contentDir: string, files?: Iterable<string>): ChangeLintResult {
  const scope: LintScope = files === undefined ? { full: true, works: [], files: [] } : lintScope(files);
  if (!scope.full && scope.works.length === 0)
    return { scope, messages: [], warnings: [], worksChecked: 0, profiles: 0, instruments: 0 };
  const only = scope.full ? undefined : new Set(scope.works);
  const { catalog, messages } = loadCatalog(contentDir, { works: only });
  const inScope = (m: LintMessage) =>
    scope.full || scope.works.some((w) => m.file === `works/${w}` || m.file.startsWith(`works/${w}/`));
  const lines = new LineResolver(contentDir);
  // The archive's own terms and synonyms (WordNet's are mapped at build time; the lint stays offline and small).
  const meaning = new Meaning(
    buildVocabulary(
      {
        instruments: catalog.instruments,
        genres: catalog.genres ?? [...new Set(catalog.works.map((w) => w.content.genre))].map((name) => ({ name })),
        periods: [...new Set(catalog.works.map((w) => w.content.period))],
      },
      null,
    ),
  );
  const warnings = catalog.works.flatMap((w) =>
    w.content.arrangements.flatMap((a, i) =>
      vocabularyWarnings(meaning, a, `/arrangements/${i}`).map((x) => ({
        file: w.file,
        pointer: x.pointer,
        message: x.detail,
      })),
    ),
  );
  return {
    scope,
    warnings: warnings.filter(inScope).map((m) => ({ ...m, line: lines.lineOf(m.file, m.pointer) })),
    messages: messages.filter(inScope).map((m) => ({ ...m, line: m.line ?? lines.lineOf(m.file, m.pointer) })),
    worksChecked: catalog.works.length,
    profiles: catalog.profiles.length,
    instruments: catalog.instruments.length,
  };
}

/** Resolves JSON Pointers to lines, parsing each file at most once. */
class LineResolver {
  private readonly dir: string;
  private readonly parsed = new Map<
    string,
    { contents: Node | null; counter: LineCounter; firstLine: number } | null
  >();

  constructor(dir: string) {
    this.dir = dir;
  }

  private parse(file: string) {
    if (this.parsed.has(file)) return this.parsed.get(file)!;
    let result: { contents: Node | null; counter: LineCounter; firstLine: number } | null = null;
    const abs = path.join(this.dir, file);
    if (existsSync(abs) && statSync(abs).isFile()) {
      const text = readFileSync(abs, 'utf8');
      const source = file.endsWith('.md')
        ? frontMatterSource(text)
        : file.endsWith('.json')
          ? { yaml: text, firstLine: 1 }
          : null;
      if (source) {
        const counter = new LineCounter();
        const doc = parseDocument(source.yaml, { lineCounter: counter, keepSourceTokens: false, uniqueKeys: false });
        result = { contents: doc.contents as Node | null, counter, firstLine: source.firstLine };
      }
    }
    this.parsed.set(file, result);
    return result;
  }

  /** The line of the deepest node on `pointer` that exists (a missing field points at its parent). */
  lineOf(file: string, pointer: string): number {
    const parsed = this.parse(file);
    if (!parsed) return 1;
    const offset = offsetOf(parsed.contents, pointerSegments(pointer));
    if (offset === null) return parsed.firstLine;
    return parsed.firstLine + parsed.counter.linePos(offset).line - 1;
  }
}

/** The YAML between a work file's `---` lines and the file line it starts on (2). */
function frontMatterSource(text: string): { yaml: string; firstLine: number } | null {
  const split = trySplitWorkFile(text);
  return split ? { yaml: split.frontMatter, firstLine: 2 } : null;
}

export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Source offset of the node (for an object member: its key) at the end of `segments`, walking as far as the path exists. */
function offsetOf(root: Node | null, segments: string[]): number | null {
  let node: unknown = root;
  let offset: number | null = root?.range?.[0] ?? null;
  for (const seg of segments) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
      if (!pair) break;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = /^(0|[1-9][0-9]*)$/.test(seg) ? node.items[Number(seg)] : undefined;
      if (!item) break;
      offset = (item as Node).range?.[0] ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset;
}

// GitHub workflow commands (actions/toolkit's command escaping): data escapes %, CR and LF;
// property values also escape ':' and ','.
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * `::error file=<prefix><file>,line=<n>,title=Content lint <pointer>::<message>`: GitHub shows it
 * on that line of the pull request's diff. `prefix` is the content repository's path inside the
 * checked-out repository ("" when the content repository is the repository).
 */
export function githubAnnotation(m: LocatedLintMessage, prefix = ''): string {
  const title = m.pointer ? `Content lint ${m.pointer}` : 'Content lint';
  return `::error file=${escapeProperty(`${prefix}${m.file}`)},line=${m.line},title=${escapeProperty(title)}::${escapeData(m.pointer ? `${m.pointer}: ${m.message}` : m.message)}`;
}

/** "works/x/index.md:7: /composer/died: is not a real calendar date" — the text form with the line. */
export function formatLocatedMessage(m: LocatedLintMessage): string {
  return m.pointer ? `${m.file}:${m.line}: ${m.pointer}: ${m.message}` : `${m.file}:${m.line}: ${m.message}`;
}

/**
 * The work folders of a tree other than the ones a partial copy holds, looked up by slug without
 * case (the one lint rule across works). Built from a list (`otherWorksFrom`) or straight from a
 * git tree's bytes (`otherWorksInTree` in api/site/git-tree.ts), which at 100,000 works is not
 * split into 100,000 strings per proposal.
 */
export interface OtherWorks {
  /** The folder whose name equals `slug` compared without case, if there is one. */
  find(slug: string): string | undefined;
}

/** OtherWorks over a list of folder names. */
export function otherWorksFrom(folders: Iterable<string>): OtherWorks {
  const byLower = new Map<string, string>();
  for (const folder of folders) byLower.set(folder.toLowerCase(), folder);
  return { find: (slug) => byLower.get(slug.toLowerCase()) };
}

/**
 * The lint of a proposal written into a partial copy of a content repository (api/review/
 * forge-local.ts): `contentDir` holds every shared file (instruments.json, genres.json,
 * profiles/) and only the work folders the proposal touches; `otherWorks` finds every other work
 * folder of the proposed tree. Per-file rules and the rules against shared files run on the copy
 * as on a whole repository; the one rule across works — a slug unique among all works, compared
 * without case — is checked against those folders (a work's slug must equal its folder name, so an
 * unchanged work's slug is its folder's name). Returns the loader's messages plus any duplicate.
 */
export function lintPartialCopy(contentDir: string, otherWorks: OtherWorks): LintMessage[] {
  return checkPartialCopy(contentDir, otherWorks).messages;
}

/** `lintPartialCopy` with the works it loaded (curator publication reads the work it adds to). */
export function checkPartialCopy(contentDir: string, otherWorks: OtherWorks): LoadResult {
  const { catalog, messages } = loadCatalog(contentDir);
  for (const work of catalog.works) {
    const folder = work.file.split('/')[1]!;
    const other = otherWorks.find(work.content.slug);
    if (other !== undefined && other !== folder)
      messages.push({
        file: work.file,
        pointer: '/slug',
        message: `duplicate slug "${work.content.slug}" (also in works/${other}/index.md)`,
      });
  }
  return { catalog, messages };
}
