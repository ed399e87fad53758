/** The pages made from the code alone (src/lib/site/code-only-pages.ts) name routes that exist. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODE_ONLY_ROUTES, isCodeOnlyRoute } from '../../src/lib/site/code-only-pages.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

describe('code-only pages', () => {
  it('each listed route is a page of the site, named as Astro names its component', () => {
    for (const component of CODE_ONLY_ROUTES) {
      expect(component).toMatch(/^src\/pages\/.+\.(astro|ts)$/);
      expect(existsSync(path.join(PROJECT_ROOT, component)), component).toBe(true);
      expect(isCodeOnlyRoute(component)).toBe(true);
    }
    // A page that lists works is not on it.
    expect(isCodeOnlyRoute('src/pages/works/[slug].astro')).toBe(false);
    expect(isCodeOnlyRoute('src/pages/api/v1/index.json.ts')).toBe(false);
  });
});
