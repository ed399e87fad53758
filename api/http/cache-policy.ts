/**
 * The build's static files' cache policy, one text for the front server (api/site/static-site.ts)
 * and the generated nginx.conf (api/site/nginx.ts), so a reader gets the same answer through
 * either (docs/catalog.md, "Cache headers").
 */

/** Records and pages: a build can be swapped in at any apply, so a minute, then revalidate. */
export const STATIC_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300';
/** Vite's hashed assets under `/_astro/`: their name changes with their bytes. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
