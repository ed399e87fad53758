/**
 * Turns loaded content into the published records: absolute links from the base URL, review
 * labels, digests of stored files, sanitized narrative HTML, and the compact Markdown record.
 * Pure apart from Markdown rendering; the build and the tests call it with the same inputs.
 */
import { quoteFacts, rightsWithFacts } from './fact-notes.ts';
import { declaredWords, measuredDuration, measuredWords } from './audio/arrangement.ts';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkRehype from 'remark-rehype';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import type { AccessLevel } from '../schemas/common.ts';
import type { RenderedAudio } from '../schemas/audio.ts';
import { ACCESS_LEVELS } from '../schemas/common.ts';
import type {
  ArrangementRecord,
  AssetContent,
  AssetRecord,
  WorkContent,
  WorkRecord,
  WorkSummary,
} from '../schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../schemas/profile.ts';
import { knownSlugOrdered, type Catalog, type LoadedProfile, type LoadedWork } from './catalog.ts';
import { reviewStatusLabel } from './review-states.ts';
import { accessMeaning, signedInDownloadUrl, signInUrl } from './access.ts';
import { reuseSummary } from './resolve/catalog.ts';
import { markdownText, markdownUrl, yamlString } from './markdown-text.ts';

/** What "cleared for reuse" means, in words, wherever the count is shown. */
export const REUSE_RULE =
  'A recording counts as cleared for reuse when resolve would offer it: the composition is cleared, the arrangement is listening-approved with its edition and recording rights cleared, and the file is public, listening-approved and rights-cleared.';

const markdownToHtml = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype)
  .use(rehypeSanitize)
  .use(rehypeStringify);

/** Render contributed Markdown to HTML with every script, handler and unsafe URL removed. */
export function renderMarkdown(markdown: string): string {
  return String(markdownToHtml.processSync(markdown));
}

/** Absolute URLs of every public resource, from one base (PUBLIC_BASE_URL, no trailing slash). */
export function urls(baseUrl: string) {
  const base = baseUrl.replace(/\/+$/, '');
  const enc = encodeURIComponent;
  return {
    base,
    apiIndex: `${base}/api/v1`,
    works: `${base}/api/v1/works`,
    work: (slug: string) => `${base}/api/v1/works/${enc(slug)}`,
    workMarkdown: (slug: string) => `${base}/api/v1/works/${enc(slug)}/index.md`,
    workHtml: (slug: string) => `${base}/works/${enc(slug)}/`,
    workFile: (slug: string, file: string) => `${base}/works/${enc(slug)}/files/${enc(file)}`,
    workZip: (slug: string) => `${base}/works/${enc(slug)}/${enc(slug)}.zip`,
    scorePdf: (slug: string, assetId: number) => `${base}/works/${enc(slug)}/score/${assetId}/score.pdf`,
    blob: (sha256: string) => `${base}/blobs/${sha256}`,
    worksByComposer: (name: string) => `${base}/api/v1/works?composer=${enc(name)}`,
    people: `${base}/api/v1/people`,
    person: (slug: string) => `${base}/api/v1/people/${enc(slug)}`,
    personHtml: (slug: string) => `${base}/people/${enc(slug)}/`,
    worksByInstrument: (slug: string) => `${base}/api/v1/works?instrument=${enc(slug)}`,
    profiles: `${base}/api/v1/profiles`,
    profile: (slug: string) => `${base}/api/v1/profiles/${enc(slug)}`,
    profileDefinition: (slug: string) => `${base}/api/v1/profiles/${enc(slug)}/definition`,
    profilesFor: (instrument: string) => `${base}/api/v1/profiles?query=${enc(instrument)}`,
    instruments: `${base}/api/v1/instruments`,
    openapi: `${base}/api/v1/openapi.json`,
    workflow: `${base}/api/v1/music/workflow`,
    resolve: `${base}/api/v1/music/resolve`,
    resolveAnswer: (id: string) => `${base}/api/v1/music/resolve/answers/${enc(id)}`,
    vocabulary: `${base}/api/v1/music/vocabulary`,
    contributions: `${base}/api/v1/music/contributions`,
    contributionSchema: `${base}/api/v1/music/contributions/schema`,
    contributionTemplate: `${base}/api/v1/music/contributions/template`,
    correctionReports: `${base}/api/v1/correction-reports`,
    llms: `${base}/llms.txt`,
    llmsFull: `${base}/llms-full.txt`,
    changelog: `${base}/changelog.md`,
    mcp: `${base}/mcp`,
    problem: (name: string) => `${base}/problems/${enc(name)}`,
  };
}
export type Urls = ReturnType<typeof urls>;

