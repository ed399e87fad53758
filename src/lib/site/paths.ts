/**
 * Absolute URLs of the reader's pages, from the same base (PUBLIC_BASE_URL) as the records'
 * links, plus the slug rule for names that have no slug of their own (composers, genres).
 */
import { fold } from '../../domain/text.ts';

export type FacetName = 'period' | 'genre' | 'instrument' | 'role';

/** "Dvořák, Antonín" -> "dvorak-antonin"; never empty. */
export function slugify(text: string): string {
  return (
    fold(text)
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 120) || 'unnamed'
  );
}

export function pageUrls(baseUrl: string) {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    home: `${base}/`,
    search: `${base}/search/`,
    browse: `${base}/browse/`,
    facet: (facet: FacetName, slug: string) => `${base}/browse/${facet}/${slug}/`,
    composers: `${base}/composers/`,
    composer: (slug: string) => `${base}/composers/${slug}/`,
    instruments: `${base}/instruments/`,
    profiles: `${base}/profiles/`,
    profile: (slug: string) => `${base}/profiles/${encodeURIComponent(slug)}/`,
    apiDocs: `${base}/api-docs/`,
    track: `${base}/track/`,
    trackCode: (code: string) => `${base}/track/${encodeURIComponent(code)}`,
    score: (slug: string, assetId: number) => `${base}/works/${encodeURIComponent(slug)}/score/${assetId}/`,
    scoreFile: (slug: string, assetId: number, file: string) => `${base}/works/${encodeURIComponent(slug)}/score/${assetId}/${file}`,
    pagefind: `${base}/pagefind/pagefind.js`,
  };
}
export type PageUrls = ReturnType<typeof pageUrls>;

/** Only web links reach an href: anything else (javascript:, data:) becomes null. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}
