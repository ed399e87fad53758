/**
 * The warm build process (api/site/warm-builder.ts): a child of the server that runs builds one
 * after another, each exactly as `scripts/build.ts` with the same arguments would, so the next
 * apply finds Node, the build scripts and Astro's modules already loaded instead of starting a
 * process and loading them again (about 1-3 s per apply, more on a busy machine).
 *
 * Protocol (Node's IPC channel, one request at a time): the parent sends
 * `{ id, args, env, maxBuilds, maxRssBytes }`; the build runs with `env` set in process.env for
 * its duration; the answer is `{ id, ok, exitCode?, message?, builds, rssBytes, peakRssBytes,
 * retire }`. After `maxBuilds` builds, or once the next build could take it past `maxRssBytes`
 * (its resident memory now plus the most a build has added over its start in this process: each
 * Astro run leaves its page modules loaded, so the process grows per apply), the process answers
 * with `retire: true` and exits; the parent starts a new one for the next build. So it is replaced
 * before it passes its share of the memory, not after (docs/operations.md, "Memory"). It exits too
 * when the parent goes away (the IPC channel closes).
 */
import { ContentError, runBuildCommand, UsageError } from './command.ts';
import type { BuildAnswer, BuildRequest } from './protocol.ts';

let builds = 0;
/** The most a warm build (the second on) has added, at its peak, over the memory it started with, bytes. */
let largestGrowth = 0;

async function handle(request: BuildRequest): Promise<void> {
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(request.env)) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  const rssBefore = process.memoryUsage.rss();
  // This build's own peak, sampled while it runs (the process's lifetime peak would carry the first
  // build's loading of Astro and the catalog into every later estimate).
  let buildPeak = rssBefore;
  const sampler = setInterval(() => {
    buildPeak = Math.max(buildPeak, process.memoryUsage.rss());
  }, 50);
  let answer: Omit<BuildAnswer, 'builds' | 'rssBytes' | 'peakRssBytes' | 'nextPeakBytes' | 'retire'>;
  try {
    const result = await runBuildCommand(request.args);
    answer = { id: request.id, ok: true, ...('warmUp' in result ? { warmUp: result.warmUp } : {}) };
  } catch (err) {
    answer = {
      id: request.id,
      ok: false,
      exitCode: err instanceof UsageError ? 2 : 1,
      message:
        err instanceof UsageError || err instanceof ContentError ? err.message : ((err as Error).stack ?? String(err)),
    };
  } finally {
    clearInterval(sampler);
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  const rssBytes = process.memoryUsage.rss();
  buildPeak = Math.max(buildPeak, rssBytes);
  // A process's first build loads Node's modules, Astro and the catalog once: what a warm build
  // adds is measured from the second on.
  if (builds > 0) largestGrowth = Math.max(largestGrowth, buildPeak - rssBefore);
  builds++;
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  const nextPeakBytes = rssBytes + largestGrowth;
  const retire = builds >= request.maxBuilds || nextPeakBytes >= request.maxRssBytes;
  process.send!({ ...answer, builds, rssBytes, peakRssBytes, nextPeakBytes, retire } satisfies BuildAnswer, () => {
    if (retire) process.exit(0);
  });
}

/** Serve build requests on this process's IPC channel until the parent goes away (scripts/build-worker.ts). */
export function serveBuildRequests(): void {
  if (!process.send) {
    console.error('scripts/build-worker.ts is started by the server (api/site/warm-builder.ts), with an IPC channel');
    process.exit(2);
  }
  process.on('disconnect', () => process.exit(0));
  process.on('message', (request: BuildRequest) => {
    void handle(request);
  });
}
