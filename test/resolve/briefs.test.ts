/**
 * The producer brief set (test/resolve/briefs/producer-briefs.json): briefs in producers' own
 * words, each with the request an agent would send and the answer labeled from the sample catalog
 * before any was run. Every brief is resolved over the shipped sample catalog and checked against
 * its label; the set must agree at least 90 %, every failure class of issue 57 must be in it, and
 * every brief's compact answer (Prefer: return=minimal) must fit 8,000 bytes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { resolveMusic } from '../../src/domain/resolve/resolve.ts';
import { compactResolve } from '../../src/domain/resolve/compact.ts';
import type { MusicResolveInput, ResolveResult } from '../../src/schemas/resolve.ts';
import { catalogRecords } from '../helpers/resolve-fixture.ts';

const BASE = 'https://briefs.example.test';
const { records, profiles, instruments } = catalogRecords(BASE);
const catalog = buildResolveCatalog(records, profiles, instruments);

interface Brief {
  id: string;
  classes: string[];
  brief: string;
  request: MusicResolveInput;
  expect: {
    verdict: 'reuse' | 'prepare';
    first?: string[];
    fails?: Record<string, string>;
    noneMatch?: string;
    quote?: Record<string, string>;
    missing?: string;
  };
}

export const BRIEFS = (
  JSON.parse(readFileSync(path.join(import.meta.dirname, 'briefs', 'producer-briefs.json'), 'utf8')) as {
    briefs: Brief[];
  }
).briefs;

const key = (c: { workSlug: string; arrangementId: number }) => `${c.workSlug}#${c.arrangementId}`;

/** Every way the answer disagrees with the brief's label (empty: it agrees). */
export function disagreements(b: Brief, r: ResolveResult): string[] {
  const out: string[] = [];
  const e = b.expect;
  const first = r.candidates[0];
  if (r.verdict !== e.verdict) out.push(`verdict ${r.verdict}, labeled ${e.verdict}`);
  if (e.first && (!first || !e.first.includes(key(first))))
    out.push(`first ${first ? key(first) : 'none'}, labeled one of ${e.first.join(', ')}`);
  for (const [arrangement, requirement] of Object.entries(e.fails ?? {})) {
    const c = r.candidates.find((x) => key(x) === arrangement);
    if (c && c.reasons.find((x) => x.requirement === requirement)?.passed !== false)
      out.push(`${arrangement} passes ${requirement}, labeled to fail it`);
  }
  if (e.noneMatch) {
    const passing = r.candidates.filter((c) => c.reasons.find((x) => x.requirement === e.noneMatch)?.passed);
    if (passing.length > 0) out.push(`${passing.map(key).join(', ')} pass ${e.noneMatch}, labeled none`);
  }
  for (const [requirement, words] of Object.entries(e.quote ?? {})) {
    const detail = first?.reasons.find((x) => x.requirement === requirement)?.detail ?? '';
    if (!detail.includes(words)) out.push(`${requirement} reason does not quote ${words}: ${detail}`);
  }
  if (e.missing && r.missing[0]?.what !== e.missing)
    out.push(`first missing ${r.missing[0]?.what ?? 'none'}, labeled ${e.missing}`);
  return out;
}

const answers = BRIEFS.map((b) => ({
  brief: b,
  answer: resolveMusic(catalog, b.request, { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' }),
}));
const results = answers.map(({ brief, answer }) => ({ brief, answer, wrong: disagreements(brief, answer) }));

describe('the producer brief set', () => {
  it('has at least 60 briefs covering every failure class of issue 57', () => {
    expect(BRIEFS.length).toBeGreaterThanOrEqual(60);
    const classes = new Set(BRIEFS.flatMap((b) => b.classes));
    for (const c of [
      'narrower-broader',
      'synonym-two-steps',
      'production-vocabulary',
      'match-grade',
      'function-words',
      'negation',
      'like-work',
      'wordnet-noise',
      'quoted-words',
    ])
      expect(classes, c).toContain(c);
    expect(new Set(BRIEFS.map((b) => b.id)).size).toBe(BRIEFS.length);
  });

  it('agrees with at least 90 % of the labels', () => {
    const wrong = results.filter((r) => r.wrong.length > 0);
    const agreement = (BRIEFS.length - wrong.length) / BRIEFS.length;
    const report = wrong.map((r) => `${r.brief.id} (${r.brief.brief}): ${r.wrong.join('; ')}`).join('\n');
    console.info(
      `brief agreement: ${BRIEFS.length - wrong.length}/${BRIEFS.length} = ${(agreement * 100).toFixed(1)} %` +
        (report ? `\n${report}` : ''),
    );
    expect(agreement, report).toBeGreaterThanOrEqual(0.9);
  });

  it('every brief answers with a compact answer of at most 8,000 bytes', () => {
    let max = 0;
    for (const { brief, answer } of answers) {
      const compact = compactResolve(
        answer,
        {
          full: `${BASE}/api/v1/music/resolve/answers/${'0'.repeat(32)}`,
          vocabulary: `${BASE}/api/v1/music/vocabulary`,
        },
        brief.request.requirements.requiredFormats,
      );
      const bytes = Buffer.byteLength(
        JSON.stringify({ apiVersion: 'v1', generatedAtUtc: '2026-11-26T00:00:00.000Z', data: compact }),
      );
      expect(bytes, brief.id).toBeLessThanOrEqual(8000);
      // What an agent acts on: each ready candidate's requested formats, with asset id and link, license, territories.
      for (const [k, c] of compact.candidates.entries()) {
        const f = answer.candidates[k]!;
        expect(c.license).toBe(f.license);
        expect(c.attribution).toBe(f.attribution);
        expect(c.territories).toMatch(/^US.*EU.*CA (\w|-)+/);
        if (c.ready)
          for (const format of brief.request.requirements.requiredFormats)
            expect(
              c.downloads.some((d) => d.format === format || (format === 'musicxml' && d.format === 'mxl')),
              `${brief.id} ${c.workSlug}#${c.arrangementId} ${format}`,
            ).toBe(true);
      }
      max = Math.max(max, bytes);
    }
    console.info(`largest compact answer over the brief set: ${max} bytes`);
  });
});
