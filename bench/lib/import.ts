/**
 * Bench section "import" (opt-in: `npm run bench -- --only import`): bringing the OpenScore
 * corpora in through review (docs/imports.md).
 *
 *   1. Dry run of each corpus (`npm run import -- <corpus> --dry-run`): wall time and peak RSS,
 *      counts planned / skipped (with reasons) / duplicates; anchor, in the same run: reading and
 *      hashing every score file of the corpus (the floor any import pays).
 *   2. Real submit into a fresh archive (`npm start` on loopback, fresh data folder): wall time and
 *      RSS of the importer; anchor: the dry run of the same items.
 *   3. Accept (approving the proposed vocabulary terms) and apply the batch as one change
 *      (`POST /api/v1/admin/batches/{id}/accept`, then `/apply`, each run in the background and
 *      polled to its end through its tracking resource), then a
 *      full build of the resulting content repository twice in a row (`scripts/build.ts`, the
 *      imported scores read from the archive's blob store): cold, then warm, with a render cache
 *      of their own (empty at first), or with `--engrave-cache DIR` (kept between runs; when it
 *      already holds engravings, the first build is reported as such, not as cold, and the
 *      server's own cache starts as a hard-linked copy of it, so the apply's rebuild is warm too).
 *      `--import-cold-build` keeps the given cache for the server (a warm apply) but gives the two
 *      builds a fresh empty cache of their own: the first build is cold whatever DIR holds.
 *
 * Whole corpora by default; `--import-limit N` takes the first N scores of each corpus
 * (development and CI). Steps 2 and 3 need `--import-submit` (they take long at full size).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { figure, type Figure, type Section } from './results.ts';
import { PROJECT_ROOT, round, startArchive } from './util.ts';
import { batchActionProgressLine } from '../../src/domain/batch-actions.ts';
import { cachedEngravings } from './engrave.ts';
import type { BatchActionView } from '../../src/schemas/imports.ts';

const CORPORA = ['openscore-lieder', 'openscore-string-quartets'];
const ADMIN_KEY = 'bench-import-admin-key-1';

async function scoreFiles(dir: string, out: string[] = [], depth = 0): Promise<string[]> {
  if (depth > 8) return out;
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await scoreFiles(p, out, depth + 1);
    else if (e.name.endsWith('.mxl')) out.push(p);
  }
  return out;
}

/** `node <script> args` under /usr/bin/time: wall ms, peak RSS KB, stdout. */
function timed(
  args: string[],
  env: Record<string, string> = {},
): { ms: number; rssKb: number; stdout: string; code: number | null } {
  const t0 = Date.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'nice', '-n', '10', process.execPath, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const rss = Number(/([0-9]+)\s*$/.exec(r.stderr.trim())?.[1] ?? NaN);
  return { ms: Date.now() - t0, rssKb: rss, stdout: r.stdout, code: r.status };
}

/**
 * A batch action as the archive runs it (docs/imports.md): asked with `Prefer: respond-async`
 * (202 and the tracking resource in Location), then polled until it is no longer running, with a
 * progress line every few seconds.
 */
