/**
 * The resolve answer in short (`Prefer: return=minimal`, and MCP resolve_music by default): per
 * candidate only what a decision needs (work, arrangement, title, ready, fit, where to hear it,
 * each failing check in one line, rights and review in one line), so ten candidates fit in
 * 8,000 bytes and an agent can afford the answer. Derived from the full answer, so the two can
 * never disagree; the full one is linked.
 */
import type { ResolveCandidate, ResolveCompactResult, ResolveResult } from '../../schemas/resolve.ts';

/** The byte budget of a compact answer in its envelope (ten candidates). */
export const COMPACT_MAX_BYTES = 8000;
/**
 * Longest one-line reason per failing check, tried in turn until the answer fits the budget
 * (0: the requirement's name only). The full answer has every word.
 */
const LINES = [110, 80, 50, 0] as const;
/** Failing checks listed per candidate; more are counted in one last line. */
const MAX_FAILING = 4;
/** Room kept for the envelope around `data` (apiVersion, generatedAtUtc). */
const ENVELOPE_BYTES = 80;

function oneLine(text: string, line: number): string {
  const first = text.replace(/\s+/g, ' ').trim();
  return first.length <= line ? first : `${first.slice(0, line - 1).trimEnd()}…`;
}

function rightsLine(c: ResolveCandidate): string {
  const r = c.rights;
  const territories = (['US', 'EU', 'CA'] as const).filter((t) => r.territories[t].status === 'public-domain');
  return (
    `${c.license ?? 'no license'}; composition ${r.composition.status}` +
    (territories.length ? ` (PD ${territories.join('/')})` : '') +
    `; edition ${r.edition.status}; recording ${r.recording.status}`
  );
}

export function compactCandidate(
  c: ResolveCandidate,
  line: number = LINES[0],
): ResolveCompactResult['candidates'][number] {
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
    failing,
    rights: rightsLine(c),
    review: c.reviewStatus,
  };
}

/** The compact answer: reasons shortened step by step until it fits COMPACT_MAX_BYTES. */
export function compactResolve(
  full: ResolveResult,
  links: { full: string | null; vocabulary: string },
): ResolveCompactResult {
  let answer: ResolveCompactResult | null = null;
  for (const line of LINES) {
    answer = compactAt(full, links, line);
    if (Buffer.byteLength(JSON.stringify(answer)) + ENVELOPE_BYTES <= COMPACT_MAX_BYTES) break;
  }
  return answer!;
}

function compactAt(
  full: ResolveResult,
  links: { full: string | null; vocabulary: string },
  line: number,
): ResolveCompactResult {
  return {
    verdict: full.verdict,
    summary: full.summary,
    readyCount: full.search.readyCount,
    candidates: full.candidates.map((c) => compactCandidate(c, line)),
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