/** What the build made besides the records: which source scores it engraved to a PDF. */
export interface RecordExtras {
  /** Asset ids of this work's source scores that have a rendered PDF. */
  pdfAssetIds?: ReadonlySet<number>;
  /** The archive offers reader sign-in (GitHub OAuth), so signed-in files have a protected link. */
  readerSignIn?: boolean;
  /** Scores' rendered audio by asset id, as records publish it (src/lib/site/audio-record.ts). */
  renderedAudio?: ReadonlyMap<number, RenderedAudio>;
}

function assetRecord(asset: AssetContent, work: LoadedWork, u: Urls, extras: RecordExtras = {}): AssetRecord {
  const stored = asset.file !== undefined ? work.files.get(asset.file) : undefined;
  const slug = work.content.slug;
  const isPublic = asset.access === 'public';
  const readerSignIn = extras.readerSignIn === true;
  const held = asset.file !== undefined || asset.blob !== undefined;
  // Files and blobs this archive holds: public ones at their public links; signed-in ones through
  // the protected download route, and only when the archive signs readers in; admin-only ones
  // get no link. External URLs stay as given.
  const offeredSignedIn = held && asset.access === 'signed-in' && readerSignIn;
  const download = !held
    ? (asset.url ?? null)
    : isPublic
      ? asset.file !== undefined
        ? u.workFile(slug, asset.file)
        : u.blob(asset.blob!.toLowerCase())
      : offeredSignedIn
        ? signedInDownloadUrl(u.base, slug, asset.id)
        : null;
  const signIn = offeredSignedIn ? signInUrl(u.base, `/works/${encodeURIComponent(slug)}/`) : undefined;
  const links: AssetRecord['links'] = { download, sourcePage: asset.sourcePageUrl };
  if (signIn) links.signIn = signIn;
  if (asset.kind === 'musicxml' && download !== null) links.rawMusicXml = download;
  if ((asset.kind === 'musicxml' || asset.kind === 'mxl') && isPublic && extras.pdfAssetIds?.has(asset.id))
    links.pdf = u.scorePdf(slug, asset.id);
  const meaning = accessMeaning(asset.access, { readerSignIn }, signIn);
  return {
    id: asset.id,
    kind: asset.kind,
    title: asset.title,
    mediaType: asset.mediaType,
    sha256: stored?.sha256 ?? asset.blob?.toLowerCase() ?? asset.sha256?.toLowerCase() ?? null,
    byteLength: stored?.byteLength ?? asset.byteLength ?? null,
    rightsStatus: asset.rightsStatus,
    license: asset.license,
    attribution: asset.attribution,
    reviewState: asset.reviewState,
    reviewStatus: reviewStatusLabel(asset.reviewState),
    access: asset.access,
    accessNote: held && !isPublic ? `${meaning} Not published in the public site.` : meaning,
    technicalChecks: asset.technicalChecks ?? null,
    excerpt: asset.excerpt ?? null,
    measured: asset.measured ?? null,
    ...(extras.renderedAudio?.has(asset.id) ? { renderedAudio: extras.renderedAudio.get(asset.id)! } : {}),
    links,
  };
}

export interface PublishedBlob {
  mediaType: string;
  /** A file name for Content-Disposition, from the asset title and kind. */
  fileName: string;
}

/**
 * A work's entries in `publishedBlobs` and `protectedAssets`, once per loaded work: the build
 * makes both catalog-wide maps on every apply, and walking every work's assets again was about
 * 0.35 s per apply at 100,000 works; the warm build process's builds share the loaded works an
 * apply did not change, so only the changed works' assets are walked. Never changed once made.
 */
interface AssetEntries {
  published: ReadonlyArray<readonly [string, PublishedBlob]>;
  protected: ReadonlyArray<readonly [string, ProtectedAsset]>;
}
const NO_ASSET_ENTRIES: AssetEntries = { published: [], protected: [] };
const assetEntriesOfWork = new WeakMap<LoadedWork, AssetEntries>();

