/**
 * Apply-to-visible: from the admin `apply` call to the change being served, for generated
 * catalogs of 24, 2,000 and 10,000 works (--quick: 24 and 500). Each size: generate, seed a
 * content repository, build (the baseline: the plain full build of the same catalog, measured in
 * the same run), open a server in-process with the admin routes on a real loopback socket, then
 * run each scenario through the public HTTP surface (`--scenarios`, default both, in this order):
 *
 * - `correction`: submit and accept a correction report (one field: the title gains a new word),
 *   then time from the apply request (`Prefer: respond-async`, answered 202 at once) until the new
 *   value is served by GET /api/v1/works/{slug}, its index.md, its HTML page and
 *   GET /api/v1/works?query=<new word>. Goal: <= 2 s at 10,000 works.
 * - `new-work`: an agent reads the contribution template, then contributes a new work (operation
 *   `new-work`, an existing composer of the catalog, a title with a new word) whose source score is
 *   a real MusicXML file from the shared corpora (read at run time, served to the review's fetcher
 *   by a local HTTPS host whose self-signed certificate only this server trusts); an admin accepts
 *   it (fetch, SHA-256 and technical checks, proposal), then the same apply is timed until the new
 *   work is served as JSON, Markdown, HTML, in a query and as an engraved score (the score page
 *   the work page links, its first SVG page, and the PDF the record links). Goal: <= 5 s at 10,000.
 *
 * The rebuild is incremental (docs/review.md, "Apply-to-visible and the incremental path"); every
 * run records the served build's mode and the build child's own time and phases beside the full build.
 *
 *   node bench/lib/apply.ts [--quick] [--sizes 10000,100000] [--scenarios correction,new-work] [--repeat 3] [--keep DIR] [--no-stall]
 *   (or npm run bench -- --only apply [--apply-sizes ...] [--apply-scenarios ...] [--apply-repeat 3] [--apply-stall off])
 *
 * Then, at the largest size, the stall probe (`stallProbe` in `one`; `--no-stall` leaves it out):
 * the longest request of wrk's reads (static records and pages, catalog queries; 2 connections)
 * while two corrections are applied and a background compaction runs and swaps, against the same
 * reads on the idle server. Goal: <= 100 ms.
 *
 * The server is the one `npm start` makes (createApp with the configuration's own rebuilder: the
 * warm build process and its warm-up at start on, as by default). The first apply is requested
 * once the start's warm-up has ended (its own time is reported as `warmUp`). `--repeat N`
 * (default 3) runs the scenarios N times in a row on that one server, so the first apply after a
 * start and the steady state are reported apart (`sequence`).
 *
 * `--keep DIR` keeps each size's catalog, content repository and builds in DIR/apply-<works> and
 * reuses them on the next run (a development aid: the first full build is not repeated; such a
 * run's fullBuildMs is the duration the kept full build's build.json recorded when it was made,
 * and `fullBuildMeasured` says so). Every new work has a slug of its
 * own (the title's new word), so a kept catalog grows by one work per new-work run.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../api/app.ts';
import { ensureBuild, readBuildInfo, type CompactionEvent, type WarmUpEvent } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { slugify } from '../../src/domain/review/proposal.ts';
import { findOrInstallWrk, runWrk, type WrkRequest, type WrkResult } from './wrk.ts';
import { watchThread, type ThreadFigures } from './thread-watch.ts';
import { startHttpsServer, type HttpsTestServer } from '../../test/helpers/https-server.ts';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');
const KEY = 'bench-admin-key-1';

export const APPLY_SCENARIOS = ['correction', 'new-work'] as const;
export type ApplyScenario = (typeof APPLY_SCENARIOS)[number];

/**
 * The new work's source score: a modest real MusicXML file (27 measures, one page as Verovio
 * engraves it) from the MIT-licensed MusicXML test suite, found beside the repository as CI
 * lays it out (`../shared/corpora`), never copied into the project.
 */
export const NEW_WORK_SCORE = path.join(
  PROJECT_ROOT,
  '..',
  'shared',
  'corpora',
  'musicxml-test-suite',
  '01a-Pitches-Pitches.xml',
);

/** Apply-to-visible goals at 10,000 works: a correction in 2 s, a new work in 5 s. */
const GOAL_MS: Record<ApplyScenario, number> = { correction: 2000, 'new-work': 5000 };

/** The stall probe (`--stall`): the idle anchor's length, each busy window's, and the most a compaction may take. */
const STALL_IDLE_SECONDS = 20;
const STALL_WINDOW_SECONDS = 10;
const STALL_COMPACTION_TIMEOUT_MS = 30 * 60_000;
/** The longest wait for the start's warm-up before the first apply. */
const WARM_UP_TIMEOUT_MS = 30 * 60_000;
/** The longest request's target while applies and compactions run. */
export const STALL_GOAL_MS = 100;

