/**
 * The resolve answer in short (`Prefer: return=minimal`, and MCP resolve_music by default): per
 * candidate only what a decision needs (work, arrangement, title, ready, fit, where to hear it,
 * each failing check in one line, rights and review in one line), so ten candidates fit in
 * 8,000 bytes and an agent can afford the answer. Derived from the full answer, so the two can
 * never disagree; the full one is linked.
 */
import type { ResolveCandidate, ResolveCompactResult, ResolveResult } from '../../schemas/resolve.ts';

/** Longest one-line reason kept per failing check (the full answer has every word). */
const LINE = 110;
/** Failing checks listed per candidate; more are counted in one last line. */
const MAX_FAILING = 4;

function oneLine(text: string): string {
  const first = text.replace(/\s+/g, ' ').trim();
  return first.length <= LINE ? first : `${first.slice(0, LINE - 1).trimEnd()}…`;
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

export function compactCandidate(c: ResolveCandidate): ResolveCompactResult['candidates'][number] {
  const failed = c.reasons.filter((r) => !r.passed);
  const failing = failed.slice(0, MAX_FAILING).map((r) => `${r.requirement}: ${oneLine(r.detail)}`);
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

export function compactResolve(
  full: ResolveResult,
  links: { full: string | null; vocabulary: string },
): ResolveCompactResult {
  return {
    verdict: full.verdict,
    summary: full.summary,
    readyCount: full.search.readyCount,
    candidates: full.candidates.map(compactCandidate),
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