export async function batchAction(
  url: string,
  key: string,
  batchId: string,
  action: 'accept' | 'apply',
  body: Record<string, unknown>,
  log: (line: string) => void,
): Promise<{ status: number; action: BatchActionView }> {
  const headers = { authorization: `Bearer ${key}` };
  const res = await fetch(`${url}/api/v1/admin/batches/${batchId}/${action}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify(body),
  });
  const first = (await res.json()) as { data?: BatchActionView; detail?: string };
  if (!first.data) throw new Error(`${action} ${batchId} answered ${res.status}: ${first.detail ?? ''}`);
  let current = first.data;
  const where = res.headers.get('location') ?? current.links.self;
  let lastLine = 0;
  while (current.state === 'running') {
    await new Promise((r) => setTimeout(r, 1000));
    const poll = await fetch(where, { headers });
    if (!poll.ok) throw new Error(`GET ${where} answered ${poll.status}`);
    current = ((await poll.json()) as { data: BatchActionView }).data;
    if (Date.now() - lastLine >= 5000) {
      lastLine = Date.now();
      log(batchActionProgressLine(current));
    }
  }
  log(batchActionProgressLine(current));
  return { status: res.status, action: current };
}

export function importSection(
  options: { limit?: number; submit?: boolean; cacheDir?: string; coldBuild?: boolean } = {},
): Section {
  return {
    name: 'import',
    optIn: true,
    description:
      'import of the OpenScore corpora through review: dry run and real submit (time, memory, counts) vs reading and hashing the files; accept + apply and a full build cold and warm',
    async run(ctx) {
      const figures: Figure[] = [];
      const details: Record<string, unknown> = { limit: options.limit ?? null, submit: options.submit === true };
      const limitArgs = options.limit ? ['--limit', String(options.limit)] : [];
      for (const name of CORPORA) {
        const corpus = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', name);
        let files = (await scoreFiles(path.join(corpus, 'scores'))).sort();
        if (options.limit) files = files.slice(0, options.limit);
        // Anchor: read and hash every file the run will read.
        const t0 = Date.now();
        for (const f of files)
          createHash('sha256')
            .update(await fs.readFile(f))
            .digest('hex');
        const readMs = Date.now() - t0;
        ctx.log(`${name}: read and hashed ${files.length} files in ${readMs} ms`);
        const dry = timed(['scripts/import.ts', corpus, '--dry-run', '--json', ...limitArgs]);
        const report = JSON.parse(dry.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, any>;
        const reasons: Record<string, number> = {};
        for (const s of (report.skipped ?? []) as Array<{ reason: string }>)
          reasons[s.reason] = (reasons[s.reason] ?? 0) + 1;
        details[name] = {
          files: files.length,
          readAndHashMs: readMs,
          dryRun: {
            ms: dry.ms,
            maxRssKb: dry.rssKb,
            exit: dry.code,
            planned: report.planned,
            skipped: (report.skipped ?? []).length,
            skippedBy: reasons,
            duplicates: report.duplicates,
            failed: report.failed,
            unlistedFiles: report.unlistedFiles,
          },
        };
        ctx.log(
          `${name}: dry run ${dry.ms} ms, ${dry.rssKb} KB, planned ${report.planned}, skipped ${(report.skipped ?? []).length}`,
        );
        figures.push(figure(`${name} dry run`, 'ms', dry.ms, readMs, 'reading and hashing the same files', 'lower'));
      }
      if (!options.submit)
        return {
          status: 'ok',
          message: 'dry runs only (add --import-submit for submit, apply and builds)',
          figures,
          details,
        };

      const dataDir = ctx.cleanup.tempDir('import');
      const cache = options.cacheDir ? path.resolve(options.cacheDir) : path.join(dataDir, 'bench-render-cache');
      await fs.mkdir(cache, { recursive: true });
      const given = cachedEngravings(cache);
      details.givenCache = given > 0 ? { dir: cache, engravings: given } : null;
      if (given > 0) {
        // The server's render cache (and view) start as links to the given one: the apply's rebuild is warm.
        await fs.mkdir(path.join(dataDir, 'blobs'), { recursive: true });
        for (const [from, to] of [
          [path.join(cache, 'named'), path.join(dataDir, 'blobs', 'named')],
          [path.join(cache, 'render-view'), path.join(dataDir, 'render-view')],
        ] as const)
          if (spawnSync('cp', ['-al', from, to]).status !== 0) ctx.log(`could not link ${from} into the archive`);
        ctx.log(
          `the given render cache ${cache} holds ${given} engravings: the apply is warm${options.coldBuild ? ' (the builds start from an empty cache: --import-cold-build)' : ', and so is the first build'}`,
        );
      }
      // The builds' cache: the given one (filled by the first build when empty), or with
      // --import-cold-build an empty one of their own.
      const buildCache = options.coldBuild ? path.join(dataDir, 'build-render-cache') : cache;
      await fs.mkdir(buildCache, { recursive: true });
      const buildCacheGiven = buildCache === cache ? given : 0;
      details.buildCache = { dir: buildCache, engravingsAtStart: buildCacheGiven, cold: buildCacheGiven === 0 };
      const { url, proc: server } = await startArchive({
        cleanup: ctx.cleanup,
        label: 'archive',
        env: { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: `bench=${ADMIN_KEY}` },
        timeoutMs: 600_000,
      });
      try {
        for (const name of CORPORA) {
          const corpus = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', name);
          const run = timed(['scripts/import.ts', corpus, '--json', '--server', url, ...limitArgs], {
            ARCHIVE_ADMIN_KEY: ADMIN_KEY,
          });
          const report = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, any>;
          const dryMs = ((details[name] as any).dryRun.ms as number) ?? null;
          (details[name] as any).submit = {
            ms: run.ms,
            maxRssKb: run.rssKb,
            exit: run.code,
            submitted: report.submitted,
            alreadySubmitted: report.alreadySubmitted,
            failed: report.failed,
          };
          figures.push(figure(`${name} submit`, 'ms', run.ms, dryMs, 'dry run of the same items', 'lower'));
          ctx.log(`${name}: submit ${run.ms} ms, submitted ${report.submitted}`);
          const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
          for (const action of ['accept', 'apply'] as const) {
            const t0 = Date.now();
            // The editor approves the genre the quartets propose ("String quartet"), or they could not be applied.
            const done = await batchAction(
              url,
              ADMIN_KEY,
              name,
              action,
              action === 'accept' ? { approveTerms: true } : {},
              ctx.log,
            );
            (details[name] as any)[action] = {
              ms: Date.now() - t0,
              status: done.status,
              state: done.action.state,
              actedOn: done.action.actedOn,
              failed: done.action.failed,
              // Why each failed item failed (its problem detail), so a failure at size can be read from the result.
              failures: done.action.items
                .filter((i) => i.outcome === 'failed')
                .map((i) => ({
                  itemKey: i.itemKey,
                  title: i.problem?.title ?? null,
                  detail: i.problem?.detail ?? null,
                })),
            };
            for (const f of (
              (details[name] as any)[action].failures as { itemKey: string; detail: string | null }[]
            ).slice(0, 5))
              ctx.log(`${name}: ${action} failed for ${f.itemKey}: ${f.detail}`);
            ctx.log(
              `${name}: ${action} ${Date.now() - t0} ms (${done.action.actedOn} acted on, ${done.action.failed} failed, ${done.action.state})`,
            );
          }
        }
      } finally {
        await server.stop();
      }
      // Full builds of the content the applies produced: cold, then warm. The imported scores are
      // blobs of the archive (--blobs-dir); without it the build would find none to engrave.
      const content = path.join(dataDir, 'content');
      for (const label of ['cold', 'warm'] as const) {
        const out = path.join(dataDir, `build-${label}`);
        const b = timed(
          [
            'scripts/build.ts',
            '--content',
            content,
            '--out',
            out,
            '--blobs-dir',
            path.join(dataDir, 'blobs'),
            '--render-cache',
            buildCache,
          ],
          { PUBLIC_BASE_URL: 'http://127.0.0.1:4321' },
        );
        const info = JSON.parse(await fs.readFile(path.join(out, 'build.json'), 'utf8').catch(() => '{}')) as {
          scores?: Record<string, number>;
          works?: number;
        };
        details[`fullBuild${label === 'cold' ? 'Cold' : 'Warm'}`] = {
          ms: b.ms,
          maxRssKb: b.rssKb,
          exit: b.code,
          works: info.works ?? null,
          scores: info.scores ?? null,
        };
        ctx.log(`full build (${label}): ${b.ms} ms, exit ${b.code}, scores ${JSON.stringify(info.scores ?? null)}`);
        await fs.rm(out, { recursive: true, force: true });
      }
      const cold = (details.fullBuildCold as { ms: number }).ms;
      const warm = (details.fullBuildWarm as { ms: number }).ms;
      figures.push(
        figure(
          'full build, render cache warm',
          'ms',
          warm,
          cold,
          buildCacheGiven > 0 ? 'the first build (the given cache already held engravings)' : 'the same build cold',
          'lower',
        ),
      );
      details.warmOverCold = round(warm / cold, 3);
      return { status: 'ok', figures, details };
    },
  };
}