/** What the stall probe measured (or why it did not run). */
export type StallFigures =
  | { skipped: string; idle?: WrkResult }
  | {
      /** The served layer's paths when the probe server started; its bound was twice that. */
      layerPathsBefore: number;
      layerMaxPaths: number;
      /** wrk on the idle server (the anchor), and what held the server's thread meanwhile. */
      idle: WrkResult & { thread: ThreadFigures };
      /**
       * wrk while the applies and the compaction ran, window by window, with the events in each
       * and what held the server's thread (the server runs in this process: bench/lib/thread-watch.ts).
       */
      windows: Array<WrkResult & { fromMs: number; toMs: number; events: string[]; thread: ThreadFigures }>;
      /** The longest event-loop delay and garbage-collector pause of the server's thread over the windows. */
      loopDelayMaxMs: number;
      gcMaxMs: number;
      applies: Array<{ applyToVisibleMs: number; mode: string; layer: Record<string, unknown> | null }>;
      /** How the compaction the probe waited for ended (null: none ended within the timeout). */
      compaction: { outcome: string; durationMs: number; layerPaths: number } | null;
      /** Compactions an apply stopped (each apply supersedes the compaction of the layer it replaces). */
      cancelledCompactions: number;
      longestMs: number;
      idleLongestMs: number;
      /** Socket errors and answers >= 400 over every window (expected 0). */
      errors: number;
    };

/**
 * The stall probe's requests: what readers and agents ask for most, by random work: the JSON
 * record, the Markdown record and the HTML page (static files of the served build), and the
 * catalog query by a word of the slug (the in-memory index). Each is checked to answer 200 first.
 */
async function stallRequests(call: Call, slugs: string[]): Promise<WrkRequest[]> {
  const picked: string[] = [];
  for (let i = 0; i < Math.min(500, slugs.length); i++) picked.push(slugs[Math.floor(Math.random() * slugs.length)]!);
  const words = [...new Set(picked.flatMap((sl) => sl.split('-')).filter((w) => /^[a-z]{3,}$/.test(w)))];
  const requests: WrkRequest[] = [
    ...picked.flatMap((slug) => [
      { path: `/api/v1/works/${slug}` },
      { path: `/api/v1/works/${slug}/index.md` },
      { path: `/works/${slug}/` },
    ]),
    ...words.map((w) => ({ path: `/api/v1/works?query=${w}` })),
  ];
  for (const r of [requests[0]!, requests[1]!, requests[2]!, requests.at(-1)!]) {
    const answer = await call(r.path);
    if (answer.status !== 200) throw new Error(`stall probe: ${r.path} answered ${answer.status}`);
  }
  return requests;
}

/** What both scenarios measure from the apply request on. */
interface AppliedFigures {
  works: number;
  /** Which apply this was on the server (1 = the first after it started; `--repeat`). */
  sequence: number;
  fullBuildMs: number;
  /** Whether the anchor was built in this run or read from a kept folder's build.json. */
  fullBuildMeasured: string;
  /** Writing the anchor's files back to disk (`sync`) before the applies (since 2026-11-29, night). */
  anchorFlushMs: number;
  /** From the apply request to the change served everywhere the scenario looks. */
  applyToVisibleMs: number;
  /** The apply call's answer (202 "applying", `Prefer: respond-async`). */
  applyCallMs: number;
  /** `apply.visibleAtUtc - apply.requestedAtUtc` as the tracking record states it. */
  trackedVisibleMs: number;
  /** How the served build was made ("incremental", or "full" with the reason the incremental path gave up). */
  mode: string;
  /** The build child's own time for the new folder (build.json durationMs). */
  newBuildMs: number;
  /** An incremental build's phases (build.json incremental.phases). */
  phases: Record<string, number> | null;
  /** The steps beside them (build.json incremental.background: the delta's link, Pagefind, compression). */
  background: Record<string, number> | null;
  /** The layer it is, or a compaction (build.json incremental.layer; src/lib/site/layers.ts). */
  layer: Record<string, unknown> | null;
  /** Who rendered its pages: the warm renderer or Astro, and why (build.json incremental.renderer). */
  renderer: Record<string, unknown> | null;
  /** Where the base's catalog snapshot came from: "memory" or "file" (build.json incremental.snapshot). */
  snapshot: string | null;
  goalMs: number;
  pass: boolean;
  /** The apply job's own phases, from its log line (api/review/apply-steps.ts). */
  applyPhases: Record<string, unknown> | null;
  /** The machine's 1-minute load average when the run ended (the machine is shared). */
  loadAverage: number;
}

/**
 * Where one apply's time went, from its own figures (for the bench's message when a goal is
 * missed): the build's largest steps, the largest step beside them, and the time outside the build.
 */
export function whereTimeWent(run: AppliedFigures): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const largest = (steps: Record<string, number> | null, n: number) =>
    Object.entries(steps ?? {})
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => `${name} ${s(ms)}`)
      .join(', ');
  const renderer = run.renderer as { kind?: string; pathsMs?: number } | null;
  const how =
    renderer?.kind === 'warm'
      ? ` (warm renderer; its pages' paths ${s(renderer.pathsMs ?? 0)})`
      : renderer?.kind
        ? ` (${renderer.kind})`
        : '';
  return `apply #${run.sequence} (${s(run.applyToVisibleMs)}): build ${s(run.newBuildMs)}, largest ${largest(run.phases, 3)}${how}; beside them ${largest(run.background, 1)}; outside the build ${s(run.applyToVisibleMs - run.newBuildMs)}`;
}

