/**
 * Writes a synthetic, schema-valid content repository for benchmarks and scale tests:
 *   npm run generate:catalog -- --works 10000 --out /tmp/cat10k [--seed 1]
 * instruments.json, a handful of profiles, and N works with varied composers, titles, genres,
 * instruments, arrangements, review states, access levels and roles. Every asset is a `url:`
 * asset (no stored files), so 10,000 works stay small and are written in a few seconds.
 * The output depends only on (works, seed). Everything generated is marked: composers are named
 * "Synthetic Composer NNNN" and every summary says "Generated for benchmarks".
 */
import { mkdirSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ArrangementContent, AssetContent, WorkContent, WorkFile } from '../src/schemas/work.ts';
import type { PersonContent } from '../src/schemas/person.ts';
import { deriveWorkRights } from '../src/domain/territory-rights.ts';
import { personFileText, personSlug } from '../src/domain/people.ts';
import type { InstrumentContent, ProfileContent } from '../src/schemas/profile.ts';
import {
  ACCESS_LEVELS,
  CATALOG_REVIEW_STATES,
  MUSIC_ROLES,
  type AccessLevel,
  type CatalogReviewState,
  type MusicRole,
} from '../src/schemas/common.ts';

export interface GenerateOptions {
  works: number;
  outDir: string;
  seed?: number;
  /** Remove an existing outDir first (default true). Refuses to remove a folder that does not look generated. */
  clean?: boolean;
}

export interface GenerateResult {
  outDir: string;
  works: number;
  profiles: number;
  instruments: number;
  composers: number;
  /** Slugs of the generated works, sorted. */
  slugs: string[];
  durationMs: number;
}