function assetEntries(work: LoadedWork): AssetEntries {
  const kept = assetEntriesOfWork.get(work);
  if (kept !== undefined) return kept;
  const slug = work.content.slug;
  const published: Array<readonly [string, PublishedBlob]> = [];
  const restricted: Array<readonly [string, ProtectedAsset]> = [];
  const visit = (a: AssetContent) => {
    if (a.access === 'public') {
      if (a.blob !== undefined)
        published.push([a.blob.toLowerCase(), { mediaType: a.mediaType, fileName: `${slug}-${a.id}.${a.kind}` }]);
      return;
    }
    const fileName = a.file !== undefined ? a.file : `${slug}-${a.id}.${a.kind}`;
    if (a.file !== undefined) {
      const stored = work.files.get(a.file);
      if (!stored) return;
      restricted.push([
        protectedAssetKey(slug, a.id),
        {
          access: a.access,
          mediaType: a.mediaType,
          fileName,
          sha256: stored.sha256,
          byteLength: stored.byteLength,
          file: a.file,
        },
      ]);
    } else if (a.blob !== undefined && typeof a.byteLength === 'number') {
      restricted.push([
        protectedAssetKey(slug, a.id),
        {
          access: a.access,
          mediaType: a.mediaType,
          fileName,
          sha256: a.blob.toLowerCase(),
          byteLength: a.byteLength,
          blob: a.blob.toLowerCase(),
        },
      ]);
    }
  };
  for (const a of work.content.sourceAssets) visit(a);
  for (const arrangement of work.content.arrangements) for (const a of arrangement.assets) visit(a);
  const made =
    published.length === 0 && restricted.length === 0 ? NO_ASSET_ENTRIES : { published, protected: restricted };
  assetEntriesOfWork.set(work, made);
  return made;
}

/** Blobs that public assets reference: the only blobs the front server may serve without a key. */
export function publishedBlobs(catalog: Catalog): Record<string, PublishedBlob> {
  const out: Record<string, PublishedBlob> = {};
  for (const work of catalog.works) for (const [blob, entry] of assetEntries(work).published) out[blob] = entry;
  return out;
}

/** A file this archive holds that is not public: where the protected download route finds it. */
export interface ProtectedAsset {
  access: 'signed-in' | 'admin-only';
  mediaType: string;
  /** A file name for Content-Disposition. */
  fileName: string;
  sha256: string;
  byteLength: number;
  /** A file stored with the work: its path in the content repository's work folder (copied by the build for signed-in files). */
  file?: string;
  /** Or a blob of the blob store. */
  blob?: string;
}

/** Key of a protected asset in the build's manifest: `<slug>/<assetId>`. */
export function protectedAssetKey(slug: string, assetId: number): string {
  return `${slug}/${assetId}`;
}

/**
 * Every stored file or blob whose access is not public (signed-in and admin-only), keyed by
 * `<slug>/<assetId>`. The build writes this beside `client/` (never inside it): the protected
 * download route serves the signed-in ones to signed-in readers and refuses the admin-only ones.
 */
export function protectedAssets(catalog: Catalog): Record<string, ProtectedAsset> {
  const out: Record<string, ProtectedAsset> = {};
  for (const work of catalog.works) for (const [key, entry] of assetEntries(work).protected) out[key] = entry;
  return out;
}

/** Life dates as "1685–1750". */
export function lifeDates(born: string, died: string): string {
  const y = (d: string) => (/^[0-9]{4}/.test(d) ? d.slice(0, 4) : '?');
  return `${y(born)}–${y(died)}`;
}

/** A work's instruments as its record names them (slug, name, family), from the catalog's instruments by slug. */
export function workInstruments(
  slugs: string[],
  instrumentBySlug: ReadonlyMap<string, { name: string; family: string }>,
): WorkRecord['instruments'] {
  return slugs.map((slug) => {
    const inst = instrumentBySlug.get(slug);
    return { slug, name: inst?.name ?? slug, family: inst?.family ?? 'unknown' };
  });
}

