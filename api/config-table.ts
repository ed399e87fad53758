/**
 * Every environment variable the archive reads, as one table: name, type, default, meaning, and
 * which part of the archive reads it. The server's variables are parsed and checked by
 * `loadConfig` (api/config.ts), which reads the environment only through `settingValue`, so a
 * variable missing here cannot be read at all; `npm run docs:settings` writes README's
 * "Configuration" table from this one (test/unit/config-table.test.ts fails when they differ).
 */
import { totalmem } from 'node:os';

/** Which part of the archive reads a variable. */
export type SettingReader = 'server' | 'build' | 'scripts' | 'tests';

export interface SettingRow {
  /** Variables documented together (one README row); each is read on its own. */
  names: readonly string[];
  /** What a value is, in words (the README's "type" column). */
  type: string;
  /** The default, as README shows it (Markdown). */
  default: string;
  readBy: SettingReader;
  /** What it does (Markdown). */
  meaning: string;
}

/*
 * Defaults that are computed, not written in a row: here, so that the configuration (api/config.ts)
 * reads them from the table and not from the implementation they configure.
 */

/** The least resident memory after which the process is replaced (each Astro run leaves its modules loaded). */
export const WARM_BUILDER_MIN_RSS_BYTES = 1536 * 1024 * 1024;

/**
 * The default memory budget of the warm build process (ARCHIVE_WARM_BUILDER_MAX_RSS_MB unset): a
 * quarter of the memory this process may use (the container's limit when there is one, else the
 * machine's), and never less than 1.5 GiB. One incremental build of 100,000 works leaves the
 * process well above 1.5 GiB (the catalog kept for the next apply, Astro's pages), so a fixed
 * 1.5 GiB replaced it after every build there and no apply at that size found it warm
 * (bench/README.md, "Apply at 100,000 works").
 */
export function defaultWarmBuilderMaxRssBytes(): number {
  const total = totalmem();
  const constrained = process.constrainedMemory();
  const memory = constrained > 0 && constrained < total ? constrained : total;
  return Math.max(WARM_BUILDER_MIN_RSS_BYTES, Math.floor(memory / 4));
}

