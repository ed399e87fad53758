/**
 * A front server (createApp over SiteHandle, as scripts/serve.ts builds it) on a build folder
 * that swaps to a build folder again and again, so the bench can measure what a swap costs the
 * requests running meanwhile. A real swap follows a real build, which at 100,000 works does not
 * fit a bench run; the load (`SiteHandle.swap`: read the index files, make views, one assignment)
 * is the same code. Prints one JSON line per swap: {"swapMs": ...}.
 *
 *   node bench/lib/swap-probe.ts --build DIR --port N --base-url URL [--every-ms 2000] [--no-swap]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT } from './util.ts';

const { values } = parseArgs({
  options: {
    build: { type: 'string' },
    port: { type: 'string' },
    'base-url': { type: 'string' },
    'every-ms': { type: 'string', default: '2000' },
    'no-swap': { type: 'boolean', default: false },
    data: { type: 'string' },
  },
});
const build = path.resolve(values.build!);
const baseUrl =
  values['base-url'] ??
  (JSON.parse(readFileSync(path.join(build, 'build.json'), 'utf8')) as { baseUrl: string }).baseUrl;
const config = loadConfig(
  {
    PUBLIC_BASE_URL: baseUrl,
    ARCHIVE_DATA_DIR: values.data ?? path.join(build, '..', '..'),
    PORT: values.port!,
    HOST: '127.0.0.1',
  },
  PROJECT_ROOT,
);
const handle = await SiteHandle.open(build);
const app = await createApp({ config, handle }, { logger: false });
await app.listen({ port: Number(values.port), host: '127.0.0.1' });
console.log(JSON.stringify({ ready: true }));
if (!values['no-swap']) {
  const every = Number(values['every-ms']);
  const loop = async () => {
    const started = performance.now();
    await handle.swap(build);
    console.log(JSON.stringify({ swapMs: Math.round(performance.now() - started) }));
    setTimeout(loop, every);
  };
  setTimeout(loop, every);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void app.close().then(() => process.exit(0)));
