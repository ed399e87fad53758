/**
 * Safety rules that JSON Schema cannot say well, checked beside the schema and reported the same
 * way (a JSON Pointer and a sentence per violation, all at once). They work on any parsed JSON,
 * valid or not, so a request gets its schema errors and its safety errors in one answer.
 */
import type { FieldError } from '../validation.ts';

export interface SafetyRule {
  id: string;
  rule: string;
}

/** The rules in words, served in the contribution schema document and the docs. */
export const CONTRIBUTION_SAFETY_RULES: readonly SafetyRule[] = [
  {
    id: 'no-binary-content',
    rule: 'JSON never carries binary content: no string may be a data: URL or embed a ";base64," payload. Keep files at HTTPS URLs and send their SHA-256 digests.',
  },
  {
    id: 'no-base64-in-urls',
    rule: 'URL fields (assets[].downloadUrl, assets[].sourcePageUrl, rights.evidenceUrls[], reproducibility.manifestUrl) must not smuggle a base64 payload: a run of 100 or more base64 characters mixing upper case, lower case and digits is refused.',
  },
  {
    id: 'https-only',
    rule: 'assets[].downloadUrl, assets[].sourcePageUrl, rights.evidenceUrls[] and reproducibility.manifestUrl must be https:// URLs.',
  },
  {
    id: 'human-listening-approval',
    rule: 'An asset with reviewState "human-listening-approved", or quality.humanListeningApproved true, requires submittedBy.kind "Human": only an accountable human may assert listening approval.',
  },
];

export const CORRECTION_SAFETY_RULES: readonly SafetyRule[] = [
  CONTRIBUTION_SAFETY_RULES[0]!,
  { id: 'evidence-url-scheme', rule: 'evidenceUrl must be an http:// or https:// URL without a base64 payload.' },
];

const DATA_URL_DETAIL =
  'must not be a data: URL; JSON never carries binary content. Host the file at an HTTPS URL and send its SHA-256';
const EMBEDDED_DATA_DETAIL =
  'must not embed a data: URL or base64 payload; JSON never carries binary content. Link to the file at an HTTPS URL instead';
const BASE64_DETAIL = 'must not carry a base64 payload; host the file at an HTTPS URL and send its SHA-256';
const HTTPS_DETAIL = 'must be an https:// URL (files and evidence are fetched only over HTTPS)';
const HTTP_DETAIL = 'must be an http:// or https:// URL';

