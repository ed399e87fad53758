/**
 * How the server process starts listening and stops (docs/operations.md). `scripts/serve.ts` (run by
 * `scripts/start.ts`) calls `prepareDataDir` before it builds the app and `serve` after; nothing
 * else here knows about the build or the routes.
 *
 * Graceful stop, on SIGTERM or SIGINT:
 *   1. the listeners stop accepting connections; idle keep-alive connections are closed at once
 *      and again every 100 ms while draining (a connection whose answer just finished is idle);
 *   2. requests already in progress run to their end: an acknowledged write (a 202 for a
 *      submission) was made durable before its answer, so it is never lost;
 *   3. a request that arrives on an open connection meanwhile is answered 503 `shutting-down`
 *      (a problem detail with `Retry-After` and `Connection: close`), so nothing new is started;
 *   4. once nothing is in flight the process exits 0; after `ARCHIVE_DRAIN_TIMEOUT_MS` (default
 *      10 s) the remaining connections are closed and it exits 1. Whatever they were doing was not
 *      acknowledged, and every store is crash-safe (temp file + rename), so a cut request leaves
 *      no half-written record; a library upload resumes from its stored offset.
 * A second signal while draining (2 s or more after the first: a terminal's Ctrl-C reaches both npm
 * and this process, and npm forwards it once more) stops at once (exit 1).
 *
 * Signals must reach this process: under a supervisor run `node scripts/start.ts` directly, not
 * through `npm start` (npm is a wrapper; see the systemd unit in docs/operations.md).
 */
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { StartupBuild } from './context.ts';
import { removeStaleTempFiles } from './storage/stale-temp-files.ts';
import { problemBody } from './http/problem.ts';

/** Seconds a client is told to wait (Retry-After) when the server is stopping. */
export const SHUTTING_DOWN_RETRY_SECONDS = 5;

/**
 * Requests in progress and whether the server is stopping. createApp counts every request here
 * (the in-memory fast path included) and refuses new ones with 503 while `closing`.
 */
export class ShutdownGate {
  closing = false;
  inFlight = 0;
  private readonly idleWaiters: Array<() => void> = [];

  /** Count one request until its response is finished or its connection is gone. */
  track(res: ServerResponse): void {
    this.inFlight++;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      this.inFlight--;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    };
    res.once('finish', end);
    res.once('close', end);
  }

  /** Resolves when no request is in progress. */
  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Start-up housekeeping of the data folder: stale temporary files of a killed process go. */
export async function prepareDataDir(
  config: Config,
  log: Pick<Logger, 'info'> = { info: () => undefined },
): Promise<{ removedTempFiles: number }> {
  const removedTempFiles = await removeStaleTempFiles(config.dataDir);
  if (removedTempFiles > 0)
    log.info({ removedTempFiles }, `removed ${removedTempFiles} stale temporary file(s) left by a stopped process`);
  return { removedTempFiles };
}

/** Everything of the app the lifecycle needs (createApp decorates the instance with it). */
export interface LifecycleHooks {
  gate: ShutdownGate;
  /** The Prometheus text of the app's metrics, and its Content-Type. */
  metricsText(): Promise<{ contentType: string; body: string }>;
  /** A second HTTP server answering like the main one (the write process's Unix socket for its read processes). */
  socketServer(): Server;
  /** Build the content repository's HEAD and swap it in (a start that serves an older build meanwhile). */
  buildHead(log: (line: string) => void): Promise<void>;
  /** What the start is building while an older build serves (for /readyz). */
  startup: StartupBuild;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Lifecycle and observability hooks of this app (api/lifecycle.ts, api/observability/). */
    archive: LifecycleHooks;
  }
}

export interface Serving {
  /** The main listener's port (useful with PORT=0). */
  port: number;
  /** The metrics listener's port, when ARCHIVE_METRICS_PORT is set. */
  metricsPort: number | null;
  /** Stop as on SIGTERM; resolves with the exit code it would use. */
  stop(reason: string): Promise<number>;
}

/** The loopback listener of ARCHIVE_METRICS_PORT: GET /metrics without a key, nothing else. */
function metricsListener(app: FastifyInstance, baseUrl: string): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const problem = (
      status: number,
      name: 'not-found' | 'method-not-allowed' | 'internal-error',
      detail: string,
      headers: Record<string, string> = {},
    ) => {
      const body = JSON.stringify(problemBody(baseUrl, name, path ?? '/', detail));
      res.writeHead(status, {
        'Content-Type': 'application/problem+json',
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        ...headers,
      });
      res.end(body);
    };
    if (path !== '/metrics') return problem(404, 'not-found', 'This listener serves only GET /metrics.');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return problem(405, 'method-not-allowed', `${req.method} is not allowed on /metrics; use GET, HEAD.`, {
        Allow: 'GET, HEAD',
      });
    app.archive.metricsText().then(
      ({ contentType, body }) => {
        res.writeHead(200, {
          'Content-Type': contentType,
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: Error) => problem(500, 'internal-error', `Metrics could not be collected: ${err.message}`),
    );
  });
}