/** mulberry32: small, fast, deterministic (shared with the benchmarks' generators). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number, width = 4) => String(n).padStart(width, '0');

const INSTRUMENTS: InstrumentContent[] = [
  { slug: 'piano', name: 'Piano', family: 'keyboard', aliases: ['pianoforte', 'fortepiano', 'Klavier'] },
  { slug: 'harpsichord', name: 'Harpsichord', family: 'keyboard', aliases: ['cembalo', 'clavecin'] },
  { slug: 'organ', name: 'Organ', family: 'keyboard', aliases: ['pipe organ', 'Orgel'] },
  { slug: 'celesta', name: 'Celesta', family: 'keyboard', aliases: ['celeste'] },
  { slug: 'violin', name: 'Violin', family: 'strings', aliases: ['fiddle', 'violino'] },
  { slug: 'viola', name: 'Viola', family: 'strings', aliases: ['Bratsche'] },
  { slug: 'cello', name: 'Cello', family: 'strings', aliases: ['violoncello'] },
  { slug: 'double-bass', name: 'Double bass', family: 'strings', aliases: ['contrabass', 'upright bass'] },
  { slug: 'strings', name: 'String ensemble', family: 'strings', aliases: ['string orchestra'] },
  { slug: 'guitar', name: 'Guitar', family: 'plucked', aliases: ['classical guitar'] },
  { slug: 'flute', name: 'Flute', family: 'woodwinds', aliases: ['transverse flute', 'Flöte'] },
  { slug: 'oboe', name: 'Oboe', family: 'woodwinds', aliases: ['hautbois'] },
  { slug: 'clarinet', name: 'Clarinet', family: 'woodwinds', aliases: ['Klarinette'] },
  { slug: 'voice', name: 'Voice', family: 'voices', aliases: ['soprano', 'tenor'] },
  { slug: 'choir', name: 'Choir', family: 'voices', aliases: ['chorus', 'SATB'] },
  { slug: 'orchestra', name: 'Orchestra', family: 'ensemble', aliases: ['symphony orchestra'] },
];

interface ProfileSpec {
  slug: string;
  title: string;
  kind: ProfileContent['kind'];
  status: ProfileContent['status'];
  renderReady: boolean;
  instruments: string[];
}

const PROFILE_SPECS: ProfileSpec[] = [
  {
    slug: 'synthetic-calm-keys',
    title: 'Synthetic calm keys',
    kind: 'performance-style',
    status: 'approved',
    renderReady: true,
    instruments: ['piano', 'harpsichord', 'celesta'],
  },
  {
    slug: 'synthetic-warm-strings',
    title: 'Synthetic warm strings',
    kind: 'performance-style',
    status: 'approved',
    renderReady: true,
    instruments: ['violin', 'viola', 'cello', 'strings'],
  },
  {
    slug: 'synthetic-bright-showcase',
    title: 'Synthetic bright showcase',
    kind: 'performance-style',
    status: 'candidate',
    renderReady: true,
    instruments: ['piano', 'orchestra', 'flute'],
  },
  {
    slug: 'synthetic-grand-piano',
    title: 'Synthetic grand piano',
    kind: 'instrument',
    status: 'approved',
    renderReady: true,
    instruments: ['piano'],
  },
  {
    slug: 'synthetic-breathy-winds',
    title: 'Synthetic breathy winds',
    kind: 'instrument',
    status: 'draft',
    renderReady: false,
    instruments: ['flute', 'oboe', 'clarinet'],
  },
  {
    slug: 'synthetic-old-organ',
    title: 'Synthetic old organ',
    kind: 'instrument',
    status: 'deprecated',
    renderReady: false,
    instruments: ['organ'],
  },
];

function profileContent(spec: ProfileSpec, i: number): ProfileContent {
  const approved = spec.status === 'approved';
  return {
    slug: spec.slug,
    version: `1.${i}.0`,
    title: spec.title,
    kind: spec.kind,
    status: spec.status,
    summary: `Generated for benchmarks: a ${spec.kind} profile for ${spec.instruments.join(', ')}.`,
    renderReady: spec.renderReady,
    instruments: spec.instruments,
    approvalBoundary: {
      approvedFor: approved ? 'Synthetic benchmark renderings only.' : 'Nothing yet.',
      notApprovedFor: 'Any real publication.',
      approvedBy: approved ? 'Benchmark Editor' : null,
      approvedAtUtc: approved ? `2026-01-${pad(10 + i, 2)}T09:00:00Z` : null,
    },
    engine: { name: 'synthetic-engine', version: '1.0.0' },
    settings: { tempoFeel: { scale: 0.9 + i / 100 }, reverb: { mix: 0.2 + i / 50 }, seedIndex: i },
  };
}

const PERIODS = [
  { name: 'Renaissance', from: 1480, to: 1560 },
  { name: 'Baroque', from: 1600, to: 1700 },
  { name: 'Classical', from: 1720, to: 1775 },
  { name: 'Romantic', from: 1780, to: 1850 },
  { name: 'Late Romantic', from: 1850, to: 1880 },
];
/** The synthetic vocabulary (genres, moods, arrangement styles), shared with the in-memory catalog of bench/lib/resolve.ts. */
export const GENRES = [
  'Minuet',
  'Prelude',
  'Fugue',
  'Sonata',
  'Nocturne',
  'Waltz',
  'Étude',
  'Lullaby',
  'Canon',
  'Gavotte',
  'March',
  'Hymn',
  'Serenade',
  'Mazurka',
  'Rondo',
  'Air',
  'Chorale',
  'Fantasia',
];
const KEYS = [
  'C major',
  'G major',
  'D major',
  'A major',
  'F major',
  'B-flat major',
  'E-flat major',
  'A minor',
  'E minor',
  'D minor',
  'G minor',
  'C minor',
  'F-sharp minor',
  null,
];
const CATALOGS = ['Op.', 'SynWV', 'K.', 'Hob.', 'WoO'];
export const MOODS = ['calm', 'bright', 'tender', 'solemn', 'playful', 'dark', 'warm', 'stately', 'dreamy', 'festive'];
export const STYLES = [
  'solo piano, calm',
  'string quartet, warm',
  'harpsichord, bright',
  'music box, tender',
  'flute and strings, airy',
  'organ, solemn',
  'chamber ensemble, lively',
];
const ENSEMBLES: Array<{ words: string; instruments: string[] }> = [
  { words: 'Piano', instruments: ['piano'] },
  { words: 'Keyboard', instruments: ['harpsichord', 'piano'] },
  { words: 'Organ', instruments: ['organ'] },
  { words: 'Violin and piano', instruments: ['violin', 'piano'] },
  { words: 'Cello and piano', instruments: ['cello', 'piano'] },
  { words: 'String quartet', instruments: ['violin', 'viola', 'cello'] },
  { words: 'String orchestra', instruments: ['strings', 'double-bass'] },
  { words: 'Guitar', instruments: ['guitar'] },
  { words: 'Flute and continuo', instruments: ['flute', 'harpsichord', 'cello'] },
  { words: 'Oboe and strings', instruments: ['oboe', 'strings'] },
  { words: 'Clarinet quintet', instruments: ['clarinet', 'violin', 'viola', 'cello'] },
  { words: 'Voice and piano', instruments: ['voice', 'piano'] },
  { words: 'Choir a cappella', instruments: ['choir'] },
  { words: 'Orchestra', instruments: ['orchestra'] },
  { words: 'Celesta', instruments: ['celesta'] },
];
const PROFILE_FOR_STYLE = [
  'synthetic-calm-keys',
  'synthetic-warm-strings',
  'synthetic-calm-keys',
  'synthetic-grand-piano',
  'synthetic-breathy-winds',
  'synthetic-old-organ',
  'synthetic-bright-showcase',
];

