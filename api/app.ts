/**
 * The front server: one Fastify instance that owns HTTP for the archive (docs/decisions/0004-one-front-server-owns-http.md).
 * Start-up order matters: validation and error handling first (so every route answers problems
 * the same way), then the dynamic routes, then the static catch-all that serves the current build
 * and turns everything else into 404 or 405 problems.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BlockList, isIP } from 'node:net';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { TSchema } from '@sinclair/typebox';
import type { Config } from './config.ts';
import { cacheSizes, type SiteHandle } from './site/site-handle.ts';
import type { AppContext } from './context.ts';
import {
  compactionLogLine,
  Rebuilder,
  reconcileLogLine,
  warmUpLogLine,
  type CompactionEvent,
  type ReconcileEvent,
  type SiteRebuilder,
  type WarmUpEvent,
} from './site/builds.ts';
import { registerReconcileRoutes } from './site/reconcile-routes.ts';
import { configureSharedEngravePool } from '../src/lib/site/engrave-pool.ts';
import { ProblemError, problemBody, sendProblem, type ProblemPages } from './http/problem.ts';
import type { Duplex } from 'node:stream';
import { createAjv, describeErrors } from '../src/domain/validation.ts';
import { prepareContentValidators } from '../src/domain/catalog.ts';
import { sendFile } from './http/send-file.ts';
import { exceedsJsonDepth, MAX_JSON_DEPTH, prototypeKeyPointers } from '../src/domain/json-limits.ts';
import { serveStatic } from './site/fast-static.ts';
import { selectEncoding } from './site/static-site.ts';
import { createBlobStore } from './blobs/create.ts';
import { registerCatalogRoutes } from './catalog/routes.ts';
import { registerBlobRoutes } from './blobs/routes.ts';
import { registerContributionRoutes } from './contributions/routes.ts';
import { registerAnswerRoutes } from './contributions/answer-routes.ts';
import { registerResolveRoutes } from './resolve/routes.ts';
import { registerLibraryRoutes } from './library/routes.ts';
import { registerReview } from './review/wiring.ts';
import type { ItemActions } from './review/item-actions.ts';
import { registerImportRoutes } from './imports/routes.ts';
import { BatchService } from './imports/service.ts';
import { BatchActions } from './imports/actions.ts';
import { ImportStore } from './imports/store.ts';
import { registerBatchDesk } from './desk/batches.ts';
import { registerListeningDesk, RecentVerdicts } from './desk/listening.ts';
import { ListeningService } from './review/listening.ts';
import { registerListeningRoutes } from './review/listening-routes.ts';
import { withStagedFiles } from './imports/staged-files.ts';
import { fetchContributorFile } from './review/fetch.ts';
import { ReviewService, type ReviewServiceOverrides } from './review/service.ts';
import { IntakeStore } from './contributions/store.ts';
import { KeyRing } from './http/auth.ts';
import { honourWritePause } from './storage/write-pause.ts';
import { CredentialLimiter } from './http/credential-limiter.ts';
import { SessionStore } from './session/sessions.ts';
import { createAdminSignIn, registerSessionRoutes } from './session/routes.ts';
import { registerReaderRoutes } from './signin/routes.ts';
import { registerDesk } from './desk/routes.ts';
import { registerMcpRoutes } from './mcp/routes.ts';
import { hostAllowList } from './http/hosts.ts';
import { registerDiscoveryRoutes } from './discovery/routes.ts';
import { registerTrackPage } from './site/track-page.ts';
import { registerSearchPage } from './site/search-page.ts';
import { registerDeprecationHeaders } from './http/deprecation.ts';
import { DEPRECATIONS, findDeprecation, type Deprecation } from '../src/domain/deprecation.ts';
import { DEFAULT_SERVER_TIMEOUTS, memoryPlanOf } from './config.ts';
import { memoryPlanWords, type MemoryPlan } from './site/memory-plan.ts';
import { MIB } from './site/cache-budgets.ts';
import { ShutdownGate, SHUTTING_DOWN_RETRY_SECONDS } from './lifecycle.ts';
import { ArchiveMetrics } from './observability/metrics.ts';
import { instrumentRebuilder, instrumentReview } from './observability/instrument.ts';
import { registerObservabilityRoutes } from './observability/routes.ts';
import { isHtml, PUBLIC_CSP } from './http/content-security-policy.ts';
import { createForwarder, ReadOnlyRebuilder, type WriterLink } from './site/read-processes.ts';
import { openStateBackend, type StateBackend } from './session/state-backend.ts';

export interface AppOptions {
  /** Pino logger options, or false for none (tests); a test may pass a stream to read the log lines. */
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
  /** Deprecated operations; defaults to DEPRECATIONS (tests pass their own to exercise the headers). */
  deprecations?: readonly Deprecation[];
}