export const SETTINGS: readonly SettingRow[] = [
  {
    names: ['PORT', 'HOST'],
    type: 'port, host name or address',
    default: '`4321`, `127.0.0.1`',
    readBy: 'server',
    meaning: 'where `npm start` listens',
  },
  {
    names: ['PUBLIC_BASE_URL'],
    type: 'origin URL',
    default: '`http://localhost:4321`',
    readBy: 'server',
    meaning: 'origin of every absolute link (no path)',
  },
  {
    names: ['ARCHIVE_DATA_DIR'],
    type: 'path',
    default: '`./data`',
    readBy: 'server',
    meaning: 'runtime state (git-ignored)',
  },
  {
    names: ['ARCHIVE_CONTENT_REPO'],
    type: 'path',
    default: '`$ARCHIVE_DATA_DIR/content`',
    readBy: 'server',
    meaning: 'the content repository to build and review',
  },
  {
    names: ['ARCHIVE_LIBRARY_KEYS', 'ARCHIVE_CURATOR_KEYS', 'ARCHIVE_ADMIN_KEYS'],
    type: 'keys',
    default: 'none',
    readBy: 'server',
    meaning:
      'comma-separated keys per role; an entry is `secret` or `label=secret` (the label names the holder in commits; secrets of 8+ characters). Protected routes refuse every request while none is set',
  },
  {
    names: ['ARCHIVE_FETCH_MAX_BYTES', 'ARCHIVE_FETCH_TIMEOUT_MS'],
    type: 'bytes, milliseconds',
    default: '200 MiB, 60000',
    readBy: 'server',
    meaning: 'limits for fetching contributor files during review',
  },
  {
    names: ['ARCHIVE_FETCH_ALLOW_HOSTS'],
    type: 'host list',
    default: 'empty',
    readBy: 'server',
    meaning:
      'host names or IPs the review fetcher may reach even on loopback/private addresses (still HTTPS only), comma-separated: `host` allows port 443 only, `host:port` (`[v6]:port`) that port; a refusal names the port and the entry that would allow it',
  },
  {
    names: ['GITHUB_TOKEN', 'GITHUB_REPOSITORY', 'GITHUB_API_URL'],
    type: 'token, owner/name, URL',
    default: 'none, none, `https://api.github.com`',
    readBy: 'server',
    meaning: 'review as GitHub pull requests instead of local branches',
  },
  {
    names: ['GITHUB_OAUTH_CLIENT_ID', 'GITHUB_OAUTH_CLIENT_SECRET'],
    type: 'string',
    default: 'none',
    readBy: 'server',
    meaning:
      'a GitHub OAuth app (callback `PUBLIC_BASE_URL/api/v1/reader/sign-in/callback`): readers sign in with GitHub and download files marked signed-in. Both or neither; without them records and pages say "signed-in download is not offered by this archive" (a build input: changing it rebuilds). See `docs/reader-sign-in.md`',
  },
  {
    names: ['GITHUB_OAUTH_BASE_URL'],
    type: 'URL',
    default: '`https://github.com`',
    readBy: 'server',
    meaning:
      "where reader sign-in finds GitHub's `/login/oauth/authorize` and `/login/oauth/access_token` (tests point it at a local fake); `GET /user` goes to `GITHUB_API_URL`",
  },
  {
    names: ['GITHUB_WEBHOOK_SECRET'],
    type: 'string',
    default: 'none',
    readBy: 'server',
    meaning: 'verifies `X-Hub-Signature-256` of webhook deliveries (without it every delivery is refused)',
  },
  {
    names: ['GITHUB_APP_ID', 'GITHUB_APP_INSTALLATION_ID', 'GITHUB_APP_PRIVATE_KEY_FILE'],
    type: 'number, number, path',
    default: 'none',
    readBy: 'server',
    meaning:
      "review on GitHub as a GitHub App instead of `GITHUB_TOKEN` (all three, with `GITHUB_REPOSITORY`): the app's ID, its installation on the content repository, its private key file; installation tokens are minted as needed (`docs/github-review.md`)",
  },
  {
    names: ['ARCHIVE_LIBRARY_MAX_FILE_BYTES'],
    type: 'bytes',
    default: '`4294967296`',
    readBy: 'server',
    meaning: 'largest file a library import may declare',
  },
  {
    names: ['ARCHIVE_BASE_URL'],
    type: 'URL',
    default: '`http://localhost:4321`',
    readBy: 'scripts',
    meaning:
      'the running archive every command-line tool calls: `npm run review`, `npm run archive`, `npm run mcp` (stdio MCP server) and `examples/agent.ts`. `--server URL` overrides it for `review` and `archive`; `ARCHIVE_SERVER_URL` is an older alias. An unreachable server is reported with the address tried and where it came from',
  },
  {
    names: ['LOG_LEVEL'],
    type: 'pino level',
    default: '`info`',
    readBy: 'server',
    meaning: 'server log level (logs carry paths only, never query strings)',
  },
  {
    names: ['ARCHIVE_CONTRIBUTION_RATE_LIMIT', 'ARCHIVE_CORRECTION_RATE_LIMIT'],
    type: 'requests/seconds',
    default: '`20/60`',
    readBy: 'server',
    meaning: 'public submissions per client address: `<requests>/<seconds>` (429 with `Retry-After` beyond)',
  },
  {
    names: ['ARCHIVE_CREDENTIAL_FAILURE_LIMIT'],
    type: '`<failures>/<seconds>`',
    default: '`10/60`',
    readBy: 'server',
    meaning:
      'failed credential checks (desk and API sign-in, `Authorization: Bearer`, `X-Archive-Import-Key`) per client address; while used up, every key is refused with 429 and `Retry-After` before it is compared, the right one included',
  },
  {
    names: ['ARCHIVE_KEY_RATE_LIMIT'],
    type: '`<requests>/<seconds>`',
    default: '`6000/60`',
    readBy: 'server',
    meaning: 'requests one key label may authenticate, from any address (429 with `Retry-After` beyond)',
  },
  {
    names: ['ARCHIVE_ALLOWED_HOSTS'],
    type: 'host names, or `*`',
    default: "unset (PUBLIC_BASE_URL's host and the loopback names)",
    readBy: 'server',
    meaning:
      "comma-separated host names (`archive.example.org`, `.example.org` for its subdomains too) requests may be addressed to besides `PUBLIC_BASE_URL`'s host and the loopback names (`localhost`, `127.0.0.1`, `::1`); a request with another `Host` (or, behind a trusted proxy, forwarded host) is refused on every route with 421 `host-not-allowed` (DNS rebinding). List a LAN name or an address a health check uses; `*` turns the check off",
  },
  {
    names: ['ARCHIVE_MCP_ALLOWED_ORIGINS'],
    type: 'origins, or `*`',
    default: "unset (the service's own origin only)",
    readBy: 'server',
    meaning:
      "comma-separated origins (`https://app.example.org`) whose browser pages may call `/mcp`, or `*` for any; a request whose `Origin` is neither `PUBLIC_BASE_URL`'s origin nor listed is refused with 403 (MCP hosts and CLIs send no `Origin` and are always allowed)",
  },
  {
    names: ['ARCHIVE_BACKUP_WRITE_PAUSE_MS'],
    type: 'milliseconds',
    default: '`10000`',
    readBy: 'server',
    meaning:
      'the longest `npm run backup` may pause state writes so its snapshot converges under steady writes (`0`: never pause)',
  },
  {
    names: ['ARCHIVE_READ_PROCESSES'],
    type: 'count',
    default: '`1`',
    readBy: 'server',
    meaning:
      'processes that answer reads (1-64). With 1, one process answers everything. With N > 1, `npm start` runs a write process on `PORT` (intake, review, applies, builds) and N read processes on `PORT`+1 ... `PORT`+N (static files, queries, resolve, MCP, sessions), which forward everything else to the writer and swap to each new build with it; needs `ARCHIVE_REDIS_URL`. The generated nginx.conf lists them (docs/operations.md, "Several processes")',
  },
  {
    names: ['ARCHIVE_REDIS_URL'],
    type: 'redis:// URL',
    default: "unset (this process's memory)",
    readBy: 'server',
    meaning:
      "Redis that holds browser sessions, credential limits and intake rate limits for every process and machine (`redis://[:password@]host:port/db`, one database per archive); unset, they live in the one process's memory",
  },
  {
    names: ['ARCHIVE_WRITER_URL'],
    type: 'URL',
    default: 'unset',
    readBy: 'server',
    meaning:
      "makes this process a read process of another machine's archive: it serves the build `ARCHIVE_DATA_DIR/current` names (a shared or synced data folder), follows that link within a second, and forwards writes to this URL (the write process, which lists this machine in `ARCHIVE_TRUSTED_PROXIES`); needs `ARCHIVE_REDIS_URL`",
  },
  {
    names: ['ARCHIVE_TRUSTED_PROXIES'],
    type: 'address/CIDR list',
    default: 'unset (trust none)',
    readBy: 'server',
    meaning:
      'comma-separated IP addresses/CIDRs of reverse proxies (e.g. `127.0.0.1,10.0.0.0/8`); only a request from one of them has its `X-Forwarded-For` client address used for rate limits and logs; forwarded headers from anyone else are ignored',
  },
  {
    names: ['ARCHIVE_DOWNLOAD_OFFLOAD'],
    type: '`none` or `nginx`',
    default: '`none`',
    readBy: 'server',
    meaning:
      "`nginx`: library files and published blobs requested through the build's `nginx.conf` are handed to nginx with `X-Accel-Redirect` after the key check (nginx sends the bytes with sendfile); requests that reach Node directly are still answered by Node. See docs/decisions/0057-large-downloads-nginx-moves-the-bytes.md",
  },
  {
    names: ['ARCHIVE_METRICS_KEYS'],
    type: 'keys',
    default: 'none',
    readBy: 'server',
    meaning:
      'comma-separated keys (`label=secret`) that may read `GET /metrics` on the main port (`Authorization: Bearer <secret>`); without one (and without `ARCHIVE_METRICS_PORT`) `/metrics` answers 401 saying how to configure it',
  },
  {
    names: ['ARCHIVE_METRICS_PORT'],
    type: 'port',
    default: 'unset',
    readBy: 'server',
    meaning: 'a second listener on 127.0.0.1 that serves only `/metrics`, without a key (must differ from `PORT`)',
  },
  {
    names: [
      'ARCHIVE_HEADERS_TIMEOUT_MS',
      'ARCHIVE_REQUEST_TIMEOUT_MS',
      'ARCHIVE_KEEP_ALIVE_TIMEOUT_MS',
      'ARCHIVE_IDLE_TIMEOUT_MS',
    ],
    type: 'milliseconds',
    default: '20000, 300000, 5000, 60000',
    readBy: 'server',
    meaning:
      'server timeouts: headers must arrive within, a whole request within (uploads resume), an idle keep-alive connection closed after, any silent socket closed after',
  },
  {
    names: ['ARCHIVE_DRAIN_TIMEOUT_MS'],
    type: 'milliseconds',
    default: '10000',
    readBy: 'server',
    meaning:
      'on SIGTERM/SIGINT, how long requests in progress may finish before their connections are closed (exit 1 then; exit 0 when all finished)',
  },
  {
    names: ['ARCHIVE_SESSION_HOURS'],
    type: 'hours',
    default: '12',
    readBy: 'server',
    meaning:
      "absolute lifetime (1-720 hours) of a browser session: the review desk's sign-in with an admin key (`POST /api/v1/admin/session`, or the `/admin/` form). Sessions are held in memory: a restart signs everybody out",
  },
  {
    names: ['ARCHIVE_FAST_PATH_LOG_SAMPLE'],
    type: 'share (0-1)',
    default: '0.01',
    readBy: 'server',
    meaning: "share of the in-memory fast path's answers that are logged (0 to 1); every one is counted in `/metrics`",
  },
  {
    names: ['ARCHIVE_STATIC_CACHE_MB'],
    type: 'MiB',
    default: '`64`',
    readBy: 'server',
    meaning:
      'bytes of the build\'s small files (up to 1 MiB: records, pages, engraved pages and their compressed forms) kept in memory (0-65536); beyond it the least recently asked-for leave memory and are read again from disk, usually from the page cache (docs/operations.md, "Memory")',
  },
  {
    names: ['ARCHIVE_STATIC_FACTS_MB'],
    type: 'MiB',
    default: '`32`',
    readBy: 'server',
    meaning:
      'heap the server may spend remembering files of the build it has answered (path, size, ETag, header lines; about 1 KiB a file, so the default remembers about 30,000) (1-65536); beyond it the least recently asked-for is forgotten and hashed again when next asked for',
  },
  {
    names: ['ARCHIVE_RECORD_CACHE_MB'],
    type: 'MiB',
    default: '`8`',
    readBy: 'server',
    meaning:
      'JSON bytes of full work records kept parsed for resolve and the contribution template (0-65536); their objects take about three times as much heap',
  },
  {
    names: ['ARCHIVE_ANSWER_CACHE_MB'],
    type: 'MiB',
    default: '`16`',
    readBy: 'server',
    meaning:
      'bytes of finished answers kept per answer cache (0-65536); there are two, catalog listings (`GET /api/v1/works`) and resolve answers, each also capped at 2,048 answers',
  },
  {
    names: ['ARCHIVE_BLOB_STORE'],
    type: '`local` or `s3`',
    default: '`local`',
    readBy: 'server',
    meaning:
      'where blobs (library files, verified contributor files, published blobs) live: `local` = `$ARCHIVE_DATA_DIR/blobs`, `s3` = `ARCHIVE_S3_BUCKET` (docs/storage.md)',
  },
  {
    names: ['ARCHIVE_S3_BUCKET', 'ARCHIVE_S3_PREFIX'],
    type: 'bucket name, key prefix',
    default: 'none, empty',
    readBy: 'server',
    meaning: 'the bucket of the S3 blob store (required with `s3`; 3-63 characters) and a key prefix for its objects',
  },
  {
    names: ['ARCHIVE_S3_ENDPOINT', 'ARCHIVE_S3_REGION'],
    type: 'URL, region',
    default: "AWS's, `us-east-1`",
    readBy: 'server',
    meaning:
      "an S3-compatible service's URL (MinIO, Ceph, R2 ...) and region; used by the S3 blob store, `publish:static`, `backup` and `restore`",
  },
  {
    names: ['ARCHIVE_S3_ACCESS_KEY_ID', 'ARCHIVE_S3_SECRET_ACCESS_KEY'],
    type: 'string',
    default: "none (the AWS SDK's default chain)",
    readBy: 'server',
    meaning: 'S3 credentials; both or neither',
  },
  {
    names: ['ARCHIVE_S3_FORCE_PATH_STYLE'],
    type: 'boolean',
    default: '`false`',
    readBy: 'server',
    meaning: '`true`: the bucket goes in the path (`endpoint/bucket/key`), as most self-hosted services need',
  },
  {
    names: ['ARCHIVE_S3_PRESIGN_SECONDS'],
    type: 'seconds',
    default: '`0` (off)',
    readBy: 'server',
    meaning:
      'with the S3 blob store: library and blob downloads answer 307 to a presigned URL valid this many seconds (at most 604800), after the key check',
  },
  {
    names: ['ARCHIVE_INCREMENTAL_BUILDS'],
    type: '`0` or `1`',
    default: '`1`',
    readBy: 'server',
    meaning:
      '`0`: every apply/publication (and the start-up build) rebuilds the whole site; `1`: only what the change touches, as a layer over the last plain build (docs/decisions/0051-layers-instead-of-copies.md), falling back to a full build for shared inputs (docs/review.md)',
  },
  {
    names: ['ARCHIVE_WARM_BUILDER'],
    type: '`0` or `1`',
    default: '`1`',
    readBy: 'server',
    meaning:
      "`1`: the rebuilds that make an apply visible run one after another in one long-lived build process (`scripts/build-worker.ts`), which keeps Node, the build scripts and Astro's compiled pages loaded between them (an apply after the first renders its pages without running Vite: docs/decisions/0053-warm-renderer.md); it is replaced after 50 builds or at its memory budget (`ARCHIVE_WARM_BUILDER_MAX_RSS_MB`), and when it dies. The reconcile's full builds keep a process of their own. `0`: a new process per build (docs/review.md)",
  },
  {
    names: ['ARCHIVE_WARM_BUILDER_WARM_UP'],
    type: '`0` or `1`',
    default: '`1`',
    readBy: 'server',
    meaning:
      "`1` (with `ARCHIVE_WARM_BUILDER=1`): at start, once the build checkout holds the content's HEAD, the warm build process plans a build on the served build and renders its pages into a scratch folder, which it then removes (`build/warm-up.ts`). The first apply after a start then finds the served build's catalog loaded and Astro's pages compiled, as every later apply does (at 100,000 works the first correction after a start went from 24.2 s to 9.6 s, and the warm-up took 14.6 s at start: bench/README.md). It costs one scoped build's CPU at start; an apply that comes meanwhile waits for it. The server logs its time. `0`: the first apply pays for both",
  },
  {
    names: ['ARCHIVE_WARM_BUILDER_MAX_RSS_MB'],
    type: 'MiB',
    default: "a quarter of the memory (the container's limit, else the machine's), at least `1536`",
    readBy: 'server',
    meaning:
      'the warm build process is replaced after a build that left its resident memory at or above this (256-65536); it keeps the catalog and Astro\'s compiled pages for the next apply, which at 100,000 works takes more than 1.5 GiB, and a process that is replaced after each build makes every apply a cold one (bench/README.md, "Apply at 100,000 works")',
  },
  {
    names: ['ARCHIVE_BUILD_BATCH_WORKS'],
    type: 'works',
    default: '`10000`',
    readBy: 'build',
    meaning:
      'works per Astro run of a full build (`npm run build -- --batch-works N` too): a larger catalog renders in batches plus one run for the listings, with the same output, so memory follows the batch (docs/decisions/0028-full-builds-render-in-batches.md)',
  },
  {
    names: ['ARCHIVE_MEMORY_LIMIT_MB'],
    type: 'MiB',
    default: 'unset',
    readBy: 'server',
    meaning:
      'the most memory the whole service may hold, MiB (1024-1048576): the server with its caches, the read processes, the engraving and audio worker threads (per-worker limits), the warm build process and the small children (docs/operations.md, "Memory"). The memory settings not set by hand take their share of it (the engraving workers 30 % between them, at most 2048 MiB each; the warm build process 35 %), and a configuration whose parts do not fit stops the start, naming them; once started, the server logs its plan and `/metrics` reports it (`archive_memory_bound_bytes`) beside the process tree\'s resident memory (`archive_process_tree_rss_bytes`)',
  },
  {
    names: ['ARCHIVE_ENGRAVE_WORKERS'],
    type: 'worker threads',
    default: 'number of cores',
    readBy: 'server',
    meaning:
      'worker threads of the engraving pool (1-64): Verovio engraves scores there for the build, `npm run engrave`, the review checks and the desk\'s score preview, never on the server\'s thread (docs/site.md, "Engraving pool and render cache")',
  },
  {
    names: ['ARCHIVE_ENGRAVE_CPU_MS'],
    type: 'milliseconds',
    default: '`300000`',
    readBy: 'server',
    meaning:
      'CPU time budget per score, measured on the engraving worker\'s own thread (so a busy machine does not spend it faster): a score that has used more is stopped, its worker replaced, and the score refused with the problem `engraving-over-budget` naming the limit (a failed check at accept, a "not rendered" note in the build)',
  },
  {
    names: ['ARCHIVE_ENGRAVE_TIMEOUT_MS'],
    type: 'milliseconds',
    default: '`1200000`',
    readBy: 'server',
    meaning:
      "the wall-clock backstop per score on an idle machine, multiplied by the load per core (the 1-minute load average or the pool's busy workers over the cores, at least 1): it stops only a worker that makes no progress; the CPU and memory budgets are what bound the work",
  },
  {
    names: ['ARCHIVE_ENGRAVE_MEMORY_MB'],
    type: 'MiB',
    default: '`2048`',
    readBy: 'server',
    meaning:
      "memory budget per engraving worker, MiB (64-65536), V8's heap and Verovio's WebAssembly memory together: the heap may take a quarter (at least 48 MiB), and the WebAssembly memory is capped at the rest inside the worker, so a score that would grow past it fails there and is refused like one over its CPU time. A worker whose Verovio memory passed 256 MiB (or a quarter of the budget, when lower) is replaced after its score, so memory never stays at the largest score's size",
  },
  {
    names: ['ARCHIVE_SEARCH_SHARD_WORKS'],
    type: 'works',
    default: '`1000`',
    readBy: 'build',
    meaning:
      "works per Pagefind index: a larger catalog gets several indexes, named in `pagefind/shards.json` and merged by the search page in the browser, so an incremental build re-indexes only the shards its changed works fall in (about 1 s of Pagefind per 1,000 works) and the build's memory follows the shard; a larger value means fewer indexes for the browser to merge and slower applies (docs/decisions/0042-search-index-in-shards.md)",
  },
  {
    names: ['ARCHIVE_WORKS_INDEX_PAGE_SIZE'],
    type: 'works (1-1000)',
    default: '`100`',
    readBy: 'build',
    meaning:
      'works per page, on average, of the listings of works for people: the works index (`/works/`, `/works/by-title/<n>/`, `/works/by-composer/<n>/`) and each browse value (`/browse/<facet>/<value>/`, `/browse/<facet>/<value>/<n>/`); also how many works a rendering profile\'s page lists (its JSON record lists all). Pages start where the content says (a work whose slug hashes into a fixed fraction), so a page holds from a quarter of the value (the last page excepted) to four times it, and a new work changes its own page, not every page after it (docs/review.md, "Pages that do not shift"). A build keeps every page\'s key in `works-index-pages.json` and `browse-pages.json`, and an incremental build renders only the pages whose key changed (docs/review.md, "The works index in an incremental build", "Browse pages in an incremental build")',
  },
  {
    names: ['ARCHIVE_LAYER_MAX_PATHS'],
    type: 'paths (0-10000000)',
    default: '`20000`',
    readBy: 'server',
    meaning:
      'how many paths (changed and deleted files) a layered build may carry before the next incremental build compacts. An incremental build over a plain build or a small enough layer writes only a delta (`layer.json`, `client/` with the files changed since its base, `deleted/`), served over its base without copying it; past the bound it links the whole view into a plain folder instead. The server compacts a served layer in the background (lowest CPU priority) once it carries half the bound, so an apply rarely reaches it. `0` turns layers off (every incremental build links a copy of its base). docs/decisions/0051-layers-instead-of-copies.md',
  },
  {
    names: ['ARCHIVE_RECONCILE_SCHEDULE'],
    type: '`off`, `<n>m` / `<n>h` / `<n>d`, or `daily@HH:MM`',
    default: '`off`',
    readBy: 'server',
    meaning:
      'when the server replaces a served incremental build with a full build of the same commit (the reconcile: in the background, lowest CPU priority, reusing the render cache; nothing to do when the served build is full). An interval (1 minute to 7 days) runs at whole multiples of it in UTC (`6h`: 00:00, 06:00, 12:00, 18:00 UTC); `daily@03:00` once a day at that UTC time; `off`: only on demand (`POST /api/v1/admin/reconcile`) (docs/operations.md, "Reconcile")',
  },
  {
    names: ['ARCHIVE_RECONCILE_DELAY_MS'],
    type: 'milliseconds or `off`',
    default: '`off`',
    readBy: 'server',
    meaning:
      'the "after each apply" reconcile: after an incremental apply, this long without another one, a full build of the same commit runs in the background and replaces it (and a server started on an incremental build does the same); `off`: never. At 100,000 works that full build takes close to an hour, so prefer ARCHIVE_RECONCILE_SCHEDULE',
  },
  {
    names: ['ARCHIVE_CHROMIUM_PATH'],
    type: 'path',
    default: '`/usr/bin/chromium`',
    readBy: 'tests',
    meaning: 'the browser the site tests drive',
  },
  {
    names: ['ARCHIVE_SKIP_BROWSER_TESTS'],
    type: '`1`',
    default: 'unset',
    readBy: 'tests',
    meaning: '`1` skips the browser tests (they fail loudly without Chromium otherwise)',
  },
  {
    names: ['ARCHIVE_AUDIO_RENDER'],
    type: '`build`, `cached` or `off`',
    default: '`build`',
    readBy: 'build',
    meaning:
      'rendered audio of every public score (`npm run build -- --audio` too; docs/audio.md, "Rendered from the score"): `build` renders what the render cache lacks (FluidSynth in the engraving pool, with its budgets), `cached` only publishes what the cache holds, `off` renders none. An incremental build (an apply\'s) takes `build` as `cached`, so an apply is never delayed by audio; when audio is missing then, the server starts a background full build at low priority that renders it (docs/operations.md, "Rendered audio"); `npm run engrave` fills the cache too. The server\'s build children read it from the server\'s environment. Without FluidSynth, ffmpeg or the SoundFont, pages say audio is not offered and why',
  },
  {
    names: ['ARCHIVE_FLUIDSYNTH_PATH'],
    type: 'path',
    default: '`fluidsynth`',
    readBy: 'build',
    meaning: "the synthesizer of rendered audio (Debian's `fluidsynth`)",
  },
  {
    names: ['ARCHIVE_AUDIO_SOUNDFONT'],
    type: 'path',
    default: '`/usr/share/sounds/sf2/FluidR3_GM.sf2`',
    readBy: 'build',
    meaning:
      "the General MIDI SoundFont rendered audio is played with (Debian's `fluid-soundfont-gm`, MIT); its SHA-256 is part of every audio cache key and provenance page",
  },
  {
    names: ['ARCHIVE_FFMPEG_PATH'],
    type: 'path',
    default: '`ffmpeg`',
    readBy: 'build',
    meaning:
      "Debian's ffmpeg: the encoder of rendered audio (FLAC, and MP3 through LAME), and the oracle the loudness tests compare the archive's own measurement with (installed by `npm test` when missing and running as root)",
  },
  {
    names: ['ARCHIVE_LIBRARY_FAILPOINTS'],
    type: 'name list',
    default: 'empty',
    readBy: 'server',
    meaning:
      "test hook: crash points of the library's reliability tests (the server stops at the named step); never set in production",
  },
];

const SERVER_NAMES: ReadonlySet<string> = new Set(
  SETTINGS.filter((s) => s.readBy === 'server').flatMap((s) => s.names),
);

/**
 * The raw value of a server variable. The one way configuration code reads the environment: a
 * name the table does not list as read by the server is a programming error, caught at start.
 */
export function settingValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  if (!SERVER_NAMES.has(name)) throw new Error(`${name} is not a server setting in api/config-table.ts`);
  return env[name];
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** README's settings table (Markdown), generated from SETTINGS. */
export function settingsMarkdown(): string {
  const lines = ['| variable | type | default | read by | meaning |', '|---|---|---|---|---|'];
  for (const s of SETTINGS) {
    const names = s.names.map((n) => `\`${n}\``).join(', ');
    lines.push(`| ${names} | ${cell(s.type)} | ${cell(s.default)} | ${s.readBy} | ${cell(s.meaning)} |`);
  }
  return `${lines.join('\n')}\n`;
}
