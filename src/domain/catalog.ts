/**
 * Reads a content repository (works, profiles, instruments) and checks it against the schemas
 * and the cross-file rules. The build, the content lint and the tests all load content here, so
 * a file that fails here never reaches a published record.
 */
import { NOTE_PLACEHOLDERS, unknownPlaceholders } from './fact-notes.ts';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseWorkFile } from './work-file.ts';
import { WorkFile, type AssetContent, type WorkContent } from '../schemas/work.ts';
import { PersonContent } from '../schemas/person.ts';
import { checkPerson, resolveWork } from './people.ts';
import { decodeMusicXml } from './xml-text.ts';
import { InstrumentsFile, ProfileContent, type InstrumentContent } from '../schemas/profile.ts';
import { validate, validatorFor } from './validation.ts';
import { GenresFile, type GenreTerm } from '../schemas/genre.ts';
import { checkPageRights } from './page-rights.ts';

export interface LintMessage {
  /** Path relative to the content repository, with forward slashes. */
  file: string;
  /** JSON Pointer to the field inside the file ("" for the file as a whole). */
  pointer: string;
  message: string;
  /** 1-based line in the file, when the loader knows it directly (a parse error); otherwise resolved from the pointer (src/domain/content-lint.ts). */
  line?: number;
}

export interface StoredFile {
  name: string;
  absolutePath: string;
  sha256: string;
  byteLength: number;
}

export interface LoadedWork {
  content: WorkContent;
  /** Editorial narrative (the Markdown body). */
  body: string;
  file: string;
  /** Files stored beside the work and referenced by its assets, by file name. */
  files: Map<string, StoredFile>;
}

export interface LoadedProfile {
  content: ProfileContent;
  /** The definition bytes exactly as stored. */
  raw: Buffer;
  sha256: string;
  file: string;
}

/** A person of the catalog (people/<slug>.json). */
export interface LoadedPerson {
  content: PersonContent;
  file: string;
}

export interface Catalog {
  works: LoadedWork[];
  /** The people works name (composers, lyricists), in slug order. */
  people: LoadedPerson[];
  profiles: LoadedProfile[];
  instruments: InstrumentContent[];
  /** The genre vocabulary (genres.json); null when the repository keeps none. */
  genres: GenreTerm[] | null;
}

/**
 * Works arrays known to be in the loader's order, each work's slug its folder's name: folder names
 * ascending by code unit, as `readdirSync(...).sort()` gives them (so slug order too). An array
 * enters only where it is made in that order (`loadWorks`, the catalog snapshot's reader, an
 * incremental build's merge of the base's works with the changed ones) and is never changed after,
 * so the builds of the warm process need not walk 100,000 works to learn what their making proved.
 */
const SLUG_ORDERED = Symbol.for('pdma.catalog.slugOrdered');
// On a global shelf: the site's pages are bundled with their own copy of this module, and must see
// the marks of the build that shares its catalog with them.
const slugOrdered = ((globalThis as { [SLUG_ORDERED]?: WeakSet<readonly LoadedWork[]> })[SLUG_ORDERED] ??= new WeakSet<
  readonly LoadedWork[]
>());

/** Mark `works` as in slug order (see `slugOrdered`); its maker vouches for it. */
export function markSlugOrdered<T extends readonly LoadedWork[]>(works: T): T {
  slugOrdered.add(works);
  return works;
}

/** Whether `works` was made in slug order (false: not known, not necessarily out of order). */
export function knownSlugOrdered(works: readonly LoadedWork[]): boolean {
  return slugOrdered.has(works);
}

export interface LoadResult {
  catalog: Catalog;
  messages: LintMessage[];
}

type Report = (file: string, pointer: string, message: string, line?: number) => void;

/** The 1-based line a JSON.parse error names ("... (line 3 column 5)" or "... at position 42"), if any. */
function jsonErrorLine(err: unknown, text: string): number | undefined {
  const message = (err as Error).message;
  const byLine = /\(line (\d+) column \d+\)/.exec(message);
  if (byLine) return Number(byLine[1]);
  const byPosition = /at position (\d+)/.exec(message);
  if (byPosition) return text.slice(0, Number(byPosition[1])).split('\n').length;
  return undefined;
}