const bodyAjv = createAjv();
const queryAjv = createAjv({ coerceTypes: true, useDefaults: true });

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export interface AppInput {
  config: Config;
  handle: SiteHandle;
  /**
   * "writer" (default): every route, and the write path. "reader": one of the read processes
   * (api/site/read-processes.ts): reads, sessions and sign-in; everything else is forwarded to
   * `writer`.
   */
  role?: 'writer' | 'reader';
  /** Where a read process forwards what it does not answer. */
  writer?: WriterLink;
  /** Sessions and limits (api/session/state-backend.ts); made from ARCHIVE_REDIS_URL when not given (and closed with the app). */
  state?: StateBackend;
  rebuilder?: SiteRebuilder;
  /**
   * Warm the build process up at start when the configuration says so (ARCHIVE_WARM_BUILDER_WARM_UP):
   * the server's own start (scripts/serve.ts) asks for it; apps made in a test process do not
   * (they would start a build process and run a build each). Default false.
   */
  warmUp?: boolean;
  /** Test seams of the review service (a trusted CA for the fetcher, a fake forge, a clock). */
  review?: ReviewServiceOverrides;
  /**
   * The clock of the rate limits and sessions kept in this process's memory (ms since the epoch):
   * `Date.now` unless a test controls time (Redis, and a given `state`, keep their own).
   */
  clock?: () => number;
}

/**
 * Default server timeouts (documented in README and docs/decisions/0021-untrusted-json-is-bounded.md; ARCHIVE_*_TIMEOUT_MS
 * override them, see config.ts): headers must arrive within 20 s, a whole request within 5 min
 * (uploads are resumable), an idle keep-alive connection is closed after 5 s, and any socket with
 * no traffic for 60 s is closed.
 */
export const SERVER_TIMEOUTS = DEFAULT_SERVER_TIMEOUTS;

/** A problem detail written straight on a socket (no request object exists, or none can answer), then closed. */
function endSocketWithProblem(
  socket: Duplex,
  baseUrl: string,
  status: number,
  reason: string,
  name: Parameters<typeof problemBody>[1],
  detail: string,
  extras: { headers?: Record<string, string>; [member: string]: unknown } = {},
): void {
  const { headers = {}, ...members } = extras;
  const body = JSON.stringify(problemBody(baseUrl, name, '/', detail, { ...members, status }));
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Nothing more is read from a client whose framing is broken; the answer is flushed, then closed.
  socket.once('finish', () => socket.destroy());
}

/** The 408 problem of a request that did not arrive in time (`detail` names the timeout), then close. */
function endTimedOut(socket: Duplex, baseUrl: string, detail: string): void {
  endSocketWithProblem(socket, baseUrl, 408, 'Request Timeout', 'bad-request', detail);
}

/**
 * Answer a request Node's parser refused with a problem detail written on the raw socket: a bad
 * request line or header (before any request object), or broken chunked framing in a body (a
 * request object exists but has not answered yet). Only when an answer has already begun is
 * the connection closed without one: its status line cannot be taken back.
 */
function writeClientErrorProblem(err: Error & { code?: string }, socket: Duplex, baseUrl: string): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || err.code === 'ECONNRESET' || pending?.headersSent) {
    socket.destroy();
    return;
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    endSocketWithProblem(
      socket,
      baseUrl,
      431,
      'Request Header Fields Too Large',
      'headers-too-large',
      'The request headers are larger than this server accepts.',
    );
    return;
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    endTimedOut(
      socket,
      baseUrl,
      'The request did not arrive in time (ARCHIVE_HEADERS_TIMEOUT_MS / ARCHIVE_REQUEST_TIMEOUT_MS).',
    );
    return;
  }
  const chunked = /CHUNK/.test(err.code ?? '') || (pending !== undefined && /^HPE_/.test(err.code ?? ''));
  endSocketWithProblem(
    socket,
    baseUrl,
    400,
    'Bad Request',
    'bad-request',
    chunked
      ? `The request body's chunked framing is broken (${err.code ?? 'bad request'}); nothing of it was used.`
      : `The request could not be parsed (${err.code ?? 'bad request'}).`,
  );
}