export function buildWorkRecord(
  work: LoadedWork,
  catalog: Catalog,
  baseUrl: string,
  extras: RecordExtras = {},
): WorkRecord {
  const u = urls(baseUrl);
  const c = work.content;
  const instrumentBySlug = new Map(catalog.instruments.map((i) => [i.slug, i]));
  const sourceAssets = c.sourceAssets.map((a) => assetRecord(a, work, u, extras));
  const arrangements: ArrangementRecord[] = [...c.arrangements]
    .sort((a, b) => a.rank - b.rank || a.id - b.id)
    .map((arr) => {
      const assets = arr.assets.map((a) =>
        assetRecord(a, work, u, { readerSignIn: extras.readerSignIn, renderedAudio: extras.renderedAudio }),
      );
      return {
        id: arr.id,
        rank: arr.rank,
        title: arr.title,
        style: arr.style,
        instrumentation: arr.instrumentation,
        duration: arr.duration,
        durationSeconds: arr.durationSeconds,
        intendedRole: arr.intendedRole,
        alsoSuits: arr.alsoSuits,
        moods: arr.moods,
        loopable: arr.loopable,
        trimmable: arr.trimmable,
        ...(arr.sections?.length ? { sections: arr.sections } : {}),
        renderingProfileSlugs: arr.renderingProfileSlugs,
        reviewState: arr.reviewState,
        reviewStatus: reviewStatusLabel(arr.reviewState),
        measuredDurationSeconds: measuredDuration(assets)?.seconds ?? null,
        rights: arr.rights,
        notes: arr.notes ?? null,
        formats: [...new Set(arr.assets.map((a) => a.kind))].sort(),
        assets,
      };
    });
  const allAssets = [...sourceAssets, ...arrangements.flatMap((a) => a.assets)];
  const accessRules = ACCESS_LEVELS.map((access: AccessLevel) => ({
    access,
    meaning: accessMeaning(
      access,
      { readerSignIn: extras.readerSignIn === true },
      access === 'signed-in' && extras.readerSignIn
        ? signInUrl(u.base, `/works/${encodeURIComponent(c.slug)}/`)
        : undefined,
    ),
    assetIds: allAssets
      .filter((a) => a.access === access)
      .map((a) => a.id)
      .sort((x, y) => x - y),
  }));
  return {
    slug: c.slug,
    title: c.title,
    originalTitle: c.originalTitle,
    aliases: c.aliases,
    composer: c.composer,
    lyricist: c.lyricist ?? null,
    period: c.period,
    genre: c.genre,
    year: c.year,
    firstPublished: c.firstPublished ?? null,
    publication: c.publication ?? null,
    workNumber: c.workNumber,
    catalogNumbers: c.catalogNumbers,
    summary: c.summary,
    key: c.key,
    instrumentation: c.instrumentation,
    instruments: workInstruments(c.instruments, instrumentBySlug),
    narrative: { markdown: work.body, html: renderMarkdown(work.body) },
    // Notes name the facts they quote by placeholder (src/domain/fact-notes.ts): written in here,
    // so a corrected fact is quoted everywhere the record goes.
    rightsNote: quoteFacts(c.rightsNote, c),
    rights: rightsWithFacts(c.rights, c),
    reuse: { ...reuseSummary({ rights: c.rights, arrangements }), rule: REUSE_RULE },
    // A work kept as one score per movement lists them in order, each with its scores.
    ...(c.movements?.length
      ? {
          movements: [...c.movements]
            .sort((a, b) => a.number - b.number)
            .map((m) => ({
              number: m.number,
              title: m.title,
              assetIds: c.sourceAssets.filter((a) => a.movement === m.number).map((a) => a.id),
            })),
        }
      : {}),
    sourceAssets,
    arrangements,
    comments: c.comments,
    videos: c.videos,
    accessRules,
    links: {
      self: u.work(c.slug),
      markdown: u.workMarkdown(c.slug),
      html: u.workHtml(c.slug),
      filesZip: u.workZip(c.slug),
      collection: u.works,
      composer: u.worksByComposer(c.composer.name),
      ...(c.composer.slug ? { composerRecord: u.person(c.composer.slug) } : {}),
      lyricistRecord: c.lyricist?.slug ? u.person(c.lyricist.slug) : null,
      corrections: u.correctionReports,
      resolve: u.resolve,
    },
  };
}

export function workSummary(record: WorkRecord): WorkSummary {
  return {
    slug: record.slug,
    title: record.title,
    composer: record.composer.name,
    composerLifeDates: lifeDates(record.composer.born, record.composer.died),
    period: record.period,
    genre: record.genre,
    workNumber: record.workNumber,
    summary: record.summary,
    instruments: record.instruments.map((i) => i.slug),
    styles: [...new Set(record.arrangements.map((a) => a.style))],
    arrangementCount: record.arrangements.length,
    links: { self: record.links.self, markdown: record.links.markdown, html: record.links.html },
  };
}

/** The works whose arrangements use a profile, per profile slug, in catalog order. */
export type ProfileUsage = Map<string, Array<{ slug: string; arrangementIds: number[] }>>;

/**
 * Every profile's usage in one pass over the catalog: the site builds every profile's record in
 * each run, and a pass per profile cost about 0.1 s at 10,000 works and eight profiles.
 */