export interface ApplyRun extends AppliedFigures {
  scenario: 'correction';
  /** When each surface first showed the new value, from the apply request. */
  visibleMs: { json: number; markdown: number; html: number; query: number };
}

export interface NewWorkRun extends AppliedFigures {
  scenario: 'new-work';
  slug: string;
  composer: string;
  /**
   * Whether the work's composer was new to the catalog. Always false: the contribution path
   * refuses a new work by a composer the catalog lacks (the composer's life dates decide the
   * rights; an editor adds the composer first), so the incremental path's new-composer fallback
   * is not reachable through a contribution.
   */
  newComposer: false;
  /** The contributed MusicXML file (path relative to the corpora folder). */
  score: { file: string; bytes: number; sha256: string };
  /** POST /api/v1/music/contributions (202). */
  submitMs: number;
  /** The admin accept: fetch over HTTPS, SHA-256 and technical checks (Verovio), the proposal. */
  acceptMs: number;
  /** When each surface first showed the new work, from the apply request. */
  visibleMs: { json: number; markdown: number; html: number; query: number; score: number };
  /** The engraved score's URLs as the site serves them (score page, its first SVG page, the record's PDF link). */
  scoreUrls: { page: string; svg: string; pdf: string } | null;
}

type Call = (url: string, init?: RequestInit) => Promise<{ status: number; type: string; body: string }>;

