/**
 * The pages made from the site code alone: they read nothing of the catalog and nothing of the
 * build (no `generatedAtUtc`, no commit), only the settings an incremental build's base must share
 * with it (the base URL and the reader sign-in: build/plan.ts refuses a base made for
 * others, or by other site code). Their bytes are the same in every build of the same code, so an
 * apply's warm render leaves them out and the layer serves the base's (build/astro.ts);
 * a full build, and the run of a batched full build that renders the listings, render them.
 *
 * Before 2026-11-28 every apply rendered them again: 37 of the about 65 files of a one-field
 * correction (the 33 problem pages, both favicons, the OpenAPI document, the tracking page).
 *
 * A page joins this list only when it reads no catalog data and no per-build value: the envelope of
 * a JSON record (`recordEnvelope`) carries the build's `generatedAtUtc`, so `/api/v1/` and the
 * workflow document are not on it. `test/build/incremental-identity.slow.test.ts` checks that each
 * listed page is byte-identical between two full builds of different catalogs made at different times.
 */
export const CODE_ONLY_ROUTES: readonly string[] = [
  'src/pages/problems/[name].astro',
  'src/pages/favicon.ico.ts',
  'src/pages/favicon.svg.ts',
  'src/pages/api/v1/openapi.json.ts',
  'src/pages/track/index.astro',
];

/** Whether a route (Astro's `component`, the page's path from the project root) is made from the code alone. */
export function isCodeOnlyRoute(component: string): boolean {
  return CODE_ONLY_ROUTES.includes(component);
}