/**
 * A socket silent for ARCHIVE_IDLE_TIMEOUT_MS. A request whose body stalled mid-way (its headers
 * came, its body did not finish, nothing has been answered) gets the 408 problem the timeouts
 * promise, then the connection closes; any other silent socket (idle, or waiting for an answer
 * already begun) is closed as Node would close it.
 */
function closeSilentSocket(socket: Duplex, baseUrl: string): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean; req?: { complete?: boolean } } })
    ._httpMessage;
  if (socket.writable && pending && !pending.headersSent && pending.req && pending.req.complete === false) {
    endTimedOut(
      socket,
      baseUrl,
      'The request body stopped arriving: nothing came for the idle timeout (ARCHIVE_IDLE_TIMEOUT_MS); nothing of it was used.',
    );
    return;
  }
  socket.destroy();
}

/** The methods this server answers, named in the 405 a CONNECT gets. */
const SERVED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** What the HTTP server answers before any route runs: half-closed clients and CONNECT. */
function refuseAtTheHttpLayer(server: Server, baseUrl: string): Server {
  // A client may half-close (FIN) once its request is sent; the answer is still written, then
  // the connection closes. Such sockets stay bounded by the idle and request timeouts.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // With a listener, Node leaves a silent socket to it: a stalled body gets its 408 there.
  server.on('timeout', (socket: Duplex) => closeSilentSocket(socket, baseUrl));
  // CONNECT asks for a tunnel, which this server never opens: a 405 problem, then close.
  server.on('connect', (_req, socket: Duplex) =>
    endSocketWithProblem(
      socket,
      baseUrl,
      405,
      'Method Not Allowed',
      'method-not-allowed',
      'CONNECT is not allowed: this server is not a proxy.',
      { allow: SERVED_METHODS.split(', '), headers: { Allow: SERVED_METHODS } },
    ),
  );
  return server;
}

/**
 * Whose X-Forwarded-For is believed: the configured proxies, and in a write process with read
 * processes also its Unix socket (a request there has no peer address; only processes of this
 * machine and user can connect).
 */
function trustFor(
  config: Config,
  role: 'writer' | 'reader',
): false | string[] | ((address: string, hop: number) => boolean) {
  const proxies = config.trustedProxies.length > 0 ? config.trustedProxies : null;
  if (role !== 'writer' || config.readProcesses <= 1) return proxies ?? false;
  const list = new BlockList();
  for (const entry of proxies ?? []) {
    const [addr = '', bits] = entry.split('/');
    const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, family);
    else list.addSubnet(addr, Number(bits), family);
  }
  const listed = (address: string) => {
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (v4) return list.check(v4, 'ipv4');
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  return (address, hop) => ((address === undefined || address === '') && hop === 0 ? true : listed(address));
}

