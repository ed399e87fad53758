// Astro builds every public record of the archive as static files (docs/decisions/0001-astro-builds-every-public-record.md). The build
// script (scripts/build.ts) passes the content repository, output folder and base URL through the
// environment, so the same config serves `npm run build`, first start and rebuild-and-swap.
import { defineConfig } from 'astro/config';

const baseUrl = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:4321').replace(/\/+$/, '');

export default defineConfig({
  site: baseUrl,
  output: 'static',
  outDir: process.env.ARCHIVE_BUILD_OUT ?? './dist/client',
  cacheDir: process.env.ARCHIVE_BUILD_CACHE ?? './node_modules/.astro',
  trailingSlash: 'ignore',
  devToolbar: { enabled: false },
  // Four pages at a time: with one, the render thread sat idle while each page's folder and file
  // were written (a quarter of Astro's time at 10,000 works); the pages do not depend on each other.
  // No script or stylesheet is inlined into a page: the Content-Security-Policy
  // (api/http/content-security-policy.ts) allows scripts and styles from the site's own files only.
  build: { format: 'directory', concurrency: 4, inlineStylesheets: 'never' },
  vite: { build: { chunkSizeWarningLimit: 2000, assetsInlineLimit: 0 } },
});