const data = (body: string) => {
  const parsed = JSON.parse(body) as { data?: any };
  return parsed.data ?? parsed;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A site URL as a path on the bench's own server (records carry PUBLIC_BASE_URL). */
const pathOf = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

/** Poll every check until all have passed once; returns when each first passed, from `started`. */
async function watch<K extends string>(
  started: number,
  checks: Record<K, () => Promise<boolean>>,
  what: string,
): Promise<Record<K, number>> {
  const seen: Partial<Record<K, number>> = {};
  const names = Object.keys(checks) as K[];
  while (names.some((n) => seen[n] === undefined)) {
    // In order, up to the first check that fails: while the build runs, one cheap request per round
    // (until 2026-11-29 every check each round, an uncached catalog query among them, competing with
    // the build for the two cores). The applyToVisibleMs (the latest check) means the same; a later
    // check's own time is at least the earlier one's.
    for (const name of names) {
      if (seen[name] !== undefined) continue;
      // A reused keep-alive connection the server closed meanwhile (ECONNRESET) is retried, not fatal.
      if (!(await checks[name]().catch(() => false))) break;
      seen[name] = Date.now() - started;
    }
    if (Date.now() - started > 900_000)
      throw new Error(`${what} never became visible everywhere: ${JSON.stringify(seen)}`);
    await sleep(20);
  }
  return seen as Record<K, number>;
}

/**
 * `keep`: a folder kept between runs (generated catalog, content repository, first full build),
 * so repeated runs at one size skip generating and the first full build; its `fullBuildMs` is then
 * the one the kept build's build.json recorded when it was made.
 */
async function one(
  works: number,
  scenarios: readonly ApplyScenario[],
  repeat: number,
  keep?: string,
  stall = false,
): Promise<{ runs: Array<ApplyRun | NewWorkRun>; stall: StallFigures | null; warmUp: WarmUpEvent | null }> {
  const root = keep
    ? path.join(keep, `apply-${works}`)
    : mkdtempSync(path.join(os.tmpdir(), `pdma-apply-bench-${works}-`));
  if (keep) mkdirSync(root, { recursive: true });
  let fileHost: HttpsTestServer | null = null;
  try {
    const seed = path.join(root, 'seed');
    const reuse = keep !== undefined && existsSync(path.join(root, 'data', 'content', '.git'));
    const gen = reuse
      ? { outDir: seed, slugs: readdirSync(path.join(root, 'data', 'content', 'works')).sort() }
      : generateCatalog({ works, outDir: seed });
    const config = loadConfig(
      { ARCHIVE_DATA_DIR: path.join(root, 'data'), PUBLIC_BASE_URL: 'http://127.0.0.1:4321', ARCHIVE_ADMIN_KEYS: KEY },
      PROJECT_ROOT,
    );
    const repo = await ensureContentRepo(config.contentRepo, gen.outDir);
    // The anchor is a full (not incremental) build of HEAD, from the persistent build checkout the
    // server's applies move, as `npm start` makes its first build (scripts/serve.ts): a scratch
    // worktree here would leave the server's start to check the whole catalog out again, and the
    // first apply to wait for it (`checkoutWaitMs` in its phases). A kept folder may already hold it:
    // then its own build.json gives the time measured when it was made (an earlier run), never
    // the milliseconds it takes to find the folder.
    const t0 = Date.now();
    const buildDir = await ensureBuild(config, repo.head, { acceptIncremental: false, worktree: 'rebuild' });
    const elapsedMs = Date.now() - t0;
    const anchorInfo = JSON.parse(readFileSync(path.join(buildDir, 'build.json'), 'utf8')) as {
      durationMs?: number;
      incremental?: unknown;
    };
    if (anchorInfo.incremental !== undefined) throw new Error(`the anchor build ${buildDir} is incremental`);
    const builtNow = elapsedMs >= (anchorInfo.durationMs ?? 0);
    const fullBuildMs = builtNow ? elapsedMs : (anchorInfo.durationMs ?? NaN);
    const fullBuildMeasured = builtNow ? 'this run' : 'an earlier run (kept folder: its build.json)';
    if (!Number.isFinite(fullBuildMs)) throw new Error(`the kept build ${buildDir} does not record its duration`);
    // The anchor's files (gigabytes at 100,000 works) are written back before the applies are
    // timed: the kernel flushing them meanwhile loaded the machine (load 6-8) through the first
    // applies of earlier runs, which is the anchor's cost, not theirs. The time is reported.
    const flushStarted = Date.now();
    execFileSync('sync');
    const anchorFlushMs = Date.now() - flushStarted;
    let handle = await SiteHandle.open(buildDir);
    const score = scenarios.includes('new-work') ? readFileSync(NEW_WORK_SCORE) : null;
    // A contributor's file host: HTTPS on loopback with a self-signed certificate.
    if (score)
      fileHost = await startHttpsServer({
        '/scores/score.musicxml': { body: score, contentType: 'application/vnd.recordare.musicxml+xml' },
      });
    let applyPhases: Record<string, unknown> | null = null;
    /** The background compactions the server logged (their end), with the time the line came. */
    const compactions: Array<CompactionEvent & { atMs: number }> = [];
    /** The warm-ups the server logged (their end), and who wants to hear of the next one. */
    const warmUps: WarmUpEvent[] = [];
    let onWarmUp: ((event: WarmUpEvent) => void) | null = null;
    const logger = {
      level: 'info',
      stream: {
        write(line: string) {
          const parsed = JSON.parse(line) as {
            apply?: { phases?: Record<string, unknown>; totalMs?: number };
            compaction?: CompactionEvent;
            warmUp?: WarmUpEvent;
          };
          if (parsed.apply) applyPhases = { totalMs: parsed.apply.totalMs, ...parsed.apply.phases };
          if (parsed.compaction) compactions.push({ ...parsed.compaction, atMs: Date.now() });
          if (parsed.warmUp) {
            warmUps.push(parsed.warmUp);
            onWarmUp?.(parsed.warmUp);
          }
        },
      },
    };
    // The review's fetcher trusts the file host's certificate and may reach it on loopback; nothing else changes.
    const review = fileHost ? { fetchOptions: { ca: fileHost.ca, allowHosts: [`localhost:${fileHost.port}`] } } : {};
    // The rebuilder is the app's own, from the configuration, as under `npm start`.
    let app = await createApp({ config, handle, review, warmUp: true }, { logger });
    // A real socket: every request below goes through the loopback HTTP server.
    await app.listen({ port: 0, host: '127.0.0.1' });
    let server = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    // The start's warm-up (ARCHIVE_WARM_BUILDER_WARM_UP, on as under `npm start`) ends before the
    // first apply: the applies are timed on a server that finished starting, and the warm-up's
    // own time is reported beside them (`warmUp`). The stall probe's restart does not wait for it.
    const warmUpDeadline = Date.now() + WARM_UP_TIMEOUT_MS;
    while (config.warmBuilder && config.warmBuilderWarmUp && warmUps.length === 0) {
      if (Date.now() > warmUpDeadline) throw new Error(`the server logged no warm-up within ${WARM_UP_TIMEOUT_MS} ms`);
      await sleep(50);
    }
    const warmUp = warmUps[0] ?? null;
    const call: Call = async (url, init = {}) => {
      const res = await fetch(`${server}${url}`, init);
      return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
    };
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

    /** Apply an accepted item asynchronously and wait until `checks` all pass; then the tracking record and the served build's figures. */
    let sequence = 0;
    const applyAndWatch = async <K extends string>(
      segment: 'correction-reports' | 'contributions',
      code: string,
      checks: Record<K, () => Promise<boolean>>,
      goalMs: number,
    ) => {
      applyPhases = null;
      sequence++;
      const started = Date.now();
      const applied = await call(`/api/v1/admin/${segment}/${code}/apply`, {
        method: 'POST',
        headers: { ...headers, prefer: 'respond-async' },
        body: JSON.stringify({ reviewer: 'Bench' }),
      });
      const applyCallMs = Date.now() - started;
      if (applied.status !== 202) throw new Error(`apply failed: ${applied.status} ${applied.body}`);
      const seen = await watch(started, checks, `${segment} ${code}`);
      const applyToVisibleMs = Math.max(...(Object.values(seen) as number[]));
      let tracked = data((await call(`/api/v1/admin/${segment}/${code}`, { headers })).body);
      while (tracked.apply?.state === 'applying') {
        await sleep(20);
        tracked = data((await call(`/api/v1/admin/${segment}/${code}`, { headers })).body);
      }
      if (tracked.apply?.state !== 'visible') throw new Error(`apply ended ${JSON.stringify(tracked.apply)}`);
      // The log line is written when the item became visible; give the stream a moment.
      for (let i = 0; i < 50 && applyPhases === null; i++) await sleep(20);
      const trackedVisibleMs = Date.parse(tracked.apply.visibleAtUtc) - Date.parse(tracked.apply.requestedAtUtc);
      const info = readBuildInfo(handle.current.dir);
      const mode =
        info?.mode === 'full' && info.fallbackReason ? `full (${info.fallbackReason})` : (info?.mode ?? 'unknown');
      const built = JSON.parse(readFileSync(path.join(handle.current.dir, 'build.json'), 'utf8')) as {
        durationMs: number;
        incremental?: {
          phases: Record<string, number>;
          background?: Record<string, number>;
          layer?: Record<string, unknown>;
          renderer?: Record<string, unknown>;
          snapshot?: string | null;
        };
      };
      const figures: AppliedFigures = {
        works,
        sequence,
        fullBuildMs,
        fullBuildMeasured,
        anchorFlushMs,
        applyToVisibleMs,
        applyCallMs,
        trackedVisibleMs,
        mode,
        newBuildMs: built.durationMs,
        phases: built.incremental?.phases ?? null,
        background: built.incremental?.background ?? null,
        layer: built.incremental?.layer ?? null,
        renderer: built.incremental?.renderer ?? null,
        snapshot: built.incremental?.snapshot ?? null,
        goalMs,
        pass: applyToVisibleMs <= goalMs,
        applyPhases,
        loadAverage: os.loadavg()[0]!,
      };
      return { seen, figures };
    };

    const correction = async (round: number): Promise<ApplyRun> => {
      const n = gen.slugs.length;
      const slug = gen.slugs[reuse ? Math.floor(Math.random() * n) : (Math.floor(n / 2) + round * 97) % n]!;
      const word = `zq${Date.now().toString(36)}`;
      const currentTitle = data((await call(`/api/v1/works/${slug}`)).body).title as string;
      const proposed = `${currentTitle} ${word}`;
      const submitted = await call('/api/v1/correction-reports', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          workSlug: slug,
          targetType: 'work',
          fieldName: 'title',
          currentValue: currentTitle,
          proposedValue: proposed,
          rationale: 'bench',
          reporterName: 'Bench',
          reporterKind: 'AutomatedAgent',
        }),
      });
      if (submitted.status !== 202) throw new Error(`report failed: ${submitted.body}`);
      const code = data(submitted.body).trackingCode as string;
      const accept = await call(`/api/v1/admin/correction-reports/${code}/accept`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ reviewer: 'Bench' }),
      });
      if (accept.status !== 200) throw new Error(`accept failed: ${accept.body}`);
      const { seen, figures } = await applyAndWatch(
        'correction-reports',
        code,
        {
          json: async () => data((await call(`/api/v1/works/${slug}`)).body).title === proposed,
          markdown: async () => (await call(`/api/v1/works/${slug}/index.md`)).body.includes(proposed),
          html: async () => (await call(`/works/${slug}/`)).body.includes(word),
          query: async () =>
            (data((await call(`/api/v1/works?query=${word}`)).body) as { items?: Array<{ slug: string }> }).items?.some(
              (w) => w.slug === slug,
            ) ?? false,
        },
        GOAL_MS.correction,
      );
      return { scenario: 'correction', ...figures, visibleMs: seen };
    };

    const newWork = async (): Promise<NewWorkRun> => {
      // An existing composer (the common case), taken from a work the catalog serves.
      const model = data((await call(`/api/v1/works/${gen.slugs[Math.floor(gen.slugs.length / 3)]!}`)).body) as {
        composer: { name: string };
        period: string;
        genre: string;
        year: string;
      };
      const word = `zq${Date.now().toString(36)}`;
      const title = `Bench new work ${word}`;
      // What an agent does: start from the served template, keep its contract label, fill in its own facts.
      const template = await call('/api/v1/music/contributions/template');
      if (template.status !== 200) throw new Error(`template failed: ${template.status}`);
      const sha256 = createHash('sha256').update(score!).digest('hex');
      const corpusFile = path.relative(path.join(PROJECT_ROOT, '..', 'shared', 'corpora'), NEW_WORK_SCORE);
      const license = 'MIT';
      const attribution = 'MusicXML test suite (LilyPond regression tests, input/regression/musicxml), MIT license';
      const body: MusicContributionInput = {
        schemaVersion: (JSON.parse(template.body) as MusicContributionInput).schemaVersion,
        operation: 'new-work',
        idempotencyKey: `bench-new-work.${word}`,
        submittedBy: {
          name: 'Apply bench',
          kind: 'AutomatedAgent',
          agentName: 'bench/lib/apply.ts',
          agentVersion: '1',
          contact: null,
        },
        channel: null,
        target: null,
        work: {
          title,
          originalTitle: null,
          composer: model.composer.name,
          period: model.period || null,
          genre: model.genre || null,
          year: model.year || null,
          workNumber: null,
          summary: `Generated for benchmarks: a new work whose source score is ${path.basename(NEW_WORK_SCORE)}.`,
        },
        rights: {
          compositionStatus: 'permission-documented',
          editionStatus: 'licensed',
          recordingStatus: 'not-applicable',
          territory: 'US, EU, CA',
          license,
          attribution,
          checkedAtUtc: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          evidenceUrls: ['https://gitlab.com/lilypond/lilypond/-/tree/master/input/regression/musicxml'],
        },
        assets: [
          {
            kind: 'musicxml',
            title: `Score: ${path.basename(NEW_WORK_SCORE)}`,
            downloadUrl: `${fileHost!.url}/scores/score.musicxml`,
            sourcePageUrl: 'https://gitlab.com/lilypond/lilypond/-/tree/master/input/regression/musicxml',
            sha256,
            mediaType: 'application/vnd.recordare.musicxml+xml',
            rightsStatus: 'licensed',
            license,
            attribution,
            reviewState: 'pending',
          },
        ],
        arrangement: null,
        reproducibility: null,
        quality: {
          technicalValidationPassed: true,
          humanListeningApproved: false,
          technicalChecks: null,
          listeningNotes: null,
        },
        changeSummary: `Adds "${title}" with its MusicXML source score (apply bench).`,
        rationale: null,
      };
      let t = Date.now();
      const submitted = await call('/api/v1/music/contributions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const submitMs = Date.now() - t;
      if (submitted.status !== 202) throw new Error(`contribution failed: ${submitted.status} ${submitted.body}`);
      const code = data(submitted.body).trackingCode as string;
      t = Date.now();
      const accept = await call(`/api/v1/admin/contributions/${code}/accept`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ reviewer: 'Bench' }),
      });
      const acceptMs = Date.now() - t;
      if (accept.status !== 200) throw new Error(`accept failed: ${accept.status} ${accept.body}`);
      const blockers = (data(accept.body) as { review: { blockers: string[] } }).review.blockers;
      if (blockers.length > 0) throw new Error(`the accepted contribution has blockers: ${blockers.join(' ')}`);
      // The slug the review gives a new work without target.workSlug (composer and title).
      const expectedSlug = slugify(`${model.composer.name} ${title}`);
      let scoreUrls: NewWorkRun['scoreUrls'] = null;
      const { seen, figures } = await applyAndWatch(
        'contributions',
        code,
        {
          json: async () => data((await call(`/api/v1/works/${expectedSlug}`)).body).title === title,
          markdown: async () => {
            const r = await call(`/api/v1/works/${expectedSlug}/index.md`);
            return r.status === 200 && r.body.includes(title);
          },
          html: async () => {
            const r = await call(`/works/${expectedSlug}/`);
            return r.status === 200 && r.body.includes(word);
          },
          query: async () =>
            (data((await call(`/api/v1/works?query=${word}`)).body) as { items?: Array<{ slug: string }> }).items?.some(
              (w) => w.slug === expectedSlug,
            ) ?? false,
          // The engraved score: the record's PDF link, the score page the work page links, and its first SVG page.
          score: async () => {
            const record = await call(`/api/v1/works/${expectedSlug}`);
            if (record.status !== 200) return false;
            const asset = (
              data(record.body) as { sourceAssets: Array<{ id: number; kind: string; links: { pdf?: string } }> }
            ).sourceAssets.find((a) => a.kind === 'musicxml');
            if (!asset?.links.pdf) return false;
            const pagePath = `/works/${expectedSlug}/score/${asset.id}/`;
            const work = await call(`/works/${expectedSlug}/`);
            if (!work.body.includes(`href="${pagePath}"`)) return false;
            const page = await call(pagePath);
            const svg = /<img src="([^"]+\.svg)"/.exec(page.body)?.[1];
            if (page.status !== 200 || !svg) return false;
            const image = await call(pathOf(svg));
            const pdf = await call(pathOf(asset.links.pdf));
            if (image.status !== 200 || !image.type.startsWith('image/svg+xml') || !image.body.includes('<svg'))
              return false;
            if (pdf.status !== 200 || !pdf.body.startsWith('%PDF')) return false;
            scoreUrls = { page: pagePath, svg: pathOf(svg), pdf: pathOf(asset.links.pdf) };
            return true;
          },
        },
        GOAL_MS['new-work'],
      );
      return {
        scenario: 'new-work',
        ...figures,
        slug: expectedSlug,
        composer: model.composer.name,
        newComposer: false,
        score: { file: corpusFile, bytes: score!.length, sha256 },
        submitMs,
        acceptMs,
        visibleMs: seen,
        scoreUrls,
      };
    };

    /**
     * The longest request while applies and a background compaction run (the issue's <= 100 ms):
     * wrk's static GETs and catalog queries on 2 connections, first on the idle server (the
     * anchor, `STALL_IDLE_SECONDS`), then on a server restarted over the same data with a layer
     * bound at twice the served layer's paths, so a compaction of the served layer is due at once
     * (it starts with the server). Two corrections are applied while it runs (each apply cancels
     * the compaction and starts it again over its own layer: "applies during a compaction"), then
     * the probe goes on until the compaction has swapped its plain folder in (or ended otherwise),
     * in windows of `STALL_WINDOW_SECONDS`, each reported with the events that fell in it.
     */
    const stallProbe = async (): Promise<StallFigures> => {
      const wrkBin = findOrInstallWrk(() => undefined);
      if (!wrkBin.path) return { skipped: wrkBin.note };
      const wrkPath = wrkBin.path;
      const workDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-apply-stall-'));
      try {
        const requests = await stallRequests(call, gen.slugs);
        const thread = watchThread();
        const idle = {
          ...(await runWrk(wrkPath, workDir, server, requests, {
            connections: 2,
            durationSeconds: STALL_IDLE_SECONDS,
          })),
          thread: thread.take(),
        };
        // The same data, served by a new server whose bound makes the served layer's compaction due.
        const served = readBuildInfo(handle.current.dir);
        const layerPaths = served?.layerPaths ?? null;
        if (layerPaths === null || layerPaths === 0) {
          thread.stop();
          return {
            skipped: `the served build ${path.basename(handle.current.dir)} is not a layer: nothing to compact`,
            idle,
          };
        }
        await app.close();
        handle = await SiteHandle.open(handle.current.dir);
        const layerMaxPaths = 2 * layerPaths;
        app = await createApp({ config: { ...config, layerMaxPaths }, handle, review, warmUp: true }, { logger });
        await app.listen({ port: 0, host: '127.0.0.1' });
        server = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
        const since = compactions.length;
        const t0 = Date.now();
        const events: Array<{ atMs: number; event: string }> = [{ atMs: 0, event: 'server started (compaction due)' }];
        onWarmUp = (e) => events.push({ atMs: Date.now() - t0, event: `warm-up ${e.outcome} (${e.durationMs} ms)` });
        const windows: Array<WrkResult & { fromMs: number; toMs: number; events: string[]; thread: ThreadFigures }> =
          [];
        // The server's start (its module compile, the handle's load) is not in the first window.
        thread.take();
        let probing = true;
        const probe = (async () => {
          while (probing) {
            // The first window starts with the server (its "compaction due" event).
            const fromMs = windows.length === 0 ? 0 : Date.now() - t0;
            const r = await runWrk(wrkPath, workDir, server, requests, {
              connections: 2,
              durationSeconds: STALL_WINDOW_SECONDS,
            });
            const toMs = Date.now() - t0;
            windows.push({
              ...r,
              fromMs,
              toMs,
              events: events.filter((e) => e.atMs >= fromMs && e.atMs < toMs).map((e) => e.event),
              thread: thread.take(),
            });
          }
        })();
        const applies: Array<{ applyToVisibleMs: number; mode: string; layer: Record<string, unknown> | null }> = [];
        let compaction: (CompactionEvent & { atMs: number }) | null = null;
        try {
          // Give the compaction a head start, so the applies land while it runs.
          await sleep(3000);
          for (let i = 0; i < 2; i++) {
            events.push({ atMs: Date.now() - t0, event: `apply ${i + 1} requested` });
            const run = await correction(1000 + i);
            events.push({ atMs: Date.now() - t0, event: `apply ${i + 1} visible (${run.applyToVisibleMs} ms)` });
            applies.push({ applyToVisibleMs: run.applyToVisibleMs, mode: run.mode, layer: run.layer });
          }
          // The last apply's layer: past half the bound, its compaction runs now; wait for that one.
          const appliedAt = Date.now();
          const last = readBuildInfo(handle.current.dir)?.layerPaths ?? null;
          const after = last !== null && 2 * last >= layerMaxPaths ? appliedAt : 0;
          const deadline = Date.now() + STALL_COMPACTION_TIMEOUT_MS;
          while (Date.now() < deadline) {
            const ended = compactions.slice(since).find((c) => c.outcome !== 'cancelled' && c.atMs >= after);
            if (ended) {
              compaction = ended;
              events.push({ atMs: ended.atMs - t0, event: `compaction ${ended.outcome} (${ended.durationMs} ms)` });
              break;
            }
            await sleep(200);
          }
          // One more window after the swap: requests the swap's change of folder may slow.
          await sleep(STALL_WINDOW_SECONDS * 1000);
        } finally {
          probing = false;
          await probe;
          thread.stop();
        }
        const all = [idle, ...windows];
        return {
          layerPathsBefore: layerPaths,
          layerMaxPaths,
          idle,
          windows,
          applies,
          compaction: compaction
            ? { outcome: compaction.outcome, durationMs: compaction.durationMs, layerPaths: compaction.layerPaths }
            : null,
          cancelledCompactions: compactions.slice(since).filter((c) => c.outcome === 'cancelled').length,
          longestMs: Math.max(...windows.map((w) => w.latencyMaxMs)),
          idleLongestMs: idle.latencyMaxMs,
          loopDelayMaxMs: Math.max(...windows.map((w) => w.thread.loopDelayMaxMs)),
          gcMaxMs: Math.max(...windows.map((w) => w.thread.gcMaxMs)),
          errors: all.reduce(
            (n, w) => n + w.errors.connect + w.errors.read + w.errors.write + w.errors.timeout + w.errors.status,
            0,
          ),
        };
      } finally {
        rmSync(workDir, { recursive: true, force: true });
      }
    };

    try {
      const out: Array<ApplyRun | NewWorkRun> = [];
      for (let round = 0; round < repeat; round++)
        for (const scenario of scenarios)
          out.push(scenario === 'correction' ? await correction(round) : await newWork());
      return { runs: out, stall: stall ? await stallProbe() : null, warmUp };
    } finally {
      await app.close();
    }
  } finally {
    await fileHost?.close();
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
}