export async function createApp(input: AppInput, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config, handle } = input;
  const role = input.role ?? 'writer';
  if (role === 'reader' && !input.writer) throw new Error('a read process needs the write process to forward to');
  const forward = input.writer ? createForwarder(input.writer, config.publicBaseUrl) : null;
  const ownState = input.state === undefined;
  const state = input.state ?? (await openStateBackend(config.redisUrl, input.clock ? { now: input.clock } : {}));
  // The lint of every proposal validates content files: compile those validators before serving.
  prepareContentValidators();
  // The review checks and the desk's preview engrave in the process's pool, with these budgets.
  configureSharedEngravePool(config.engrave);
  // Requests in progress and the graceful stop (api/lifecycle.ts).
  const gate = new ShutdownGate();
  // Requests addressed to a name the service is not known by are refused on every route (DNS rebinding).
  const hostAllowed = hostAllowList(config.publicBaseUrl, config.allowedHosts);
  // A reconcile's end goes to the server's log and metrics (set below, once both exist).
  let logReconcile: (event: ReconcileEvent) => void = () => undefined;
  let logCompaction: (event: CompactionEvent) => void = () => undefined;
  let logWarmUp: (event: WarmUpEvent) => void = () => undefined;
  // Every store is built here, once, and passed down: two instances of one store would each
  // have their own locks.
  const ctx: AppContext = {
    config,
    handle,
    rebuilder:
      input.rebuilder ??
      (role === 'reader' ? new ReadOnlyRebuilder() : null) ??
      new Rebuilder(config, handle, {
        incremental: config.incrementalBuilds,
        reconcileDelayMs: config.reconcileDelayMs,
        reconcileSchedule: config.reconcileSchedule,
        warmBuilder: config.warmBuilder,
        warmBuilderMaxRssBytes: config.warmBuilderMaxRssBytes,
        warmUp: config.warmBuilderWarmUp && input.warmUp === true,
        onWarmUp: (event) => logWarmUp(event),
        onReconcile: (event) => logReconcile(event),
        onCompaction: (event) => logCompaction(event),
      }),
    blobs: createBlobStore(config),
    intake: new IntakeStore(config.dataDir),
    keys: KeyRing.fromConfig(config),
    credentials: new CredentialLimiter(config.credentialLimits, { buckets: state.buckets }),
    metrics: new ArchiveMetrics(() => gate.inFlight),
    sessions: new SessionStore({
      lifetimeMs: config.sessionLifetimeMs,
      backend: state.sessions,
      ...(input.clock ? { now: input.clock } : {}),
    }),
    state,
    role,
    startup: { building: null, startedAtUtc: null, failed: null },
  };
  const { metrics } = ctx;
  metrics.measureCachesWith(() => cacheSizes(ctx.handle.current));
  // The memory plan, with the server's resident memory once it is ready (api/site/memory-plan.ts).
  let plan: MemoryPlan | null = null;
  metrics.measureMemoryWith(() => plan);
  // Record writes wait while `npm run backup` briefly pauses them (api/storage/write-pause.ts).
  honourWritePause(path.join(config.dataDir, 'state'));
  instrumentRebuilder(ctx.rebuilder, metrics);
  // Files an operator's import staged are taken from the blob store; every other URL is fetched.
  // Only the write process reviews.
  const review =
    role === 'writer'
      ? new ReviewService(ctx, {
          ...input.review,
          fetchFile: withStagedFiles(config.dataDir, input.review?.fetchFile ?? fetchContributorFile),
        })
      : null;
  if (review) instrumentReview(review, metrics);
  const timeouts = config.serverTimeouts;
  let fastAnswers = 0;
  // Every explicit route, so the catch-all can tell 405 (path exists, wrong method) from 404,
  // and the static fast path leaves routed paths to their routes.
  const known = FindMyWay();
  const deprecations = options.deprecations ?? DEPRECATIONS;
  const app = Fastify({
    logger:
      options.logger === false || options.logger === undefined
        ? false
        : {
            ...(typeof options.logger === 'object' ? options.logger : {}),
            // Log the path only: a query string may carry something secret by mistake.
            serializers: {
              // `ip` is the forwarded client address only behind a trusted proxy (ARCHIVE_TRUSTED_PROXIES).
              req: (req: { method: string; url: string; ip?: string }) => ({
                method: req.method,
                path: req.url.split('?')[0],
                ip: req.ip,
              }),
            },
          },
    bodyLimit: 1024 * 1024,
    // Static files are answered before Fastify's routing (see fast-static.ts), unless an explicit
    // route owns the path.
    serverFactory: (handler) =>
      refuseAtTheHttpLayer(
        createServer(
          {
            headersTimeout: timeouts.headersTimeout,
            requestTimeout: timeouts.requestTimeout,
            keepAliveTimeout: timeouts.keepAliveTimeout,
            // Node enforces the headers/request timeouts on this tick (30 s by default): at most
            // every half second, so a timeout closes within half a second of its setting (it
            // overshot by up to a quarter of the setting, 5 s for the default 20 s, before).
            connectionsCheckingInterval: Math.max(100, Math.min(500, Math.floor(timeouts.headersTimeout / 4))),
            // Node's own refusal of HTTP/1.1 without Host is a bare 400; the check below answers a problem.
            requireHostHeader: false,
          },
          (req, res) => {
            gate.track(res);
            if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
              const body = JSON.stringify(
                problemBody(
                  config.publicBaseUrl,
                  'bad-request',
                  (req.url ?? '/').split('?')[0] ?? '/',
                  'An HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2).',
                  { errors: [{ parameter: 'Host', detail: 'is required in HTTP/1.1' }] },
                ),
              );
              res.shouldKeepAlive = false;
              res.writeHead(400, {
                'Content-Type': 'application/problem+json',
                'Content-Length': Buffer.byteLength(body),
                'Cache-Control': 'no-store',
                'X-Content-Type-Options': 'nosniff',
                Connection: 'close',
              });
              res.end(req.method === 'HEAD' ? undefined : body);
              return;
            }
            const url = req.url ?? '/';
            const q = url.indexOf('?');
            const path = q === -1 ? url : url.slice(0, q);
            // A deprecated path goes through Fastify so its answer carries the deprecation headers.
            const deprecated = deprecations.length > 0 && findDeprecation(deprecations, req.method ?? 'GET', path);
            // A Host not on the allow-list goes through Fastify, whose hook answers the problem.
            if (deprecated || known.find('GET', path) || !hostAllowed(req.headers.host)) return handler(req, res);
            // The fast path answers without Fastify: counted here when it answers, logged by sampling
            // (ARCHIVE_FAST_PATH_LOG_SAMPLE, default 1 in 100; every answer is in the metrics).
            const started = performance.now();
            let fellBack = false;
            const observe = () => {
              const seconds = (performance.now() - started) / 1000;
              metrics.observeRequest(req.method, 'fast-static', res.statusCode, seconds);
              fastAnswers++;
              if (config.fastPathLogSample > 0 && Math.random() < config.fastPathLogSample) {
                app.log.info(
                  // Keys other than req/res: those have Fastify's serializers, which expect its objects.
                  {
                    fastPath: true,
                    method: req.method,
                    path,
                    ip: req.socket.remoteAddress,
                    statusCode: res.statusCode,
                    responseTime: seconds * 1000,
                    sample: config.fastPathLogSample,
                    fastAnswers,
                  },
                  'fast path answer (sampled)',
                );
              }
            };
            serveStatic(req, res, input.handle, () => {
              fellBack = true;
              handler(req, res);
            });
            if (fellBack) return;
            // Most answers are written before serveStatic returns (bytes from memory or read on this
            // thread): counted at once, without a 'finish' listener per request; the rest when done.
            if (res.writableEnded) observe();
            else
              res.once('finish', () => {
                if (!fellBack) observe();
              });
          },
        ).setTimeout(timeouts.idleTimeoutMs),
        config.publicBaseUrl,
      ),

    // New requests while draining get a 503 problem from the onRequest hook below, not Fastify's own.
    return503OnClosing: false,
    // Forwarded addresses count only from the configured proxies (ARCHIVE_TRUSTED_PROXIES), and, in
    // a write process with read processes, on its Unix socket (no peer address), where only they connect.
    trustProxy: trustFor(config, role),
    // Requests Node's HTTP parser refuses before Fastify sees them (a bad request line, a NUL in a
    // header, 431 headers too large, an unknown method) still get a problem detail.
    clientErrorHandler: (err: Error & { code?: string }, socket) =>
      writeClientErrorProblem(err, socket, config.publicBaseUrl),
    // A path with broken percent-encoding is a problem detail too, not Fastify's default JSON.
    frameworkErrors: (error, request, reply) =>
      sendProblem(
        reply,
        request,
        config.publicBaseUrl,
        'bad-request',
        `The request could not be read: ${error.message}`,
      ),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500 },
  });
  const base = ctx.config.publicBaseUrl;
  app.decorate('archive', {
    gate,
    metricsText: () => metrics.text(),
    buildHead: async (log: (line: string) => void) => {
      // The start served an older build: HEAD is built like an apply's change (incrementally from
      // it when possible), in the rebuild queue, and swapped in by every process.
      const head = await ctx.rebuilder.rebuildAndSwap().then(
        (r) => {
          ctx.startup.building = null;
          log(
            `built ${r.commit.slice(0, 12)} in ${(r.durationMs / 1000).toFixed(1)} s (${r.mode ?? 'full'}); serving it`,
          );
        },
        (err: Error) => {
          ctx.startup.failed = err.message.split('\n')[0] ?? 'the build failed';
          ctx.startup.building = null;
          log(
            `the build of the content repository's HEAD failed; the last complete build keeps serving: ${err.message}`,
          );
        },
      );
      return head;
    },
    startup: ctx.startup,
    // The write process's second listener (its read processes' Unix socket): the main server's
    // request listener (fast path, gate, Fastify) with the same timeouts.
    socketServer: () => {
      const listener = app.server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
      return refuseAtTheHttpLayer(
        createServer(
          {
            headersTimeout: timeouts.headersTimeout,
            requestTimeout: timeouts.requestTimeout,
            keepAliveTimeout: timeouts.keepAliveTimeout,
            connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(timeouts.headersTimeout / 4))),
            requireHostHeader: false,
          },
          listener,
        ).setTimeout(timeouts.idleTimeoutMs),
        config.publicBaseUrl,
      );
    },
  });
  if (ownState) app.addHook('onClose', async () => state.close());
  // Pages for people on errors (sendProblem): the served build's page documenting each problem
  // type, read once per build (a few KB each, a fixed set) and kept with the build.
  const problemPageCache = new Map<string, string | null>();
  let problemPageBuild = '';
  const problemPages: ProblemPages = (name) => {
    const dir = ctx.handle.current.dir;
    if (dir !== problemPageBuild) {
      problemPageCache.clear();
      problemPageBuild = dir;
    }
    if (!problemPageCache.has(name)) {
      let page: string | null = null;
      try {
        const file = ctx.handle.current.view.locate(`problems/${name}/index.html`);
        if (file !== null) page = readFileSync(file, 'utf8');
      } catch {
        // A build without the page: the problem detail is sent instead.
      }
      problemPageCache.set(name, page);
    }
    return problemPageCache.get(name) ?? null;
  };
  app.decorate('problemPages', problemPages);

  // While draining (SIGTERM), nothing new starts: every new request gets a 503 problem and the
  // connection is closed after it. Requests already in progress run to their end.
  app.addHook('onRequest', async (request, reply) => {
    if (!gate.closing) return;
    reply.header('Connection', 'close');
    await sendProblem(
      reply,
      request,
      base,
      'shutting-down',
      'The service is stopping; this request was not started. Retry in a few seconds.',
      {
        headers: { 'Retry-After': String(SHUTTING_DOWN_RETRY_SECONDS) },
      },
    );
    return reply;
  });

  // The Host allow-list (api/http/hosts.ts), on every route: the forwarded host behind a trusted proxy.
  app.addHook('onRequest', async (request, reply) => {
    if (hostAllowed(request.headers.host === undefined ? undefined : request.host)) return;
    reply.header('Connection', 'close');
    await sendProblem(
      reply,
      request,
      base,
      'host-not-allowed',
      `This service does not answer for host "${String(request.host).slice(0, 200)}": only ${new URL(base).host}, the loopback names and ARCHIVE_ALLOWED_HOSTS.`,
      { errors: [{ parameter: 'Host', detail: 'is not a name this service is known by' }] },
    );
    return reply;
  });

  // Every answer through Fastify is counted by route pattern (the fast path counts its own above).
  app.addHook('onResponse', async (request, reply) => {
    const pattern = request.routeOptions.url;
    const route = pattern === undefined ? 'unmatched' : pattern === '/*' ? 'static' : pattern;
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) if (m !== 'HEAD') known.on(m as 'GET', route.url, () => undefined);
  });

  // Browsers never sniff a type the server did not declare (contributed files included). Every
  // HTML answer without a policy of its own (error pages for browsers, the rendered search) gets
  // the public pages' Content-Security-Policy; the desk and sign-in pages set stricter ones.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && isHtml(type) && !reply.hasHeader('content-security-policy'))
      reply.header('Content-Security-Policy', PUBLIC_CSP);
  });

  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyAjv.compile(schema as TSchema) : queryAjv.compile(schema as TSchema),
  );

  app.setErrorHandler(
    (
      error: Error & { validation?: unknown[]; validationContext?: string; statusCode?: number; code?: string },
      request,
      reply,
    ) => {
      // Services answer refusals by throwing a ProblemError (the one error idiom, api/http/problem.ts).
      if (error instanceof ProblemError)
        return sendProblem(reply, request, base, error.problem, error.message, error.extras);
      if (error.validation) {
        const inQuery = error.validationContext !== 'body';
        const source = inQuery ? (error.validationContext === 'params' ? request.params : request.query) : request.body;
        const errors = describeErrors(error.validation as never[], source).map((e) =>
          inQuery
            ? { parameter: e.pointer.replace(/^\//, '').split('/')[0] ?? '', detail: e.detail }
            : { pointer: e.pointer, detail: e.detail },
        );
        const name = inQuery ? 'invalid-query' : 'invalid-body';
        const summary = errors.map((e) => `${'parameter' in e ? e.parameter : e.pointer} ${e.detail}`).join('; ');
        return sendProblem(
          reply,
          request,
          base,
          name,
          `The request has ${errors.length} invalid field(s): ${summary}`,
          { errors },
        );
      }
      switch (error.code) {
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return sendProblem(reply, request, base, 'malformed-json', `The body is not valid JSON: ${error.message}`);
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return sendProblem(
            reply,
            request,
            base,
            'payload-too-large',
            'The body is larger than this endpoint accepts.',
          );
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          return sendProblem(
            reply,
            request,
            base,
            'unsupported-media-type',
            `Content-Type "${request.headers['content-type'] ?? ''}" is not accepted here.`,
          );
      }
      if (error.statusCode === 400) return sendProblem(reply, request, base, 'malformed-json', error.message);
      request.log.error({ err: error }, 'unhandled error');
      return sendProblem(
        reply,
        request,
        base,
        'internal-error',
        'The server failed to answer this request. Nothing was changed.',
      );
    },
  );

  // JSON bodies may also be sent as text/json or application/*+json (spec Part 4.1).
  // Every JSON body is bounded before anything walks it (depth, then prototype keys), see
  // src/domain/json-limits.ts: a 5,000-deep body is a 400 naming the limit, never a stack overflow.
  const jsonParser = (
    _request: FastifyRequest,
    body: string | Buffer,
    done: (err: Error | null, value?: unknown) => void,
  ) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(new ProblemError('malformed-json', 'The body is not valid JSON: it is empty.'));
    if (exceedsJsonDepth(text)) {
      const detail = `nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`;
      return done(
        new ProblemError('invalid-body', `The request body ${detail}.`, {
          errors: [{ pointer: '', detail }],
          maxDepth: MAX_JSON_DEPTH,
        }),
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return done(new ProblemError('malformed-json', `The body is not valid JSON: ${(e as Error).message}`));
    }
    const protoKeys = prototypeKeyPointers(value);
    if (protoKeys.length > 0) {
      const errors = protoKeys.map((pointer) => ({
        pointer,
        detail: 'is a reserved key (__proto__, constructor and prototype are refused)',
      }));
      return done(
        new ProblemError(
          'invalid-body',
          `The request has ${errors.length} invalid field(s): ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}`,
          { errors },
        ),
      );
    }
    done(null, value);
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonParser);
  // Fastify's built-in text/plain parser would turn a text body into a 400 "must be object";
  // the documented answer for a body that is not JSON is 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/json', { parseAs: 'string' }, jsonParser);
  app.addContentTypeParser(/^application\/[a-z0-9.!#$&^_-]+\+json$/i, { parseAs: 'string' }, jsonParser);

  // The served build's open index files close with the server.
  app.addHook('onClose', async () => ctx.handle.current.catalog.listing.close());
  // A waiting or running background reconcile stops with the server (the next start serves the folder it would have replaced).
  app.addHook('onClose', async () => ctx.rebuilder.close?.());
  logReconcile = (event) => {
    metrics.observeReconcile(event);
    app.log.info({ reconcile: event }, reconcileLogLine(event));
  };
  logWarmUp = (event) => {
    if (event.outcome === 'failed') app.log.warn({ warmUp: event }, warmUpLogLine(event));
    else app.log.info({ warmUp: event }, warmUpLogLine(event));
  };
  logCompaction = (event) => {
    if (event.outcome === 'failed') app.log.warn({ compaction: event }, compactionLogLine(event));
    else app.log.info({ compaction: event }, compactionLogLine(event));
  };
  app.addHook('onReady', async () => {
    plan = memoryPlanOf(config, process.memoryUsage().rss / MIB);
    const words = memoryPlanWords(plan);
    if (config.memoryLimitMiB !== null && plan.totalMiB > config.memoryLimitMiB)
      app.log.warn(
        { memoryPlan: plan },
        `ARCHIVE_MEMORY_LIMIT_MB (${config.memoryLimitMiB}) is less than the parts now that the server has started: ${words}`,
      );
    else
      app.log.info(
        { memoryPlan: plan },
        `memory bound: ${words}${plan.limitMiB !== null ? ` (limit ${plan.limitMiB} MiB)` : ''}`,
      );
  });
  // Started on an incremental folder (a stop came before its reconcile): reconcile it in turn, in
  // the "after each apply" mode (else the schedule or a request does).
  if (role === 'writer') ctx.rebuilder.reconcileServed?.();

  // A read process registers the reads (and sessions, sign-in, MCP, operator endpoints); the
  // write path's routes exist only in the write process, and the catch-all below forwards them.
  registerDeprecationHeaders(app, deprecations, base);
  registerCatalogRoutes(app, ctx);
  registerBlobRoutes(app, ctx);
  await registerResolveRoutes(app, ctx);
  // The review's item actions (accept, request-information, decline) run as action records.
  let itemActions: ItemActions | null = null;
  if (review) {
    await registerContributionRoutes(app, ctx);
    await registerAnswerRoutes(app, ctx, review);
    await registerLibraryRoutes(app, ctx);
    itemActions = await registerReview(app, ctx, review, input.review?.now);
  }
  // Listening verdicts on rendered audio (api/review/listening.ts): the admin API and the desk
  // share the service; a verdict is a commit, so only the write process records one (a read
  // process forwards the request to it).
  const listening = review ? new ListeningService(ctx) : null;
  if (listening) listening.logger = app.log;
  const recentVerdicts = new RecentVerdicts();
  if (listening) registerListeningRoutes(app, ctx, listening);
  const batches = review ? new BatchService(ctx, review, new ImportStore(config.dataDir)) : null;
  const batchActions = batches ? new BatchActions(ctx, batches) : null;
  if (batches && batchActions) {
    // Batch actions a stop left running resume on start; a stop lets each finish its current item.
    app.addHook('onReady', async () => {
      void batchActions.resume((line) => app.log.warn(line));
    });
    app.addHook('preClose', async () => batchActions.stop());
    await registerImportRoutes(app, ctx, batches, batchActions);
  }
  const adminSignIn = createAdminSignIn(ctx);
  await registerSessionRoutes(app, ctx, adminSignIn);
  registerReaderRoutes(app, ctx);
  if (review && itemActions && batches && batchActions && listening) {
    await registerDesk(app, ctx, review, itemActions, adminSignIn);
    await registerBatchDesk(app, ctx, batches, batchActions, recentVerdicts);
    await registerListeningDesk(app, ctx, listening, recentVerdicts);
  }
  registerMcpRoutes(app, { publicBaseUrl: ctx.config.publicBaseUrl, allowedOrigins: ctx.config.mcpAllowedOrigins });
  registerDiscoveryRoutes(app);
  registerTrackPage(app, ctx);
  registerSearchPage(app, ctx);
  registerObservabilityRoutes(app, ctx);
  if (role === 'writer') registerReconcileRoutes(app, ctx);

  const allowedFor = async (path: string): Promise<string[]> => {
    const allowed = new Set<string>();
    for (const m of ALL_METHODS) if (known.find(m as 'GET', path)) allowed.add(m);
    if (allowed.has('GET')) allowed.add('HEAD');
    if ((await ctx.handle.current.site.resolve(path)).kind !== 'none') {
      allowed.add('GET');
      allowed.add('HEAD');
    }
    return [...allowed];
  };

  const notFoundOr405 = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = await allowedFor(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return sendProblem(
        reply,
        request,
        base,
        'method-not-allowed',
        `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
        {
          allow: allowed,
          headers: { Allow: allowed.join(', ') },
        },
      );
    }
    return sendProblem(reply, request, base, 'not-found', `Nothing exists at ${path}.`);
  };

  // A read process forwards what it has no route or file for to the write process, which answers
  // it (a write, a desk page) or says 404/405 itself. Bodies are forwarded unread: the hook runs
  // before Fastify parses one.
  const forwardUnread = forward
    ? async (request: FastifyRequest, reply: FastifyReply) => {
        forward(request, reply);
        return reply;
      }
    : null;
  app.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    handler: async (request, reply) => {
      const path = request.url.split('?')[0] ?? '/';
      const found = await ctx.handle.current.site.resolve(path);
      if (found.kind === 'redirect') {
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        return reply.code(301).header('Location', `${base}${found.location}${query}`).send();
      }
      if (found.kind === 'none') return forwardUnread ? forwardUnread(request, reply) : notFoundOr405(request, reply);
      return sendFile(request, reply, base, selectEncoding(found.file, request.headers['accept-encoding']));
    },
  });
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/*',
    ...(forwardUnread ? { onRequest: forwardUnread } : {}),
    handler: notFoundOr405,
  });
  // Methods without a catch-all route (TRACE, PROPFIND, ...) get the same 404/405 problem.
  app.setNotFoundHandler(forwardUnread ?? notFoundOr405);

  return app;
}
