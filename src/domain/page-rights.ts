/**
 * Rights of linked web pages. A source asset that is a web page (kind `source-page`) carries
 * that page's own terms, not the work's: a Wikipedia article about a public-domain symphony is
 * still CC BY-SA text, and an IMSLP work page is a catalog page whose scans each carry their own
 * copyright tag. The content lint refuses `public-domain` on a page whose host publishes under a
 * known license or is a catalog, and the work page says in words what the page's terms are.
 * Pure: no I/O.
 */

export type PageTermsKind = 'licensed-text' | 'catalog';

export interface HostTerms {
  /** The site as a reader knows it, e.g. "Wikipedia". */
  site: string;
  kind: PageTermsKind;
  /** The rightsStatus such a page carries. */
  rightsStatus: 'third-party-license' | 'catalog-page';
  /** SPDX id of the page's own text license, when the host publishes under one. */
  license: string | null;
  /** The page's terms in words, for the rights panel and the lint message. */
  words: string;
}

const HOSTS: Array<{ match: (host: string) => boolean; terms: HostTerms }> = [
  {
    match: (h) => h === 'wikipedia.org' || h.endsWith('.wikipedia.org'),
    terms: {
      site: 'Wikipedia',
      kind: 'licensed-text',
      rightsStatus: 'third-party-license',
      license: 'CC-BY-SA-4.0',
      words:
        'a Wikipedia article: its text is licensed CC BY-SA 4.0 by its authors (reuse needs attribution and share-alike), whatever the status of the music it describes',
    },
  },
  {
    match: (h) => h === 'imslp.org' || h.endsWith('.imslp.org'),
    terms: {
      site: 'IMSLP',
      kind: 'catalog',
      rightsStatus: 'catalog-page',
      license: null,
      words:
        'an IMSLP work page: a catalog page that lists scans and editions, each with its own copyright tag there; the page itself makes no file public domain, so check the tag of the scan you use',
    },
  },
  {
    match: (h) => h === 'commons.wikimedia.org',
    terms: {
      site: 'Wikimedia Commons',
      kind: 'catalog',
      rightsStatus: 'catalog-page',
      license: null,
      words: 'a Wikimedia Commons page: each file there carries its own license; the page itself licenses nothing',
    },
  },
  {
    match: (h) => h === 'mutopiaproject.org' || h.endsWith('.mutopiaproject.org'),
    terms: {
      site: 'the Mutopia Project',
      kind: 'catalog',
      rightsStatus: 'catalog-page',
      license: null,
      words:
        'a Mutopia Project page: each edition there carries its own license (public domain or a Creative Commons license)',
    },
  },
];

/** The known terms of a page by its address, or null for a host we know nothing about. */
export function hostTerms(url: string | undefined | null): HostTerms | null {
  if (!url) return null;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
  return HOSTS.find((h) => h.match(host))?.terms ?? null;
}

export interface PageRightsProblem {
  field: 'rightsStatus' | 'license';
  message: string;
}

/** The page an asset stands for: its own URL, else the page it was found on. */
export function pageUrlOf(asset: { url?: string; sourcePageUrl: string }): string {
  return asset.url ?? asset.sourcePageUrl;
}

/**
 * Checks one source asset of kind `source-page`: `public-domain` is refused on a page whose host
 * has known terms, and a licensed page must carry its host's license.
 */
export function checkPageRights(asset: {
  kind: string;
  url?: string;
  sourcePageUrl: string;
  rightsStatus: string;
  license: string | null;
}): PageRightsProblem[] {
  if (asset.kind !== 'source-page') return [];
  const url = pageUrlOf(asset);
  const terms = hostTerms(url);
  if (!terms) return [];
  const problems: PageRightsProblem[] = [];
  if (asset.rightsStatus === 'public-domain') {
    const fix =
      terms.kind === 'licensed-text'
        ? `use rightsStatus "${terms.rightsStatus}" with license "${terms.license}"`
        : `use rightsStatus "${terms.rightsStatus}", and list a file you rely on as its own asset with that file's status`;
    problems.push({
      field: 'rightsStatus',
      message: `is "public-domain", but ${url} is ${terms.words}. A linked page has its own terms, not the work's: ${fix}`,
    });
  }
  if (terms.kind === 'licensed-text' && asset.license !== terms.license) {
    problems.push({
      field: 'license',
      message: `must be "${terms.license}" for a ${terms.site} page, the license of the page's own text (got ${asset.license === null ? 'null' : `"${asset.license}"`})`,
    });
  }
  return problems;
}

/** The rights of a linked page in one sentence for the rights panel. */
export function pageRightsWords(asset: {
  title: string;
  kind: string;
  url?: string | null;
  sourcePage: string;
  rightsStatus: string;
  license: string | null;
}): string | null {
  if (asset.kind !== 'source-page') return null;
  const terms = hostTerms(asset.url ?? asset.sourcePage);
  if (terms) return `“${asset.title}” is ${terms.words}.`;
  const status = asset.rightsStatus.replace(/-/g, ' ');
  return `“${asset.title}” is a linked web page; its own terms: ${status}${asset.license ? `, ${asset.license}` : ''}.`;
}