interface ComposerSpec {
  n: number;
  name: string;
  sortName: string;
  born: string;
  died: string;
  period: string;
  bornYear: number;
  diedYear: number;
}

function makeComposers(count: number, rand: () => number): ComposerSpec[] {
  const out: ComposerSpec[] = [];
  for (let n = 1; n <= count; n++) {
    const period = PERIODS[(n - 1) % PERIODS.length]!;
    const bornYear = period.from + Math.floor(rand() * (period.to - period.from));
    const diedYear = bornYear + 30 + Math.floor(rand() * 50);
    const month = 1 + Math.floor(rand() * 12);
    const day = 1 + Math.floor(rand() * 28);
    const exactBirth = rand() < 0.6;
    out.push({
      n,
      name: `Synthetic Composer ${pad(n)}`,
      sortName: `Composer ${pad(n)}, Synthetic`,
      born: exactBirth ? `${bornYear}-${pad(month, 2)}-${pad(day, 2)}` : String(bornYear),
      died: `${diedYear}-${pad(1 + ((month + 5) % 12), 2)}-${pad(day, 2)}`,
      period: period.name,
      bornYear,
      diedYear,
    });
  }
  return out;
}

function timestamp(dayOffset: number, hour: number): string {
  const d = new Date(Date.UTC(2026, 0, 1) + dayOffset * 86_400_000 + hour * 3_600_000);
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

/** A composer's person record (people/<slug>.json): the generated dates, with a generated evidence page. */
function personOf(c: ComposerSpec): PersonContent {
  return {
    slug: personSlug(c.sortName),
    name: c.name,
    sortName: c.sortName,
    aliases: c.n % 3 === 0 ? [`S. Composer ${pad(c.n)}`] : [],
    born: c.born,
    died: c.died,
    wikidataId: null,
    worksPublishedBy: null,
    evidence: [
      {
        url: `https://example.org/synthetic/composers/${pad(c.n)}`,
        note: 'Generated for benchmarks (does not exist).',
      },
    ],
  };
}

function makeWork(i: number, composer: ComposerSpec, rand: () => number): { content: WorkFile; body: string } {
  const genre = GENRES[(i * 7 + composer.n) % GENRES.length]!;
  const key = pick(rand, KEYS);
  const ensemble = pick(rand, ENSEMBLES);
  const number = 1 + (i % 97);
  const catalog = CATALOGS[composer.n % CATALOGS.length]!;
  const catNo = String(1 + ((i * 13) % 999));
  const slug = `synthetic-${pad(composer.n)}-${genre.toLowerCase().replace(/[^a-z]+/g, '')}-${pad(i, 5)}`;
  const year = composer.bornYear + 20 + Math.floor(rand() * Math.max(1, composer.diedYear - composer.bornYear - 20));
  const unclear = rand() < 0.05;
  let nextAssetId = 1;
  const evidence = `https://example.org/synthetic/works/${slug}`;

  const reviewState = (): CatalogReviewState =>
    unclear ? 'rights-review-required' : pick(rand, CATALOG_REVIEW_STATES);
  const access = (): AccessLevel => {
    const r = rand();
    return r < 0.8 ? 'public' : r < 0.95 ? ACCESS_LEVELS[1] : ACCESS_LEVELS[2];
  };
  const asset = (kind: AssetContent['kind'], title: string, mediaType: string, ext: string): AssetContent => {
    const id = nextAssetId++;
    return {
      id,
      kind,
      title,
      url: `https://files.example.org/synthetic/${slug}/${id}.${ext}`,
      sourcePageUrl: evidence,
      mediaType,
      rightsStatus: 'public-domain',
      license: 'CC0-1.0',
      attribution: null,
      reviewState: reviewState(),
      access: access(),
      ...(rand() < 0.3 ? { technicalChecks: `Synthetic check: peak -1.${Math.floor(rand() * 9)} dBFS.` } : {}),
    };
  };

  const sourceAssets: AssetContent[] = [
    asset('score-pdf', `${genre} No. ${number}, first edition (PDF)`, 'application/pdf', 'pdf'),
  ];
  if (rand() < 0.6)
    sourceAssets.push(
      asset('musicxml', `${genre} No. ${number} (MusicXML)`, 'application/vnd.recordare.musicxml+xml', 'musicxml'),
    );
  if (rand() < 0.3) sourceAssets.push(asset('source-page', 'Catalog page', 'text/html', 'html'));

  const arrangements: ArrangementContent[] = [];
  const arrangementCount = Math.floor(rand() * 4); // 0..3
  for (let a = 1; a <= arrangementCount; a++) {
    const styleIndex = Math.floor(rand() * STYLES.length);
    const seconds = 30 + Math.floor(rand() * 400);
    const role: MusicRole = pick(rand, MUSIC_ROLES);
    const also = MUSIC_ROLES.filter((r) => r !== role && rand() < 0.15);
    const assets: AssetContent[] = [asset('mp3', `Arrangement ${a} (MP3)`, 'audio/mpeg', 'mp3')];
    if (rand() < 0.7) assets.push(asset('midi', `Arrangement ${a} (MIDI)`, 'audio/midi', 'mid'));
    if (rand() < 0.5)
      assets.push(
        asset('musicxml', `Arrangement ${a} (MusicXML)`, 'application/vnd.recordare.musicxml+xml', 'musicxml'),
      );
    arrangements.push({
      id: a,
      rank: a,
      title: `${STYLES[styleIndex]!.split(',')[0]} arrangement ${a}`,
      style: STYLES[styleIndex]!,
      instrumentation: ensemble.words,
      duration: `${Math.floor(seconds / 60)}:${pad(seconds % 60, 2)}`,
      durationSeconds: seconds,
      intendedRole: role,
      alsoSuits: also,
      moods: [pick(rand, MOODS), ...(rand() < 0.5 ? [pick(rand, MOODS)] : [])].filter(
        (m, k, all) => all.indexOf(m) === k,
      ),
      loopable: rand() < 0.4,
      trimmable: rand() < 0.5,
      renderingProfileSlugs: [PROFILE_FOR_STYLE[styleIndex]!],
      reviewState: reviewState(),
      rights: {
        edition: { status: 'original-contribution', note: 'Arranged by a benchmark script.' },
        recording: { status: 'original-generated-recording', note: 'Rendered by a benchmark script.' },
        license: 'CC0-1.0',
        attribution: null,
      },
      ...(rand() < 0.2 ? { notes: 'Synthetic arrangement; not a real recording.' } : {}),
      assets,
    });
  }

  const comments: WorkContent['comments'] = [];
  if (rand() < 0.25) {
    const day = i % 300;
    comments.push({
      id: 1,
      target:
        arrangements.length > 0
          ? { type: 'arrangement-recording', arrangementId: 1, assetId: arrangements[0]!.assets[0]!.id }
          : { type: 'work' },
      author: `Synthetic Listener ${pad(i % 500, 3)}`,
      postedAtUtc: timestamp(day, 8),
      approvedAtUtc: timestamp(day, 12),
      body: 'A generated comment for benchmarks.',
    });
  }
  const videos: WorkContent['videos'] = [];
  if (rand() < 0.1) {
    videos.push({
      id: 1,
      title: `${genre} No. ${number} (synthetic video)`,
      url: `https://video.example.org/synthetic/${slug}`,
      provider: 'Example Video',
      arrangementId: arrangements.length > 0 ? 1 : null,
      license: 'CC0-1.0',
      reviewState: reviewState(),
      access: 'public',
    });
  }

  // Facts as a work file records them: a work left unclear on purpose has no publication fact (so
  // its composition stays undecided); the others were published in the year they were written.
  // The few whose facts leave them protected somewhere (a composer who died after 1955) are
  // treated as documented permission, so the generated catalog stays clear for reuse as before.
  const firstPublished: WorkFile['firstPublished'] = unclear
    ? null
    : { bound: 'exact', year, evidence: [{ url: evidence, note: 'Generated for benchmarks (does not exist).' }] };
  const cleared = unclear
    ? false
    : deriveWorkRights({
        composer: { name: composer.name, died: composer.died, diedEvidence: null, worksPublishedBy: null },
        lyricist: null,
        hasLyrics: false,
        publication: { bound: 'exact', year, evidence: null },
        decision: null,
        // Fixed, so the output depends only on (works, seed).
        asOfYear: 2026,
      }).compositionCleared;
  const content: WorkFile = {
    slug,
    title: `${genre} No. ${number}${key ? ` in ${key}` : ''}`,
    originalTitle: rand() < 0.4 ? `${genre} Nr. ${number}` : null,
    aliases: [],
    composer: personSlug(composer.sortName),
    period: composer.period,
    genre,
    year: rand() < 0.3 ? `c. ${year}` : String(year),
    ...(firstPublished ? { firstPublished } : {}),
    workNumber: `${catalog} ${catNo}`,
    catalogNumbers: [{ catalog, number: catNo }],
    summary: `Generated for benchmarks: a synthetic ${genre.toLowerCase()} for ${ensemble.words.toLowerCase()} (work ${i}).`,
    key,
    instrumentation: ensemble.words,
    instruments: ensemble.instruments,
    rightsNote: unclear
      ? 'Synthetic work with deliberately unclear rights; not for reuse.'
      : 'Synthetic work; the composition is treated as public domain.',
    rights: {
      ...(unclear || cleared
        ? {}
        : {
            composition: {
              status: 'permission-documented' as const,
              note: 'Synthetic: permission treated as documented.',
            },
          }),
      edition: { status: 'public-domain', note: 'Synthetic first edition.' },
      recording: {
        status: arrangements.length > 0 ? 'original-generated-recording' : 'not-applicable',
        note: 'Synthetic.',
      },
      license: 'CC0-1.0',
      attribution: null,
      checkedAtUtc: timestamp(i % 365, 0),
      evidenceUrls: [evidence],
    },
    sourceAssets,
    arrangements,
    comments,
    videos,
  };
  const body = [
    `A synthetic **${genre.toLowerCase()}** by ${composer.name}, generated for benchmarks.`,
    '',
    `- Period: ${composer.period}`,
    `- Instrumentation: ${ensemble.words}`,
    `- Arrangements: ${arrangements.length}`,
    '',
    rand() < 0.5
      ? 'It has no real history; every field here is made up but valid.'
      : 'See the [evidence page](' + evidence + ') (it does not exist).',
  ].join('\n');
  return { content, body };
}

/** True when `dir` is empty or was written by this generator (so it may be replaced). */
function looksGenerated(dir: string): boolean {
  if (!existsSync(dir)) return true;
  const entries = readdirSync(dir);
  return entries.length === 0 || entries.includes('.generated-catalog');
}

export function generateCatalog(options: GenerateOptions): GenerateResult {
  const started = Date.now();
  const outDir = path.resolve(options.outDir);
  const seed = options.seed ?? 1;
  const count = Math.max(0, Math.floor(options.works));
  if (options.clean !== false && existsSync(outDir)) {
    if (!looksGenerated(outDir))
      throw new Error(`${outDir} exists and was not written by generate-catalog; refusing to replace it`);
    rmSync(outDir, { recursive: true, force: true });
  }
  mkdirSync(path.join(outDir, 'profiles'), { recursive: true });
  mkdirSync(path.join(outDir, 'works'), { recursive: true });
  writeFileSync(path.join(outDir, '.generated-catalog'), `${JSON.stringify({ works: count, seed })}\n`);
  writeFileSync(path.join(outDir, 'instruments.json'), `${JSON.stringify(INSTRUMENTS, null, 2)}\n`);
  PROFILE_SPECS.forEach((spec, i) => {
    writeFileSync(
      path.join(outDir, 'profiles', `${spec.slug}.json`),
      `${JSON.stringify(profileContent(spec, i), null, 2)}\n`,
    );
  });

  const rand = rng(seed);
  // About 25 works per composer, at least 20 composers.
  const composers = makeComposers(Math.max(20, Math.ceil(count / 25)), rand);
  mkdirSync(path.join(outDir, 'people'), { recursive: true });
  for (const c of composers) {
    const person = personOf(c);
    writeFileSync(path.join(outDir, 'people', `${person.slug}.json`), personFileText(person));
  }
  const slugs: string[] = [];
  for (let i = 1; i <= count; i++) {
    // Skewed: a few composers have many works, most have few.
    const c = composers[Math.floor(Math.pow(rand(), 1.6) * composers.length)]!;
    const { content, body } = makeWork(i, c, rand);
    const dir = path.join(outDir, 'works', content.slug);
    mkdirSync(dir);
    // JSON is valid YAML 1.2 (flow style): about 10x faster to write than block YAML, and it
    // parses with the loader's core schema to the same values.
    writeFileSync(path.join(dir, 'index.md'), `---\n${JSON.stringify(content, null, 1)}\n---\n${body}\n`);
    slugs.push(content.slug);
  }
  slugs.sort();
  return {
    outDir,
    works: count,
    profiles: PROFILE_SPECS.length,
    instruments: INSTRUMENTS.length,
    composers: composers.length,
    slugs,
    durationMs: Date.now() - started,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const usage = `usage: npm run generate:catalog -- --works N --out DIR [--seed S]
  Writes a generated catalog of N works (default 1000) into DIR (content/ layout: works/,
  profiles/, instruments.json), the same for the same seed (default 1).`;
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        works: { type: 'string', default: '1000' },
        out: { type: 'string' },
        seed: { type: 'string', default: '1' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const works = Number(values.works);
  const seed = Number(values.seed);
  if (!values.out || !Number.isInteger(works) || works < 0 || !Number.isInteger(seed)) {
    console.error(usage);
    process.exit(2);
  }
  try {
    const r = generateCatalog({ works, outDir: values.out, seed });
    console.log(
      `generated ${r.works} works (${r.composers} composers, ${r.profiles} profiles) into ${r.outDir} in ${r.durationMs} ms`,
    );
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