export function profileUsage(catalog: Catalog): ProfileUsage {
  const usage: ProfileUsage = new Map();
  for (const w of catalog.works) {
    for (const [slug, entry] of workProfileUsage(w)) {
      let works = usage.get(slug);
      if (works === undefined) usage.set(slug, (works = []));
      works.push(entry);
    }
  }
  return usage;
}

/**
 * `usage` (of a catalog whose works are in slug order, as the loader reads folders) without the
 * `removed` works and with the `added` ones: the same map `profileUsage` gives for the new
 * catalog when it is in slug order too. Each touched profile's list is a new array; `usage` is not
 * changed. Null when a removed work's entry is not where the order puts it, or an added work's
 * slug is there already (the caller makes the usage afresh).
 */
export function patchProfileUsage(
  usage: ProfileUsage,
  removed: readonly LoadedWork[],
  added: readonly LoadedWork[],
): ProfileUsage | null {
  const touched = new Map<string, Array<{ slug: string; arrangementIds: number[] }>>();
  const listOf = (profile: string) => {
    let list = touched.get(profile);
    if (list === undefined) touched.set(profile, (list = (usage.get(profile) ?? []).slice()));
    return list;
  };
  const at = (list: ReadonlyArray<{ slug: string }>, slug: string) => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.slug < slug) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (const w of removed)
    for (const [profile, entry] of workProfileUsage(w)) {
      const list = listOf(profile);
      const i = at(list, entry.slug);
      if (list[i] !== entry) return null;
      list.splice(i, 1);
    }
  for (const w of added)
    for (const [profile, entry] of workProfileUsage(w)) {
      const list = listOf(profile);
      const i = at(list, entry.slug);
      if (i < list.length && list[i]!.slug === entry.slug) return null;
      list.splice(i, 0, entry);
    }
  const out: ProfileUsage = new Map(usage);
  for (const [profile, list] of touched) {
    if (list.length === 0) out.delete(profile);
    else out.set(profile, list);
  }
  return out;
}

/** Whether a catalog's works are in slug order (code units, as `readdirSync(...).sort()` sorts the folders). */
export function inSlugOrder(works: readonly LoadedWork[]): boolean {
  // Made in that order (at 100,000 works the walk below was 0.05-0.1 s of every apply).
  if (knownSlugOrdered(works)) return true;
  for (let i = 1; i < works.length; i++) if (!(works[i - 1]!.content.slug < works[i]!.content.slug)) return false;
  return true;
}

// A work's part of the usage, once per loaded work (the warm build process's builds share the
// loaded works an apply did not change: making each work's entries again was about 0.2 s per apply
// at 100,000 works). The entries are never changed once made.
const usageOfWork = new WeakMap<
  LoadedWork,
  ReadonlyArray<readonly [string, { slug: string; arrangementIds: number[] }]>
>();

/** Per profile a work's arrangements use (in their order): the work's entry in that profile's usage. */
function workProfileUsage(w: LoadedWork): ReadonlyArray<readonly [string, { slug: string; arrangementIds: number[] }]> {
  let kept = usageOfWork.get(w);
  if (kept !== undefined) return kept;
  kept = [...contentProfileUsage(w.content)];
  usageOfWork.set(w, kept);
  return kept;
}

function contentProfileUsage(content: WorkContent): Map<string, { slug: string; arrangementIds: number[] }> {
  const entries = new Map<string, { slug: string; arrangementIds: number[] }>();
  for (const a of content.arrangements) {
    for (const slug of a.renderingProfileSlugs) {
      let entry = entries.get(slug);
      if (entry === undefined) entries.set(slug, (entry = { slug: content.slug, arrangementIds: [] }));
      // An arrangement naming a profile twice counts once.
      if (entry.arrangementIds[entry.arrangementIds.length - 1] !== a.id) entry.arrangementIds.push(a.id);
    }
  }
  return entries;
}

/**
 * The profiles whose record (`buildProfileRecord`: its usage list and arrangement count) a change
 * of one work from `before` to `now` (null: absent) alters: those whose entry for the work was
 * added, removed or changed. A profile the work uses alike before and after keeps its record
 * byte for byte, whatever else of the work changed.
 */
export function profileRecordsChangedBy(before: WorkContent | null, now: WorkContent | null): string[] {
  const was = before ? contentProfileUsage(before) : new Map<string, { slug: string; arrangementIds: number[] }>();
  const is = now ? contentProfileUsage(now) : new Map<string, { slug: string; arrangementIds: number[] }>();
  const changed: string[] = [];
  for (const [profile, entry] of was) {
    const other = is.get(profile);
    if (!other || other.slug !== entry.slug || other.arrangementIds.join() !== entry.arrangementIds.join())
      changed.push(profile);
  }
  for (const profile of is.keys()) if (!was.has(profile)) changed.push(profile);
  return changed.sort();
}

