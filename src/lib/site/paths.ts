/**
 * URLs of the reader's pages, plus the slug rule for names that have no slug of their own
 * (composers, genres). Pages link to each other and load their images, scripts and search index
 * by root-relative paths ("/works/x/"), so a build made for one address works at any other
 * (a LAN name, 127.0.0.1, behind a proxy). Records keep absolute links from PUBLIC_BASE_URL.
 */
import { nameSlug } from '../../domain/text.ts';

export type FacetName = 'period' | 'genre' | 'instrument' | 'role';

/** "Dvořák, Antonín" -> "dvorak-antonin"; never empty (the rule person slugs follow too). */
export const slugify = nameSlug;

export function pageUrls() {
  const base = '';
  return {
    home: `${base}/`,
    works: `${base}/works/`,
    search: `${base}/search/`,
    browse: `${base}/browse/`,
    facet: (facet: FacetName, slug: string) => `${base}/browse/${facet}/${slug}/`,
    composers: `${base}/composers/`,
    composer: (slug: string) => `${base}/composers/${slug}/`,
    people: `${base}/people/`,
    person: (slug: string) => `${base}/people/${encodeURIComponent(slug)}/`,
    instruments: `${base}/instruments/`,
    profiles: `${base}/profiles/`,
    profile: (slug: string) => `${base}/profiles/${encodeURIComponent(slug)}/`,
    apiDocs: `${base}/api-docs/`,
    track: `${base}/track/`,
    trackCode: (code: string) => `${base}/track/${encodeURIComponent(code)}`,
    score: (slug: string, assetId: number) => `${base}/works/${encodeURIComponent(slug)}/score/${assetId}/`,
    scoreFile: (slug: string, assetId: number, file: string) =>
      `${base}/works/${encodeURIComponent(slug)}/score/${assetId}/${file}`,
    pagefind: `${base}/pagefind/pagefind.js`,
    // The API as the page's scripts and forms call it: same origin as the page.
    worksApi: `${base}/api/v1/works`,
    correctionReportsApi: `${base}/api/v1/correction-reports`,
    contributionsApi: `${base}/api/v1/music/contributions`,
    workZip: (slug: string) => `${base}/works/${encodeURIComponent(slug)}/${encodeURIComponent(slug)}.zip`,
  };
}
export type PageUrls = ReturnType<typeof pageUrls>;

/**
 * A record's absolute link as a root-relative path when it points into this site (same base),
 * so links and media on pages follow the address the reader used; other links stay as they are.
 */
export function onSite(url: string, baseUrl: string): string;
export function onSite(url: string | null, baseUrl: string): string | null;
export function onSite(url: string | null, baseUrl: string): string | null {
  if (url === null) return null;
  const base = baseUrl.replace(/\/+$/, '');
  return url.startsWith(`${base}/`) ? url.slice(base.length) : url;
}

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