export function parseScenarios(text: string | undefined): ApplyScenario[] {
  if (text === undefined) return [...APPLY_SCENARIOS];
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(APPLY_SCENARIOS as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0)
    throw new Error(`unknown apply scenario(s) "${unknown.join(', ')}"; known: ${APPLY_SCENARIOS.join(', ')}`);
  return APPLY_SCENARIOS.filter((s) => names.includes(s));
}

/**
 * `runs`: the correction runs (as before the new-work scenario existed); `newWorkRuns`: the
 * new-work runs. `pass` and `newWorkPass`: each scenario's goal at 10,000 works and above
 * (true when the scenario did not run).
 */
export async function runApplyBench(options: {
  quick: boolean;
  sizes?: number[];
  scenarios?: readonly ApplyScenario[];
  /** Rounds of the scenarios on one server (default 3). */
  repeat?: number;
  keep?: string;
  /** Run the stall probe after the scenarios at the largest size (default true). */
  stall?: boolean;
  log?: (line: string) => void;
}): Promise<{
  runs: ApplyRun[];
  newWorkRuns: NewWorkRun[];
  pass: boolean;
  newWorkPass: boolean;
  /** The stall probe at the largest size (null when not asked for). */
  stall: (StallFigures & { works: number }) | null;
  /** Each size's warm-up at the server's start, waited for before the first apply (none when it is off). */
  warmUps: Array<WarmUpEvent & { works: number }>;
}> {
  const sizes = options.sizes ?? (options.quick ? [24, 500] : [24, 2_000, 10_000]);
  const scenarios = options.scenarios ?? APPLY_SCENARIOS;
  const repeat = options.repeat ?? 3;
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 100)
    throw new Error(`--repeat must be a whole number from 1 to 100, not ${String(options.repeat)}`);
  const runs: ApplyRun[] = [];
  const newWorkRuns: NewWorkRun[] = [];
  let stall: (StallFigures & { works: number }) | null = null;
  const warmUps: Array<WarmUpEvent & { works: number }> = [];
  for (const works of sizes) {
    const probe = (options.stall ?? true) && works === Math.max(...sizes);
    const result = await one(works, scenarios, repeat, options.keep, probe);
    if (result.warmUp) {
      warmUps.push({ ...result.warmUp, works });
      options.log?.(`apply ${works} works, warm-up at the server's start: ${JSON.stringify(result.warmUp)}`);
    }
    if (result.stall) {
      stall = { ...result.stall, works };
      const st = result.stall;
      options.log?.(
        'skipped' in st
          ? `apply ${works} works, stall probe skipped: ${st.skipped}`
          : `apply ${works} works, stall probe: longest request ${st.longestMs} ms during ${st.applies.length} applies and a compaction (${st.compaction ? `${st.compaction.outcome} in ${st.compaction.durationMs} ms` : 'none ended'}, ${st.cancelledCompactions} cancelled by an apply); idle server ${st.idleLongestMs} ms; server thread held at most ${st.loopDelayMaxMs} ms, longest GC pause ${st.gcMaxMs} ms; errors ${st.errors}`,
      );
    }
    for (const r of result.runs) {
      const build = `${r.mode} build ${r.newBuildMs} ms ${JSON.stringify(r.phases)} beside ${JSON.stringify(r.background)} layer ${JSON.stringify(r.layer)}; full build ${r.fullBuildMs} ms; load ${r.loadAverage.toFixed(2)}; apply job ${JSON.stringify(r.applyPhases)}`;
      if (r.scenario === 'correction') {
        options.log?.(
          `apply ${works} works, correction #${r.sequence}: answered in ${r.applyCallMs} ms, visible everywhere after ${r.applyToVisibleMs} ms (json ${r.visibleMs.json}, md ${r.visibleMs.markdown}, html ${r.visibleMs.html}, query ${r.visibleMs.query}; ${build})`,
        );
        runs.push(r);
      } else {
        options.log?.(
          `apply ${works} works, new work #${r.sequence} ${r.slug} (${r.score.file}, ${r.score.bytes} bytes; submit ${r.submitMs} ms, accept ${r.acceptMs} ms): answered in ${r.applyCallMs} ms, visible everywhere after ${r.applyToVisibleMs} ms (json ${r.visibleMs.json}, md ${r.visibleMs.markdown}, html ${r.visibleMs.html}, query ${r.visibleMs.query}, score ${r.visibleMs.score}; ${build})`,
        );
        newWorkRuns.push(r);
      }
    }
  }
  return {
    runs,
    newWorkRuns,
    pass: runs.every((r) => r.works < 10_000 || r.pass),
    newWorkPass: newWorkRuns.every((r) => r.works < 10_000 || r.pass),
    stall,
    warmUps,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const sizes = arg('--sizes')?.split(',').map(Number);
  const keep = arg('--keep') ? path.resolve(arg('--keep')!) : undefined;
  const result = await runApplyBench({
    quick: process.argv.includes('--quick'),
    sizes,
    scenarios: parseScenarios(arg('--scenarios')),
    repeat: arg('--repeat') ? Number(arg('--repeat')) : undefined,
    keep,
    stall: !process.argv.includes('--no-stall'),
    log: (l) => console.log(l),
  });
  console.log(JSON.stringify(result, null, 2));
}