export function buildProfileRecord(
  profile: LoadedProfile,
  catalog: Catalog,
  baseUrl: string,
  usage: ProfileUsage = profileUsage(catalog),
): ProfileRecord {
  const u = urls(baseUrl);
  const p = profile.content;
  const works = usage.get(p.slug) ?? [];
  return {
    slug: p.slug,
    version: p.version,
    title: p.title,
    kind: p.kind,
    status: p.status,
    summary: p.summary,
    renderReady: p.renderReady,
    instruments: p.instruments,
    approvalBoundary: p.approvalBoundary,
    engine: p.engine,
    catalogUsage: { arrangementCount: works.reduce((n, w) => n + w.arrangementIds.length, 0), works },
    fingerprint: { algorithm: 'sha256', value: profile.sha256, byteLength: profile.raw.length },
    links: { self: u.profile(p.slug), definition: u.profileDefinition(p.slug), collection: u.profiles },
  };
}

/** Works per instrument in one pass over the works (a work naming an instrument twice counts once). */
export function instrumentWorkCounts(works: readonly LoadedWork[]): Map<string, number> {
  return countInstruments(new Map(), works, 1);
}

/** `counts` without the `removed` works and with the `added` ones (a new map; `counts` is not changed). */
export function patchInstrumentWorkCounts(
  counts: ReadonlyMap<string, number>,
  removed: readonly LoadedWork[],
  added: readonly LoadedWork[],
): Map<string, number> {
  const out = countInstruments(new Map(counts), removed, -1);
  countInstruments(out, added, 1);
  for (const [slug, n] of out) if (n === 0) out.delete(slug);
  return out;
}

function countInstruments(counts: Map<string, number>, works: readonly LoadedWork[], by: 1 | -1): Map<string, number> {
  for (const w of works) {
    const named = w.content.instruments;
    for (let i = 0; i < named.length; i++)
      if (named.indexOf(named[i]!) === i) counts.set(named[i]!, (counts.get(named[i]!) ?? 0) + by);
  }
  return counts;
}

/** Every instrument's record; `workCounts` as `instrumentWorkCounts` gives them for the catalog's works. */
export function buildInstrumentRecords(
  catalog: Catalog,
  baseUrl: string,
  workCounts: ReadonlyMap<string, number> = instrumentWorkCounts(catalog.works),
): InstrumentRecord[] {
  const u = urls(baseUrl);
  return [...catalog.instruments]
    .sort((a, b) => a.family.localeCompare(b.family) || a.name.localeCompare(b.name))
    .map((inst) => {
      const profiles = catalog.profiles
        .filter((p) => p.content.instruments.includes(inst.slug))
        .map((p) => ({
          slug: p.content.slug,
          title: p.content.title,
          status: p.content.status,
          renderReady: p.content.renderReady,
          link: u.profile(p.content.slug),
        }));
      const readiness = profiles.some((p) => p.status === 'approved' && p.renderReady)
        ? 'ready'
        : profiles.some((p) => p.status !== 'deprecated')
          ? 'candidate'
          : 'none';
      return {
        slug: inst.slug,
        name: inst.name,
        family: inst.family,
        aliases: inst.aliases,
        profiles,
        readiness,
        workCount: workCounts.get(inst.slug) ?? 0,
        links: { works: u.worksByInstrument(inst.slug), profiles: u.profilesFor(inst.slug) },
      } satisfies InstrumentRecord;
    });
}

/** "Excerpt: bars 1–9 (9 of 78 bars)": a partial score says how much of the work it holds. */
export function excerptWords(e: { bars: string; barCount: number; totalBars: number | null }): string {
  const which = /^\d/.test(e.bars) ? `bars ${e.bars}` : e.bars;
  const count =
    e.totalBars !== null
      ? `${e.barCount} of ${e.totalBars} bars`
      : `${e.barCount} ${e.barCount === 1 ? 'bar' : 'bars'}; the whole work's bar count is not recorded`;
  return `Excerpt: ${which} (${count})`;
}

/** One table cell or list value of person-written text (src/domain/markdown-text.ts); a dash when empty. */
function cell(text: string | number | null | undefined): string {
  if (text === null || text === undefined || text === '') return '—';
  return markdownText(text);
}