const DATA_URL_START = /^\s*data:/i;
/** A data: URL inside free text ("see data:image/png;base64,...") or any ";base64," payload. */
const EMBEDDED_DATA = /(?:^|[\s"'(<[=])data:[a-z0-9.+-]*\/?[a-z0-9.+-]*(?:;[^,\s]*)?,|;base64,/i;
const BASE64_RUN = /[A-Za-z0-9+/=_-]{100,}/g;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * True when `url` carries what looks like an encoded file: a long run of base64 characters that
 * mixes upper case, lower case and digits, with a slash-free stretch too long for a path (a
 * 40-character commit id or a kebab-case slug does not qualify).
 */
export function hasBase64Payload(url: string): boolean {
  let decoded = url;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    // keep the raw text when the percent-encoding is broken
  }
  for (const [run] of decoded.matchAll(BASE64_RUN)) {
    if (!/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/[0-9]/.test(run)) continue;
    const longestPiece = Math.max(...run.split('/').map((p) => p.length));
    if (longestPiece >= 48) return true;
  }
  return false;
}

/** Every string in `value` with its pointer. */
function* strings(value: unknown, pointer = ''): Generator<[string, string]> {
  if (typeof value === 'string') yield [pointer, value];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${pointer}/${i}`);
  else if (isObject(value))
    for (const [k, v] of Object.entries(value)) yield* strings(v, `${pointer}/${escapePointer(k)}`);
}

type UrlPolicy = 'https' | 'http';

function checkUrls(urls: Array<[string, unknown]>, policy: UrlPolicy, out: FieldError[], flagged: Set<string>): void {
  for (const [pointer, url] of urls) {
    if (typeof url !== 'string') continue; // wrong types are the schema's to report
    if (DATA_URL_START.test(url)) {
      out.push({ pointer, detail: DATA_URL_DETAIL });
      flagged.add(pointer);
      continue;
    }
    if (policy === 'https' ? !/^https:\/\//i.test(url) : !/^https?:\/\//i.test(url))
      out.push({ pointer, detail: policy === 'https' ? HTTPS_DETAIL : HTTP_DETAIL });
    if (hasBase64Payload(url)) {
      out.push({ pointer, detail: BASE64_DETAIL });
      flagged.add(pointer);
    }
  }
}

function checkEmbeddedData(body: unknown, out: FieldError[], flagged: Set<string>): void {
  for (const [pointer, text] of strings(body)) {
    if (flagged.has(pointer)) continue;
    if (DATA_URL_START.test(text) || EMBEDDED_DATA.test(text)) out.push({ pointer, detail: EMBEDDED_DATA_DETAIL });
  }
}

/** The URL fields of a contribution that must be HTTPS, with their pointers. */
function contributionUrls(body: Record<string, unknown>): Array<[string, unknown]> {
  const urls: Array<[string, unknown]> = [];
  if (Array.isArray(body.assets)) {
    for (const [i, asset] of body.assets.entries()) {
      if (!isObject(asset)) continue;
      if ('downloadUrl' in asset && asset.downloadUrl !== null)
        urls.push([`/assets/${i}/downloadUrl`, asset.downloadUrl]);
      if ('sourcePageUrl' in asset) urls.push([`/assets/${i}/sourcePageUrl`, asset.sourcePageUrl]);
    }
  }
  if (isObject(body.rights) && Array.isArray(body.rights.evidenceUrls)) {
    for (const [i, url] of body.rights.evidenceUrls.entries()) urls.push([`/rights/evidenceUrls/${i}`, url]);
  }
  if (
    isObject(body.reproducibility) &&
    'manifestUrl' in body.reproducibility &&
    body.reproducibility.manifestUrl !== null
  ) {
    urls.push(['/reproducibility/manifestUrl', body.reproducibility.manifestUrl]);
  }
  return urls;
}

/** Safety violations of a contribution body (any parsed JSON), each with a pointer. */
export function checkContributionSafety(body: unknown): FieldError[] {
  if (!isObject(body)) return [];
  const out: FieldError[] = [];
  const flagged = new Set<string>();
  checkUrls(contributionUrls(body), 'https', out, flagged);
  checkEmbeddedData(body, out, flagged);

  const kind = isObject(body.submittedBy) ? body.submittedBy.kind : undefined;
  if (kind !== 'Human') {
    const who = typeof kind === 'string' ? `"${kind}"` : 'not given';
    if (Array.isArray(body.assets)) {
      for (const [i, asset] of body.assets.entries()) {
        if (isObject(asset) && asset.reviewState === 'human-listening-approved') {
          out.push({
            pointer: `/assets/${i}/reviewState`,
            detail: `"human-listening-approved" requires submittedBy.kind "Human" (it is ${who}): only an accountable human may assert listening approval`,
          });
        }
      }
    }
    if (isObject(body.quality) && body.quality.humanListeningApproved === true) {
      out.push({
        pointer: '/quality/humanListeningApproved',
        detail: `true requires submittedBy.kind "Human" (it is ${who}): only an accountable human may assert listening approval`,
      });
    }
  }
  return out;
}

/** Safety violations of a correction report body (any parsed JSON), each with a pointer. */
export function checkCorrectionSafety(body: unknown): FieldError[] {
  if (!isObject(body)) return [];
  const out: FieldError[] = [];
  const flagged = new Set<string>();
  if ('evidenceUrl' in body && body.evidenceUrl !== null)
    checkUrls([['/evidenceUrl', body.evidenceUrl]], 'http', out, flagged);
  checkEmbeddedData(body, out, flagged);
  return out;
}

/** Safety violations of an answer's message (public text): no embedded data, like every submitted text. */
export function checkMessageSafety(body: unknown): FieldError[] {
  if (!isObject(body) || typeof body.message !== 'string') return [];
  const out: FieldError[] = [];
  checkEmbeddedData({ message: body.message }, out, new Set());
  return out;
}
