/**
 * How v1 changes and how an operation is retired (spec Part 9 leaves this to us). The policy's
 * words appear in /api/v1, the OpenAPI info, /llms-full.txt and the README; the headers a
 * deprecated operation answers with are built here:
 *   Deprecation: @<unix seconds>   (RFC 9745, a Structured Field Date)
 *   Sunset: <HTTP-date>            (RFC 8594)
 *   Link: <changelog>; rel="deprecation"; type="text/markdown"   (RFC 9745 section 3)
 */

export interface Deprecation {
  method: string;
  /** OpenAPI path template, e.g. /api/v1/works/{slug}. */
  path: string;
  /** When the deprecation took effect (UTC). */
  deprecatedAtUtc: string;
  /** When the operation may stop answering (UTC); at least DEPRECATION_NOTICE_DAYS later. */
  sunsetAtUtc: string;
  /** What to use instead. */
  replacement: string;
}

/** Minimum days between a deprecation and its sunset. */
export const DEPRECATION_NOTICE_DAYS = 180;

/** Deprecated operations of v1. None today; an entry here sets the headers and OpenAPI `deprecated`. */
export const DEPRECATIONS: readonly Deprecation[] = [];

export const VERSIONING_POLICY =
  'v1 changes only by addition: new operations, new optional request fields, new response fields, new problem types and new values where a field says its list may grow. ' +
  'Clients must ignore response fields they do not know. Removing or renaming an operation or field, making an optional input required, or changing what a value means happens only in a new version under a new path prefix (/api/v2), ' +
  `or after a deprecation: the change is announced in the changelog, the operation is marked deprecated in the OpenAPI document and answers Deprecation (RFC 9745), Sunset (RFC 8594) and Link rel="deprecation" headers for at least ${DEPRECATION_NOTICE_DAYS} days before the Sunset date; only after that date may it be removed.`;

/** RFC 9110 IMF-fixdate, e.g. "Sat, 01 May 2027 00:00:00 GMT". */
function httpDate(utc: string): string {
  return new Date(utc).toUTCString();
}

export function deprecationHeaders(d: Deprecation, changelogUrl: string): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(Date.parse(d.deprecatedAtUtc) / 1000)}`,
    Sunset: httpDate(d.sunsetAtUtc),
    Link: `<${changelogUrl}>; rel="deprecation"; type="text/markdown"`,
  };
}

/** A deprecation entry is well-formed: valid UTC times and the notice period respected. */
export function checkDeprecation(d: Deprecation): string[] {
  const problems: string[] = [];
  const from = Date.parse(d.deprecatedAtUtc);
  const to = Date.parse(d.sunsetAtUtc);
  if (!/Z$/.test(d.deprecatedAtUtc) || Number.isNaN(from))
    problems.push(`${d.method} ${d.path}: deprecatedAtUtc must be a UTC timestamp ending in Z`);
  if (!/Z$/.test(d.sunsetAtUtc) || Number.isNaN(to))
    problems.push(`${d.method} ${d.path}: sunsetAtUtc must be a UTC timestamp ending in Z`);
  if (!Number.isNaN(from) && !Number.isNaN(to) && to - from < DEPRECATION_NOTICE_DAYS * 86_400_000) {
    problems.push(
      `${d.method} ${d.path}: the sunset must come at least ${DEPRECATION_NOTICE_DAYS} days after the deprecation`,
    );
  }
  return problems;
}

/** Does a request path match an OpenAPI path template ({name} matches one segment)? Bounded: templates are ours. */
export function matchesTemplate(template: string, path: string): boolean {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`).test(path);
}

export function findDeprecation(list: readonly Deprecation[], method: string, path: string): Deprecation | undefined {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return list.find((d) => d.method.toUpperCase() === m && matchesTemplate(d.path, path));
}