/**
 * Listen on HOST:PORT (and ARCHIVE_METRICS_PORT on 127.0.0.1), and stop gracefully on SIGTERM or
 * SIGINT (see the file comment). `exit` is process.exit unless a test passes its own.
 */
export async function serve(
  app: FastifyInstance,
  config: Config,
  options: {
    exit?: (code: number) => void;
    signals?: boolean;
    /**
     * Also listen on this Unix socket (the write process, for its read processes: see
     * api/site/read-processes.ts); made readable by this user only.
     */
    socketPath?: string;
    /** Stopped along with this server's drain (the read processes), before the exit. */
    alongside?: (drainTimeoutMs: number) => Promise<void>;
  } = {},
): Promise<Serving> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let socket: Server | null = null;
  if (options.socketPath) {
    const socketPath = options.socketPath;
    rmSync(socketPath, { force: true });
    socket = app.archive.socketServer();
    await new Promise<void>((resolve, reject) => {
      socket!.once('error', reject);
      socket!.listen(socketPath, () => resolve());
    });
    chmodSync(socketPath, 0o600);
    socket.once('close', () => rmSync(socketPath, { force: true }));
  }

  let metrics: Server | null = null;
  let metricsPort: number | null = null;
  if (config.metricsPort !== null) {
    metrics = metricsListener(app, config.publicBaseUrl);
    await new Promise<void>((resolve, reject) => {
      metrics!.once('error', reject);
      metrics!.listen(config.metricsPort!, '127.0.0.1', () => resolve());
    });
    const a = metrics.address();
    metricsPort = typeof a === 'object' && a ? a.port : config.metricsPort;
    app.log.info({ metricsPort }, `metrics at http://127.0.0.1:${metricsPort}/metrics`);
  }

  let stopping: Promise<number> | null = null;
  const stop = (reason: string): Promise<number> => {
    if (stopping) return stopping;
    const gate = app.archive.gate;
    gate.closing = true;
    const started = Date.now();
    app.log.info(
      { reason, inFlight: gate.inFlight, drainTimeoutMs: config.drainTimeoutMs },
      'stopping: no new connections; draining requests in progress',
    );
    stopping = (async () => {
      // Stop accepting; app.close() waits for every connection, so idle ones are closed repeatedly
      // (a keep-alive connection becomes idle as soon as its answer is out).
      const closed = app.close();
      metrics?.close();
      socket?.close();
      const beside = options.alongside?.(config.drainTimeoutMs).catch(() => undefined) ?? Promise.resolve();
      const sweep = setInterval(() => {
        app.server.closeIdleConnections();
        socket?.closeIdleConnections();
      }, 100);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>(
        (resolve) => (timer = setTimeout(() => resolve('timeout'), config.drainTimeoutMs)),
      );
      const outcome = await Promise.race([
        gate
          .idle()
          .then(() => closed)
          .then(() => 'drained' as const),
        timedOut,
      ]);
      clearInterval(sweep);
      clearTimeout(timer);
      await beside;
      if (outcome === 'timeout') {
        app.log.warn(
          { inFlight: gate.inFlight, drainTimeoutMs: config.drainTimeoutMs },
          'drain timed out: closing the remaining connections (their requests were not acknowledged)',
        );
        app.server.closeAllConnections();
        socket?.closeAllConnections();
        metrics?.closeAllConnections();
        return 1;
      }
      metrics?.closeAllConnections();
      app.log.info({ ms: Date.now() - started }, 'stopped: every request in progress was answered');
      return 0;
    })();
    return stopping;
  };

  if (options.signals !== false) {
    let firstSignalAt = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        // `npm start` and a terminal both deliver Ctrl-C, so a repeat within 2 s is the same request.
        if (Date.now() - firstSignalAt < 2000) return;
        app.log.warn({ signal }, 'second signal while draining: stopping now');
        exit(1);
        return;
      }
      firstSignalAt = Date.now();
      void stop(signal).then(exit, (err: unknown) => {
        app.log.error({ err }, 'graceful stop failed');
        exit(1);
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  return { port, metricsPort, stop };
}
