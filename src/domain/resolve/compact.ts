/**
 * The resolve answer in short (`Prefer: return=minimal`, and MCP resolve_music by default): per
 * candidate what a decision needs and what acting on it needs (work, arrangement, title, ready,
 * fit, where to hear it, each failing check in one line, rights and review in one line, and the
 * asset id and download link of each requested format, the license, the attribution and the
 * territory notes), so ten candidates fit in 8,000 bytes and an agent can afford the answer.
 * Derived from the full answer, so the two can never disagree; the full one is linked.
 */
import type { ResolveCandidate, ResolveCompactResult, ResolveResult } from '../../schemas/resolve.ts';
import { normalizeFormats } from './formats.ts';

/** The byte budget of a compact answer in its envelope (ten candidates). */
export const COMPACT_MAX_BYTES = 8000;
/**
 * Longest one-line reason per failing check and longest territory note, tried in turn until the
 * answer fits the budget (0: the requirement's name only; the territory's status only). The full
 * answer has every word.
 */
const LEVELS: readonly Level[] = [
  { line: 110, note: 200, downloads: 10 },
  { line: 80, note: 100, downloads: 10 },
  { line: 80, note: 100, downloads: 'ready' },
  { line: 50, note: 50, downloads: 'ready' },
  { line: 0, note: 0, downloads: 'ready' },
  { line: 0, note: 0, downloads: 3 },
  { line: 0, note: 0, downloads: 1 },
];
/**
 * `downloads`: which candidates list their download links: every one (10), the ready ones, or
 * the ready ones among the first n (a candidate that is not ready is not for reuse; the full
 * answer lists its files).
 */
interface Level {
  line: number;
  note: number;
  downloads: number | 'ready';
}
/** Failing checks listed per candidate; more are counted in one last line. */
const MAX_FAILING = 4;
/** Room kept for the envelope around `data` (apiVersion, generatedAtUtc). */
const ENVELOPE_BYTES = 80;

function oneLine(text: string, line: number): string {
  const first = text.replace(/\s+/g, ' ').trim();
  return first.length <= line ? first : `${first.slice(0, line - 1).trimEnd()}…`;
}

/** The three rights layers in one line (license, attribution and territories have fields of their own). */
function rightsLine(c: ResolveCandidate): string {
  const r = c.rights;
  return `composition ${r.composition.status}; edition ${r.edition.status}; recording ${r.recording.status}`;
}

/** The territory notes in one line: status, and the note cut to `note` characters (0: status only). */
function territoriesLine(c: ResolveCandidate, note: number): string {
  const t = c.rights.territories;
  if (note === 0 && t.US.status === t.EU.status && t.EU.status === t.CA.status) return `US, EU, CA ${t.US.status}`;
  return (['US', 'EU', 'CA'] as const)
    .map((t) => {
      const x = c.rights.territories[t];
      return `${t} ${x.status}${note > 0 && x.note ? `: ${oneLine(x.note, note)}` : ''}`;
    })
    .join('; ');
}

/**
 * The file to download for each requested format (as the full answer's `formats` lists it: the
 * public asset of that kind the checks used); every public file when no format was requested.
 */
function downloads(
  c: ResolveCandidate,
  requested: readonly string[],
): ResolveCompactResult['candidates'][number]['downloads'] {
  if (requested.length === 0) return c.formats.map((f) => ({ format: f.format, assetId: f.assetId, url: f.download }));
  const out: ResolveCompactResult['candidates'][number]['downloads'] = [];
  for (const f of normalizeFormats(requested)) {
    const hit = f.kinds.map((k) => c.formats.find((x) => x.format === k)).find((x) => x !== undefined);
    if (hit && !out.some((o) => o.assetId === hit.assetId))
      out.push({ format: hit.format, assetId: hit.assetId, url: hit.download });
  }
  return out;
}

export function compactCandidate(
  c: ResolveCandidate,
  level: Level = LEVELS[0]!,
  requested: readonly string[] = [],
): ResolveCompactResult['candidates'][number] {
  const line = level.line;
  const listed =
    level.downloads === 'ready' ? c.ready : c.position <= level.downloads && (level.downloads === 10 || c.ready);
  const failed = c.reasons.filter((r) => !r.passed);
  const failing = failed
    .slice(0, MAX_FAILING)
    .map((r) => (line > 0 ? `${r.requirement}: ${oneLine(r.detail, line)}` : r.requirement));
  if (failed.length > MAX_FAILING)
    failing.push(
      `and ${failed.length - MAX_FAILING} more: ${failed
        .slice(MAX_FAILING)
        .map((r) => r.requirement)
        .join(', ')}`,
    );
  return {
    position: c.position,
    ready: c.ready,
    score: c.score,
    workSlug: c.workSlug,
    arrangementId: c.arrangementId,
    title: c.arrangementTitle,
    fit: c.fit ? { kind: c.fit.kind, durationSeconds: c.fit.durationSeconds, repeats: c.fit.repeats } : null,
    listen: c.listen.url,
    downloads: listed ? downloads(c, requested) : [],
    license: c.license,
    attribution: c.attribution,
    territories: territoriesLine(c, level.note),
    failing,
    rights: rightsLine(c),
    review: c.reviewStatus,
  };
}

/**
 * The compact answer: reasons and territory notes shortened step by step until it fits
 * COMPACT_MAX_BYTES. `requested`: the request's requiredFormats (a download link for each).
 */
export function compactResolve(
  full: ResolveResult,
  links: { full: string | null; vocabulary: string },
  requested: readonly string[] = [],
): ResolveCompactResult {
  let answer: ResolveCompactResult | null = null;
  for (const level of LEVELS) {
    answer = compactAt(full, links, level, requested);
    if (Buffer.byteLength(JSON.stringify(answer)) + ENVELOPE_BYTES <= COMPACT_MAX_BYTES) break;
  }
  return answer!;
}

function compactAt(
  full: ResolveResult,
  links: { full: string | null; vocabulary: string },
  level: Level,
  requested: readonly string[],
): ResolveCompactResult {
  return {
    verdict: full.verdict,
    summary: full.summary,
    readyCount: full.search.readyCount,
    candidates: full.candidates.map((c) => compactCandidate(c, level, requested)),
    missing: full.missing.map((m) => ({
      what: m.what,
      operation: m.operation,
      workSlug: m.workSlug,
      arrangementId: m.arrangementId,
      assetId: m.assetId,
      format: m.format,
    })),
    links: { full: links.full, vocabulary: links.vocabulary, contributionTemplate: full.links.contributionTemplate },
  };
}