/** A URL the record links (a source page, a download, evidence): an autolink to exactly it; a dash when none. */
function urlCell(url: string | null | undefined): string {
  return url ? markdownUrl(url) : '—';
}

/** Measured and declared audio facts, apart, one asset each (docs/audio.md). */
function measuredLines(assets: AssetRecord[]): string[] {
  const lines: string[] = [];
  for (const a of assets) {
    if (!a.measured) continue;
    lines.push(`- Asset ${cell(a.id)} ${cell(measuredWords(a.measured))} ${cell(declaredWords(a.measured))}`);
    if (a.measured.sections.length > 0)
      lines.push(
        `  - Sections: ${cell(a.measured.sections.map((x) => `${x.startSeconds}-${x.endSeconds} s ${x.level}`).join('; '))}`,
      );
    if (a.measured.quietStretches.length > 0)
      lines.push(
        `  - Quiet enough to speak over: ${cell(a.measured.quietStretches.map((x) => `${x.startSeconds}-${x.endSeconds} s`).join('; '))}`,
      );
  }
  return lines.length > 0 ? [...lines, ''] : [];
}

function assetTable(assets: AssetRecord[]): string[] {
  if (assets.length === 0) return ['(none)'];
  const lines = [
    '| id | kind | title | review state | access | rights | license | sha256 | download | source page |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const a of assets) {
    lines.push(
      `| ${cell(a.id)} | ${cell(a.kind)} | ${cell(a.excerpt ? `${a.title}. ${excerptWords(a.excerpt)}` : a.title)} | ${cell(a.reviewState)} (${cell(a.reviewStatus)}) | ${cell(a.access)} | ${cell(a.rightsStatus)} | ${cell(a.license)} | ${cell(a.sha256)} | ${urlCell(a.links.download)} | ${urlCell(a.links.sourcePage)} |`,
    );
  }
  return lines;
}

/**
 * The compact Markdown record: everything an agent must keep with a claim (slug, asset ids,
 * licenses, rights notes, review states, source URLs), in a form that reads well in a prompt.
 */