/** The 1-based line of a js-yaml error inside a work file's front matter (the file's line 1 is the opening `---`). */
function yamlErrorLine(err: unknown): number | undefined {
  const line = (err as { mark?: { line?: number } }).mark?.line;
  return typeof line === 'number' ? line + 2 : undefined;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** True for a real calendar date "YYYY-MM-DD" (or a bare year). */
export function isRealDate(value: string): boolean {
  if (/^[0-9]{4}$/.test(value)) return true;
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

function parseDuration(text: string): number {
  const [m, s] = text.split(':').map(Number);
  return (m ?? 0) * 60 + (s ?? 0);
}

/** The schemas the loader checks content files against (each with its defaults filled in). */
const CONTENT_SCHEMAS = [WorkFile, PersonContent, ProfileContent, InstrumentsFile, GenresFile];

/**
 * Compile the content schemas' validators now. Compiling them takes about 0.3 s of one thread
 * (WorkFile alone about 0.2 s); a server calls this before it listens, so the first proposal's
 * lint after a start does not hold every request for that long.
 */
export function prepareContentValidators(): void {
  for (const schema of CONTENT_SCHEMAS) validatorFor(schema, { useDefaults: true });
}

/** A JSON array file checked against its schema; every problem is reported and yields []. */
function readJsonArray<T>(abs: string, file: string, schema: Parameters<typeof validate>[0], report: Report): T[] {
  let data: unknown;
  const text = readFileSync(abs, 'utf8');
  try {
    data = JSON.parse(text);
  } catch (err) {
    report(file, '', `is not valid JSON: ${(err as Error).message}`, jsonErrorLine(err, text));
    return [];
  }
  const errors = validate(schema, data, { useDefaults: true });
  for (const e of errors) report(file, e.pointer, e.detail);
  return errors.length > 0 || !Array.isArray(data) ? [] : (data as T[]);
}

function loadInstruments(contentDir: string, report: Report): InstrumentContent[] {
  const file = 'instruments.json';
  const abs = path.join(contentDir, file);
  if (!existsSync(abs)) {
    report(file, '', 'is missing: the content repository needs an instruments.json array');
    return [];
  }
  const instruments = readJsonArray<InstrumentContent>(abs, file, InstrumentsFile, report);
  const seen = new Map<string, number>();
  instruments.forEach((inst, i) => {
    const prev = seen.get(inst.slug);
    if (prev !== undefined)
      report(file, `/${i}/slug`, `duplicate instrument slug "${inst.slug}" (also at /${prev}/slug)`);
    else seen.set(inst.slug, i);
  });
  return instruments;
}

/** genres.json is optional; when present, every work's genre must be one of its terms. */
function loadGenres(contentDir: string, report: Report): GenreTerm[] | null {
  const file = 'genres.json';
  const abs = path.join(contentDir, file);
  if (!existsSync(abs)) return null;
  const terms = readJsonArray<GenreTerm>(abs, file, GenresFile, report);
  const seen = new Map<string, number>();
  terms.forEach((t, i) => {
    const key = t.name.toLowerCase();
    const prev = seen.get(key);
    if (prev !== undefined) report(file, `/${i}/name`, `duplicate genre "${t.name}" (also at /${prev}/name)`);
    else seen.set(key, i);
  });
  return terms;
}

/** Measures in the first part of a MusicXML file (partwise), or null when it cannot tell. */
export function countMusicXmlBars(xml: string): number | null {
  const part = /<part\s[^>]*>([\s\S]*?)<\/part>/.exec(xml);
  if (!part) return null;
  return (part[1]!.match(/<measure[\s>]/g) ?? []).length;
}

function loadProfiles(contentDir: string, instrumentSlugs: Set<string>, report: Report): LoadedProfile[] {
  const dir = path.join(contentDir, 'profiles');
  if (!existsSync(dir)) return [];
  const profiles: LoadedProfile[] = [];
  const seen = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) {
    const file = `profiles/${name}`;
    if (!name.endsWith('.json')) {
      report(file, '', 'is not a profile definition: files in profiles/ must end in .json');
      continue;
    }
    const raw = readFileSync(path.join(dir, name));
    let data: unknown;
    try {
      data = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      report(file, '', `is not valid JSON: ${(err as Error).message}`, jsonErrorLine(err, raw.toString('utf8')));
      continue;
    }
    const errors = validate(ProfileContent, data, { useDefaults: true });
    for (const e of errors) report(file, e.pointer, e.detail);
    if (errors.length > 0) continue;
    const content = data as ProfileContent;
    const expected = name.slice(0, -'.json'.length);
    if (content.slug !== expected)
      report(file, '/slug', `must equal the file name "${expected}" (got "${content.slug}")`);
    const prev = seen.get(content.slug);
    if (prev) report(file, '/slug', `duplicate profile slug "${content.slug}" (also in ${prev})`);
    seen.set(content.slug, file);
    content.instruments.forEach((slug, i) => {
      if (!instrumentSlugs.has(slug))
        report(file, `/instruments/${i}`, `names unknown instrument "${slug}" (not in instruments.json)`);
    });
    const ab = content.approvalBoundary;
    if (content.status === 'approved' && (!ab.approvedBy || !ab.approvedAtUtc)) {
      report(file, '/approvalBoundary', 'an approved profile must name approvedBy and approvedAtUtc');
    }
    profiles.push({ content, raw, sha256: sha256(raw), file });
  }
  return profiles;
}

/**
 * people/<slug>.json, every file (a change loads them all: they are few beside the works, and each
 * work is resolved against them). A content repository without people/ has none.
 */
function loadPeople(contentDir: string, report: Report, unloaded: Set<string>): LoadedPerson[] {
  const dir = path.join(contentDir, 'people');
  if (!existsSync(dir)) return [];
  const people: LoadedPerson[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = `people/${name}`;
    if (!name.endsWith('.json')) {
      report(file, '', 'is not a person record: files in people/ must end in .json');
      continue;
    }
    const text = readFileSync(path.join(dir, name), 'utf8');
    let data: unknown;
    unloaded.add(name.slice(0, -'.json'.length));
    try {
      data = JSON.parse(text);
    } catch (err) {
      report(file, '', `is not valid JSON: ${(err as Error).message}`, jsonErrorLine(err, text));
      continue;
    }
    const errors = validate(PersonContent, data, { useDefaults: true });
    for (const e of errors) report(file, e.pointer, e.detail);
    if (errors.length > 0) continue;
    unloaded.delete(name.slice(0, -'.json'.length));
    const content = data as PersonContent;
    for (const p of checkPerson(content, name.slice(0, -'.json'.length), isRealDate))
      report(file, p.pointer, p.message);
    people.push({ content, file });
  }
  return people;
}

/** Folders of the works index under /works/ (src/lib/site/works-index.ts), so never work slugs. */
export const WORKS_INDEX_RESERVED_SLUGS: readonly string[] = ['by-title', 'by-composer'];

interface WorkContext {
  /** People by slug: each work is resolved against them. */
  people: ReadonlyMap<string, PersonContent>;
  /** People whose record exists but did not load (its own messages say why). */
  unloadedPeople: ReadonlySet<string>;
  /** The year the rights are derived for. */
  asOfYear: number;
  instrumentSlugs: Set<string>;
  profileSlugs: Set<string>;
  /** Genre terms by lower-cased name; null when the repository keeps no vocabulary. */
  genres: Map<string, GenreTerm> | null;
}

function checkWork(work: LoadedWork, folder: string, workDir: string, ctx: WorkContext, report: Report): void {
  const { content, file } = work;
  if (content.slug !== folder) report(file, '/slug', `must equal the folder name "${folder}" (got "${content.slug}")`);
  // The notes an editor writes (the territories' are derived: they quote no placeholders).
  const notes: Array<[string, string | null]> = [
    ['/rightsNote', content.rightsNote],
    ['/rights/composition/note', content.rights.composition.note],
    ['/rights/edition/note', content.rights.edition.note],
    ['/rights/recording/note', content.rights.recording.note],
  ];
  for (const [pointer, note] of notes)
    for (const name of unknownPlaceholders(note))
      report(
        file,
        pointer,
        `names an unknown fact "{${name}}"; a note may quote ${NOTE_PLACEHOLDERS.map((n) => `{${n}}`).join(', ')}`,
      );
  if (WORKS_INDEX_RESERVED_SLUGS.includes(content.slug))
    report(
      file,
      '/slug',
      `"${content.slug}" is reserved for the works index (/works/${content.slug}/); choose another slug`,
    );

  content.instruments.forEach((slug, i) => {
    if (!ctx.instrumentSlugs.has(slug))
      report(file, `/instruments/${i}`, `names unknown instrument "${slug}" (not in instruments.json)`);
  });
  if (ctx.genres) {
    const term = ctx.genres.get(content.genre.toLowerCase());
    if (!term) {
      report(
        file,
        '/genre',
        `"${content.genre}" is not a term of genres.json; use one of its terms, or add this one there with its broader term`,
      );
    } else if (term.name !== content.genre) {
      report(file, '/genre', `must be written "${term.name}" as in genres.json (got "${content.genre}")`);
    }
  }

  // Movements: each number once; a source score names one of them (and only a source score does).
  const movementNumbers = new Set<number>();
  (content.movements ?? []).forEach((m, i) => {
    if (movementNumbers.has(m.number))
      report(file, `/movements/${i}/number`, `is ${m.number}, which another movement has`);
    movementNumbers.add(m.number);
  });
  content.sourceAssets.forEach((a, i) => {
    if (a.movement !== undefined && !movementNumbers.has(a.movement))
      report(file, `/sourceAssets/${i}/movement`, `is ${a.movement}, which /movements does not list`);
  });
  content.arrangements.forEach((arr, i) =>
    arr.assets.forEach((a, j) => {
      if (a.movement !== undefined)
        report(
          file,
          `/arrangements/${i}/assets/${j}/movement`,
          'is for source scores only (the movements of the work)',
        );
    }),
  );

  const assetIds = new Map<number, string>();
  const checkAsset = (asset: AssetContent, pointer: string) => {
    const prev = assetIds.get(asset.id);
    if (prev)
      report(
        file,
        `${pointer}/id`,
        `duplicate asset id ${asset.id} (also at ${prev}); asset ids must be unique within a work`,
      );
    else assetIds.set(asset.id, `${pointer}/id`);
    const sources = [asset.file, asset.url, asset.blob].filter((x) => x !== undefined).length;
    if (sources !== 1) {
      report(
        file,
        pointer,
        'must have exactly one of "file" (stored beside the work), "url" (external HTTPS) or "blob" (SHA-256 in the blob store)',
      );
    }
    if (asset.blob !== undefined && (asset.byteLength === undefined || asset.byteLength === null)) {
      report(file, `${pointer}/byteLength`, 'is required for a blob asset');
    }
    if (asset.blob !== undefined && asset.sha256 && asset.sha256.toLowerCase() !== asset.blob.toLowerCase()) {
      report(file, `${pointer}/sha256`, 'must equal "blob" when both are given');
    }
    if (asset.file !== undefined) {
      const abs = path.join(workDir, asset.file);
      if (!existsSync(abs) || !statSync(abs).isFile()) {
        report(file, `${pointer}/file`, `names a file that does not exist: works/${folder}/${asset.file}`);
      } else if (!work.files.has(asset.file)) {
        const bytes = readFileSync(abs);
        const digest = sha256(bytes);
        if (asset.sha256 && asset.sha256.toLowerCase() !== digest) {
          report(file, `${pointer}/sha256`, `does not match the stored file (file has ${digest})`);
        }
        work.files.set(asset.file, { name: asset.file, absolutePath: abs, sha256: digest, byteLength: bytes.length });
      }
    }
    if (asset.excerpt) {
      const { barCount, totalBars } = asset.excerpt;
      if (totalBars !== null && barCount > totalBars)
        report(file, `${pointer}/excerpt/barCount`, `is ${barCount}, more than totalBars ${totalBars}`);
      const stored = asset.file !== undefined ? work.files.get(asset.file) : undefined;
      if (stored && asset.kind === 'musicxml') {
        let counted: number | null = null;
        try {
          counted = countMusicXmlBars(decodeMusicXml(readFileSync(stored.absolutePath)));
        } catch (err) {
          report(file, `${pointer}/file`, `cannot be read as MusicXML: ${(err as Error).message}`);
        }
        if (counted !== null && counted !== barCount) {
          report(
            file,
            `${pointer}/excerpt/barCount`,
            `is ${barCount}, but works/${folder}/${asset.file} holds ${counted} bars`,
          );
        }
      }
    }
    // A listening verdict is about audio rendered from a score: only scores have one (docs/audio.md).
    if (asset.listening && asset.kind !== 'musicxml' && asset.kind !== 'mxl')
      report(
        file,
        `${pointer}/listening`,
        `is a verdict on audio rendered from a score; a ${asset.kind} asset has none (contributed recordings carry reviewState)`,
      );
  };
  content.sourceAssets.forEach((a, i) => {
    checkAsset(a, `/sourceAssets/${i}`);
    for (const p of checkPageRights(a)) report(file, `/sourceAssets/${i}/${p.field}`, p.message);
  });

  const arrangementIds = new Set<number>();
  content.arrangements.forEach((arr, i) => {
    const p = `/arrangements/${i}`;
    if (arrangementIds.has(arr.id)) report(file, `${p}/id`, `duplicate arrangement id ${arr.id}`);
    arrangementIds.add(arr.id);
    if (parseDuration(arr.duration) !== arr.durationSeconds) {
      report(
        file,
        `${p}/durationSeconds`,
        `disagrees with duration "${arr.duration}" (${parseDuration(arr.duration)} s)`,
      );
    }
    arr.renderingProfileSlugs.forEach((slug, j) => {
      if (!ctx.profileSlugs.has(slug))
        report(file, `${p}/renderingProfileSlugs/${j}`, `names unknown profile "${slug}" (no profiles/${slug}.json)`);
    });
    arr.assets.forEach((a, j) => checkAsset(a, `${p}/assets/${j}`));
  });

  const commentIds = new Set<number>();
  content.comments.forEach((c, i) => {
    if (commentIds.has(c.id)) report(file, `/comments/${i}/id`, `duplicate comment id ${c.id}`);
    commentIds.add(c.id);
    if (c.target.assetId !== undefined && !assetIds.has(c.target.assetId)) {
      report(file, `/comments/${i}/target/assetId`, `names unknown asset ${c.target.assetId}`);
    }
    if (c.target.arrangementId !== undefined && !arrangementIds.has(c.target.arrangementId)) {
      report(file, `/comments/${i}/target/arrangementId`, `names unknown arrangement ${c.target.arrangementId}`);
    }
  });
  const videoIds = new Set<number>();
  content.videos.forEach((v, i) => {
    if (videoIds.has(v.id)) report(file, `/videos/${i}/id`, `duplicate video id ${v.id}`);
    videoIds.add(v.id);
    if (v.arrangementId != null && !arrangementIds.has(v.arrangementId)) {
      report(file, `/videos/${i}/arrangementId`, `names unknown arrangement ${v.arrangementId}`);
    }
  });
}

function loadWorks(contentDir: string, ctx: WorkContext, report: Report, only?: ReadonlySet<string>): LoadedWork[] {
  const dir = path.join(contentDir, 'works');
  if (!existsSync(dir)) {
    report('works', '', 'is missing: the content repository needs a works/ folder');
    return [];
  }
  const works: LoadedWork[] = [];
  const slugs = new Map<string, string>();
  // Whether every work's slug is its folder's name (the folders come sorted): see `slugOrdered`.
  let ordered = true;
  // The named folders only, in the order a listing gives them, without listing the folder: at
  // 100,000 works listing and sorting works/ was most of an apply's load. A name that is not a
  // folder's (a path, a removed work) is one the listing would not have given.
  const folders = only
    ? [...only].filter((f) => f !== '' && f !== '.' && f !== '..' && !/[/\\]/.test(f)).sort()
    : readdirSync(dir).sort();
  for (const folder of folders) {
    const workDir = path.join(dir, folder);
    if (!statSync(workDir, { throwIfNoEntry: false })?.isDirectory()) continue;
    const file = `works/${folder}/index.md`;
    const abs = path.join(workDir, 'index.md');
    if (!existsSync(abs)) {
      report(`works/${folder}`, '', 'has no index.md');
      continue;
    }
    let parsed: { data: unknown; body: string };
    try {
      parsed = parseWorkFile(readFileSync(abs, 'utf8'));
    } catch (err) {
      report(
        file,
        '',
        `has front matter that is not valid YAML: ${(err as Error).message.split('\n')[0]}`,
        yamlErrorLine(err),
      );
      continue;
    }
    const legacy = legacyPeople(parsed.data);
    if (legacy.length > 0) {
      for (const pointer of legacy)
        report(
          file,
          pointer,
          'holds a person\'s facts in the work file; people are records now (people/<slug>.json) and a work names them by slug: run "npm run migrate:people -- <content folder>" once (docs/rights.md)',
        );
      continue;
    }
    const errors = validate(WorkFile, parsed.data, { useDefaults: true });
    for (const e of errors) report(file, e.pointer, e.detail);
    if (errors.length > 0) continue;
    const resolved = resolveWork(parsed.data as WorkFile, ctx.people, ctx.asOfYear);
    for (const p of resolved.problems) {
      // A person whose record is there but fails its own checks is reported there, not again here.
      const named = /^\/(composer|lyricist)$/.test(p.pointer)
        ? (parsed.data as Record<string, unknown>)[p.pointer.slice(1)]
        : null;
      if (typeof named === 'string' && ctx.unloadedPeople.has(named)) continue;
      report(file, p.pointer, p.message);
    }
    if (resolved.content === null) continue;
    // A copy: the parser's strings are slices that keep the whole file text alive, and its objects
    // are larger than fresh ones; the copy halves a loaded work's memory (100,000 works in a build).
    const compact = structuredClone({ content: resolved.content, body: parsed.body });
    const work: LoadedWork = { content: compact.content, body: compact.body, file, files: new Map() };
    const slugKey = work.content.slug.toLowerCase();
    const prev = slugs.get(slugKey);
    if (prev) report(file, '/slug', `duplicate slug "${work.content.slug}" (also in ${prev})`);
    else slugs.set(slugKey, file);
    checkWork(work, folder, workDir, ctx, report);
    if (work.content.slug !== folder) ordered = false;
    works.push(work);
  }
  return ordered ? markSlugOrdered(works) : works;
}

export interface LoadOptions {
  /**
   * Load only these work folders (names under works/; a name no folder has is left out); every
   * shared file (instruments.json, genres.json, profiles/) is still loaded, since the works are
   * checked against them. The content lint of a pull request's changed works uses this, and an
   * incremental build for the works its change touched (build/plan.ts).
   */
  works?: ReadonlySet<string>;
  /** The year the rights are derived for (default: the current UTC year). */
  asOfYear?: number;
}

/** Pointers of a work file that still embeds a person's facts (the format before people were records). */
function legacyPeople(data: unknown): string[] {
  if (data === null || typeof data !== 'object') return [];
  const d = data as Record<string, unknown>;
  const out: string[] = [];
  if (d.composer !== null && typeof d.composer === 'object') out.push('/composer');
  if (d.lyricist !== null && typeof d.lyricist === 'object') out.push('/lyricist');
  return out;
}

/** The year rights are derived for when a caller names none: the current UTC year. */
export function currentRightsYear(): number {
  return new Date().getUTCFullYear();
}

/** Load and check a whole content repository. `messages` is empty when it is publishable. */
export function loadCatalog(contentDir: string, options: LoadOptions = {}): LoadResult {
  const messages: LintMessage[] = [];
  const report: Report = (file, pointer, message, line) =>
    messages.push(line === undefined ? { file, pointer, message } : { file, pointer, message, line });
  const instruments = loadInstruments(contentDir, report);
  const instrumentSlugs = new Set(instruments.map((i) => i.slug));
  const profiles = loadProfiles(contentDir, instrumentSlugs, report);
  const profileSlugs = new Set(profiles.map((p) => p.content.slug));
  const genres = loadGenres(contentDir, report);
  // The first spelling of a term wins; a duplicate is reported above.
  const genreMap = genres ? new Map([...genres].reverse().map((g) => [g.name.toLowerCase(), g])) : null;
  const unloadedPeople = new Set<string>();
  const people = loadPeople(contentDir, report, unloadedPeople);
  const works = loadWorks(
    contentDir,
    {
      people: new Map(people.map((p) => [p.content.slug, p.content])),
      unloadedPeople,
      asOfYear: options.asOfYear ?? currentRightsYear(),
      instrumentSlugs,
      profileSlugs,
      genres: genreMap,
    },
    report,
    options.works,
  );
  return { catalog: { works, people, profiles, instruments, genres }, messages };
}

/** "works/x/index.md: /composer/died: is not a real calendar date" — one line per message. */
export function formatLintMessage(m: LintMessage): string {
  return m.pointer ? `${m.file}: ${m.pointer}: ${m.message}` : `${m.file}: ${m.message}`;
}
