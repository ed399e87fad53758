/**
 * Section "static": the front server answering one static work record, against nginx serving
 * the same build folder with the project's own nginx server block. Same URL, connections and
 * duration; both must answer 200 with identical bytes before anything is measured.
 */
import path from 'node:path';
import { figure, type Section, type SectionContext, type SectionResult } from './results.ts';
import { runLoad, type LoadResult } from './load.ts';
import { findOrInstallNginx, startNginx } from './nginx.ts';
import { memoryOf, startService, type RunningService } from './service.ts';
import { freePort, get, waitForHttp, type TrackedProcess } from './util.ts';

export interface StaticOptions {
  /** Serve this content folder instead of the shipped ./content. */
  contentDir?: string;
}

export function staticSection(options: StaticOptions = {}): Section {
  return {
    name: 'static',
    description: 'req/s and latency of GET /api/v1/works/<slug> from the front server vs nginx on the same build folder',
    run: (ctx) => runStatic(ctx, options),
  };
}

async function runStatic(ctx: SectionContext, options: StaticOptions): Promise<Omit<SectionResult, 'durationMs'>> {
  const connections = 50;
  const durationSeconds = ctx.quick ? 5 : 10;
  const warmupSeconds = ctx.quick ? 1 : 3;
  const details: Record<string, unknown> = {
    connections,
    durationSeconds,
    warmupSeconds,
    content: options.contentDir ? path.resolve(options.contentDir) : 'shipped ./content',
  };
  let service: RunningService | undefined;
  let nginx: TrackedProcess | undefined;
  try {
    const bin = findOrInstallNginx(ctx.log);
    details.nginx = bin;

    ctx.log('starting the service (seed, build, serve) ...');
    service = await startService({ cleanup: ctx.cleanup, contentDir: options.contentDir });
    details.serviceReadyAfterMs = service.readyAfterMs;
    details.buildDir = service.buildDir;

    const list = await get(`${service.baseUrl}/api/v1/works`);
    if (list.status !== 200) throw new Error(`GET /api/v1/works answered ${list.status}`);
    const listing = (JSON.parse(list.body.toString('utf8')) as { data?: { items?: Array<{ slug: string }>; total?: number } }).data;
    const items = listing?.items ?? [];
    const slug = items[0]?.slug;
    if (!slug) throw new Error('GET /api/v1/works returned no works; nothing to measure');
    const urlPath = `/api/v1/works/${encodeURIComponent(slug)}`;
    details.path = urlPath;
    details.worksInCatalog = listing?.total ?? null;

    const serviceUrl = `${service.baseUrl}${urlPath}`;
    const fromService = await get(serviceUrl);
    if (fromService.status !== 200) throw new Error(`the service answered ${fromService.status} for ${urlPath}`);
    details.bodyBytes = fromService.body.length;
    details.serviceContentType = fromService.headers['content-type'] ?? null;

    let nginxUrl: string | undefined;
    if (bin.path) {
      const prefix = ctx.cleanup.tempDir('nginx');
      const port = await freePort();
      nginx = startNginx(bin.path, prefix, path.join(service.buildDir, 'client'), port, service.baseUrl, ctx.cleanup);
      nginxUrl = `http://127.0.0.1:${port}${urlPath}`;
      await waitForHttp(nginxUrl, nginx, 20_000);
      const fromNginx = await get(nginxUrl);
      details.nginxContentType = fromNginx.headers['content-type'] ?? null;
      if (fromNginx.status !== 200) throw new Error(`nginx answered ${fromNginx.status} for ${urlPath}`);
      if (!fromNginx.body.equals(fromService.body)) {
        throw new Error(`the service and nginx answer different bytes for ${urlPath} (${fromService.body.length} vs ${fromNginx.body.length} bytes); not measuring`);
      }
      details.identicalBodies = true;
    }

    ctx.log(`load: service ${serviceUrl} (${connections} connections, ${durationSeconds} s after ${warmupSeconds} s warm-up)`);
    const svc: LoadResult = await runLoad(serviceUrl, { connections, durationSeconds, warmupSeconds });
    details.service = { ...svc, memoryAfterLoad: memoryOf(service.proc.pid) };

    let base: LoadResult | undefined;
    if (nginxUrl) {
      ctx.log(`load: nginx ${nginxUrl}`);
      base = await runLoad(nginxUrl, { connections, durationSeconds, warmupSeconds });
      details.baseline = base;
    }
    const label = bin.version ? `nginx ${bin.version}, same build folder` : 'nginx (not available)';
    const figures = [
      figure('requests per second', 'req/s', svc.requestsPerSecond, base?.requestsPerSecond ?? null, label, 'higher', { ratio: 0.5, op: '>=' }),
      figure('latency p50', 'ms', svc.latencyP50Ms, base?.latencyP50Ms ?? null, label, 'lower'),
      figure('latency p99', 'ms', svc.latencyP99Ms, base?.latencyP99Ms ?? null, label, 'lower'),
    ];
    const problems = [svc, base].filter((r): r is LoadResult => !!r && r.errors + r.timeouts + r.non2xx > 0);
    const notes: string[] = [];
    if (!bin.path) notes.push(`baseline skipped: ${bin.note}`);
    for (const p of problems) notes.push(`${p.url}: ${p.errors} errors, ${p.timeouts} timeouts, ${p.non2xx} non-2xx during load`);
    return { status: 'ok', ...(notes.length ? { message: notes.join('; ') } : {}), figures, details };
  } catch (err) {
    return { status: 'error', message: (err as Error).message, figures: [], details };
  } finally {
    await Promise.all([nginx?.stop(), service?.proc.stop()]);
  }
}