export function renderWorkMarkdown(record: WorkRecord, generatedAtUtc: string): string {
  const r = record.rights;
  const lines: string[] = [
    '---',
    `slug: ${record.slug}`,
    `title: ${yamlString(record.title)}`,
    `composer: ${yamlString(record.composer.name)}`,
    `apiVersion: v1`,
    `generatedAtUtc: ${generatedAtUtc}`,
    `record: ${record.links.self}`,
    '---',
    '',
    `# ${markdownText(record.title)} — ${markdownText(record.composer.name)} (${lifeDates(record.composer.born, record.composer.died)})`,
    '',
    `- Slug: \`${record.slug}\``,
    ...(record.originalTitle ? [`- Original title: ${cell(record.originalTitle)}`] : []),
    ...(record.lyricist
      ? [
          `- Lyricist: ${cell(record.lyricist.name)} (${lifeDates(record.lyricist.born ?? 'unknown', record.lyricist.died ?? 'unknown')})`,
        ]
      : []),
    ...(record.firstPublished !== null ? [`- First published: ${cell(record.firstPublished)}`] : []),
    `- Catalog: ${cell(record.workNumber)}${record.catalogNumbers.length ? ` (${cell(record.catalogNumbers.map((n) => `${n.catalog} ${n.number}`).join('; '))})` : ''}`,
    `- Year: ${cell(record.year)}; period: ${cell(record.period)}; genre: ${cell(record.genre)}; key: ${cell(record.key)}`,
    `- Instrumentation: ${cell(record.instrumentation)}`,
    ...(record.aliases.length ? [`- Also known as: ${cell(record.aliases.join('; '))}`] : []),
    `- Summary: ${cell(record.summary)}`,
    `- Recordings cleared for reuse: ${record.reuse.recordingsCleared} of ${record.reuse.recordings} (as resolve requires)`,
    '',
    '## Rights',
    '',
    `- Rights note: ${cell(record.rightsNote)}`,
    `- Composition: ${r.composition.status} — ${cell(r.composition.note)}`,
    `- Edition/file: ${r.edition.status} — ${cell(r.edition.note)}`,
    `- Recording: ${r.recording.status} — ${cell(r.recording.note)}`,
    `- Territories: US ${r.territories.US.status} (${cell(r.territories.US.note)}); EU ${r.territories.EU.status} (${cell(r.territories.EU.note)}); CA ${r.territories.CA.status} (${cell(r.territories.CA.note)})`,
    `- License: ${cell(r.license)}; attribution: ${cell(r.attribution)}`,
    `- Checked: ${r.checkedAtUtc}`,
    `- Evidence: ${r.evidenceUrls.map(markdownUrl).join(' ')}`,
    '',
    ...(record.movements?.length
      ? [
          '## Movements',
          '',
          ...record.movements.map(
            (m) =>
              `${m.number}. ${cell(m.title)}${m.assetIds.length ? ` (asset${m.assetIds.length > 1 ? 's' : ''} ${m.assetIds.map(cell).join(', ')})` : ''}`,
          ),
          '',
        ]
      : []),
    '## Source assets',
    '',
    ...assetTable(record.sourceAssets),
    '',
    '## Arrangements',
    '',
  ];
  if (record.arrangements.length === 0) lines.push('(none)', '');
  for (const a of record.arrangements) {
    lines.push(
      `### Arrangement ${cell(a.id)}: ${cell(a.title)} (rank ${a.rank})`,
      '',
      `- Role: ${cell(a.intendedRole)}${a.alsoSuits.length ? ` (also ${cell(a.alsoSuits.join(', '))})` : ''}; duration ${cell(a.duration)}${a.loopable ? '; loopable' : ''}${a.trimmable ? '; trimmable' : ''}`,
      `- Style: ${cell(a.style)}; instrumentation: ${cell(a.instrumentation)}; moods: ${cell(a.moods.join(', '))}`,
      ...(a.sections?.length
        ? [
            `- Sections (declared): ${cell(a.sections.map((x) => `${x.label} ${x.startSeconds}-${x.endSeconds} s`).join('; '))}`,
          ]
        : []),
      `- Review state: ${cell(a.reviewState)} (${cell(a.reviewStatus)})`,
      `- Rendering profiles: ${cell(a.renderingProfileSlugs.join(', '))}`,
      `- Rights: edition ${cell(a.rights.edition.status)}; recording ${cell(a.rights.recording.status)}; license ${cell(a.rights.license)}; attribution ${cell(a.rights.attribution)}`,
      '',
      ...assetTable(a.assets),
      '',
      ...measuredLines(a.assets),
    );
  }
  if (record.comments.length > 0) {
    lines.push('## Approved comments', '');
    for (const c of record.comments) {
      const target = [
        c.target.type,
        c.target.arrangementId ? `arrangement ${c.target.arrangementId}` : '',
        c.target.assetId ? `asset ${c.target.assetId}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      lines.push(`- [${target}] ${cell(c.author)} (${cell(c.postedAtUtc)}): ${cell(c.body)}`);
    }
    lines.push('');
  }
  if (record.videos.length > 0) {
    lines.push('## Videos', '');
    for (const v of record.videos)
      lines.push(
        `- ${cell(v.title)} — ${urlCell(v.url)} (${cell(v.access)}; ${cell(v.reviewState)}; license ${cell(v.license)})`,
      );
    lines.push('');
  }
  const restricted = record.accessRules.filter((rule) => rule.access !== 'public' && rule.assetIds.length > 0);
  if (restricted.length > 0) {
    lines.push('## Access', '');
    for (const rule of restricted)
      lines.push(
        `- ${cell(rule.access)} (asset${rule.assetIds.length === 1 ? '' : 's'} ${cell(rule.assetIds.join(', '))}): ${cell(rule.meaning)}`,
      );
    lines.push('');
  }
  lines.push('## Links', '', `- JSON: ${record.links.self}`, `- HTML: ${record.links.html}`);
  for (const a of record.sourceAssets)
    if (a.links.pdf) lines.push(`- Score PDF (asset ${cell(a.id)}, ${cell(a.title)}): ${a.links.pdf}`);
  for (const a of [...record.sourceAssets, ...record.arrangements.flatMap((x) => x.assets)]) {
    const audio = a.renderedAudio;
    if (audio?.status !== 'rendered') continue;
    const master = audio.files.find((f) => f.role === 'master' && f.format === 'flac');
    lines.push(
      `- Rendered audio (asset ${cell(a.id)}, ${cell(a.title)}): ${cell(audio.statement ?? '')}${master ? ` ${master.durationSeconds} s, ${master.integratedLufs} LUFS, true peak ${master.truePeakDbtp} dBTP.` : ''} Provenance: ${audio.links.provenance}`,
    );
  }
  lines.push(
    `- All public files (zip with SHA256SUMS): ${record.links.filesZip}`,
    `- Report a correction: ${record.links.corrections}`,
    '',
  );
  return lines.join('\n');
}
