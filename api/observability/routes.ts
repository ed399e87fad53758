/**
 * Operator endpoints (docs/operations.md, "Health, readiness, metrics"), outside /api/v1 and the OpenAPI
 * document, never cached:
 *
 *   GET /healthz   200 while the process answers at all (liveness).
 *   GET /readyz    200 when a complete build is open, the content repository answers and the data
 *                  folder takes a durable write; else 503 `not-ready` naming each failed check.
 *                  A start that serves the last complete build while it builds HEAD is ready,
 *                  and says so (`building`, and the build check's detail).
 *   GET /metrics   Prometheus text; needs a key of ARCHIVE_METRICS_KEYS (Authorization: Bearer), or
 *                  is read without a key on the loopback listener of ARCHIVE_METRICS_PORT.
 *
 * While the server drains on SIGTERM every route here answers 503 `shutting-down` like the rest,
 * so a load balancer stops sending before the process goes.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { isCompleteBuild } from '../site/builds.ts';
import { requireRole } from '../http/auth.ts';
import { sendProblem } from '../http/problem.ts';

/** A readiness check that takes longer than this has failed. */
const CHECK_TIMEOUT_MS = 5_000;

export interface CheckResult {
  ok: boolean;
  detail: string;
}

function withTimeout(what: string, run: Promise<string>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>(
    (resolve) =>
      (timer = setTimeout(
        () => resolve({ ok: false, detail: `${what} did not answer within ${CHECK_TIMEOUT_MS / 1000} s` }),
        CHECK_TIMEOUT_MS,
      )),
  );
  const checked = run.then(
    (detail): CheckResult => ({ ok: true, detail }),
    (err: Error): CheckResult => ({ ok: false, detail: `${what}: ${err.message.split('\n')[0]}` }),
  );
  return Promise.race([checked, timeout]).finally(() => clearTimeout(timer));
}

type Readiness = Record<'build' | 'contentRepository' | 'storage', CheckResult>;

/**
 * The readiness checks of one context, shared by every probe that arrives while a check is
 * running: 40 balancers probing at once cost one git process and one probe file, and can never
 * interfere with each other. A probe that arrives after the run finished starts a new one.
 */
const inFlight = new WeakMap<AppContext, Promise<Readiness>>();
export function readiness(ctx: AppContext): Promise<Readiness> {
  const running = inFlight.get(ctx);
  if (running) return running;
  const run = runReadiness(ctx).finally(() => inFlight.delete(ctx));
  inFlight.set(ctx, run);
  return run;
}

/** The three readiness checks; each one bounded in time. */
async function runReadiness(ctx: AppContext): Promise<Readiness> {
  const build = withTimeout(
    'the served build',
    (async () => {
      const dir = ctx.handle.current.dir;
      if (!isCompleteBuild(dir)) throw new Error(`${dir} is not a complete build (no build.json)`);
      const serving = `serving ${path.basename(dir)} (${ctx.handle.current.catalog.listing.count} works)`;
      // A start without a build of HEAD serves the last complete build while it builds HEAD.
      const s = ctx.startup;
      if (s.building)
        return `${serving}, the last complete build, while the content repository's HEAD ${s.building.slice(0, 12)} builds (since ${s.startedAtUtc})`;
      if (s.failed)
        return `${serving}, the last complete build: the build of the content repository's HEAD failed (${s.failed})`;
      return serving;
    })(),
  );
  const contentRepository = withTimeout(
    'the content repository',
    new Promise<string>((resolve, reject) =>
      execFile(
        'git',
        ['-C', ctx.config.contentRepo, 'rev-parse', '--verify', 'HEAD'],
        { timeout: CHECK_TIMEOUT_MS },
        (err, stdout, stderr) =>
          err
            ? reject(
                new Error(`git rev-parse HEAD in ${ctx.config.contentRepo} failed: ${(stderr || err.message).trim()}`),
              )
            : resolve(`HEAD ${stdout.trim().slice(0, 12)}`),
      ),
    ),
  );
  const storage = withTimeout(
    'storage',
    (async () => {
      // A read process writes nothing of its own: its data folder may be a read-only mount of the
      // writer's (docs/operations.md, "Several processes"); the build it serves is checked above.
      if (ctx.role === 'reader') {
        await fs.access(ctx.config.dataDir);
        return `read process: data folder ${ctx.config.dataDir} readable; ${await ctx.blobs.check()}`;
      }
      // A durable write in the data folder: a full disk or a read-only mount fails here.
      const dir = path.join(ctx.config.dataDir, 'state');
      await fs.mkdir(dir, { recursive: true });
      // A name of its own per check: probes that overlap (several balancers, retries) must never
      // remove each other's file.
      const probe = path.join(dir, `.readyz-${process.pid}-${randomBytes(6).toString('hex')}.probe`);
      const handle = await fs.open(probe, 'w');
      try {
        await handle.writeFile('ok');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.unlink(probe);
      // The blob store: its folder writable, or its S3 bucket answering.
      const blobs = await ctx.blobs.check();
      return `data folder ${ctx.config.dataDir} writable; ${blobs}`;
    })(),
  );
  return { build: await build, contentRepository: await contentRepository, storage: await storage };
}

export function registerObservabilityRoutes(app: FastifyInstance, ctx: AppContext): void {
  const base = ctx.config.publicBaseUrl;
  const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store').type('application/json');

  app.get('/healthz', async (_request, reply) => noStore(reply).send({ status: 'alive' }));

  app.get('/readyz', async (request, reply) => {
    const checks = await readiness(ctx);
    const failed = Object.entries(checks).filter(([, c]) => !c.ok);
    const building = ctx.startup.building
      ? { building: { commit: ctx.startup.building, startedAtUtc: ctx.startup.startedAtUtc } }
      : {};
    if (failed.length === 0) return noStore(reply).send({ status: 'ready', checks, ...building });
    return sendProblem(
      reply,
      request,
      base,
      'not-ready',
      `Not ready: ${failed.map(([name, c]) => `${name} (${c.detail})`).join('; ')}.`,
      {
        checks,
        headers: { 'Retry-After': '5' },
      },
    );
  });

  const keyed = requireRole(ctx, ['metrics']);
  const metricsAuth = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!ctx.keys.configuredFor(['metrics'])) {
      const detail =
        'Metrics are not configured on this port. The operator either sets ARCHIVE_METRICS_KEYS (comma-separated label=secret) and restarts, then reads /metrics with Authorization: Bearer <secret>, ' +
        `or sets ARCHIVE_METRICS_PORT to serve /metrics without a key on a separate loopback listener${ctx.config.metricsPort !== null ? ` (set here: port ${ctx.config.metricsPort} on 127.0.0.1)` : ''}.`;
      await sendProblem(reply, request, base, 'unauthorized', detail, {
        headers: { 'WWW-Authenticate': 'Bearer realm="archive"' },
      });
      return reply;
    }
    return keyed(request, reply);
  };

  app.get('/metrics', { onRequest: metricsAuth }, async (_request, reply) => {
    const { contentType, body } = await app.archive.metricsText();
    return reply.header('Cache-Control', 'no-store').type(contentType).send(body);
  });
}
