/**
 * A score the archive holds for rights review (point 7 of issue 54): resolve names the missing fact
 * and how it is recorded, never asks for a source score the archive already has; once the fact is
 * recorded, the same work's score is public and resolve asks for nothing about it. From content
 * through the loader's derivation to the records and the resolver, as the build does it.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { finishResolve, planResolve, recordsNeeded, resolveMusic } from '../../src/domain/resolve/resolve.ts';
import { inMemoryRecords } from '../../src/domain/resolve/catalog.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { editFile, fixtureCopies } from '../helpers/fixture-copies.ts';
import { catalogRecords } from '../helpers/resolve-fixture.ts';

const BASE = 'https://resolve.example.test';
const WORK = 'works/satie-gymnopedie-1/index.md';
const copies = fixtureCopies('pdma-held-score-', path.join(PROJECT_ROOT, 'content'));
afterEach(() => copies.removeAll());

/** The copy's records and a resolver over them, as the build makes them in 2026. */
function resolverOf(dir: string) {
  const { records, profiles, instruments } = catalogRecords(BASE, dir, { asOfYear: 2026 });
  return { records, resolver: buildResolveCatalog(records, profiles, instruments) };
}

function resolveOutro(dir: string) {
  const { records, resolver } = resolverOf(dir);
  const answer = resolveMusic(
    resolver,
    {
      workSlug: 'satie-gymnopedie-1',
      channel: { channelKey: 'test-channel', intendedRole: 'outro' },
      requirements: { requiredFormats: ['mp3'] },
    },
    { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' },
  );
  return { answer, record: records.find((r) => r.slug === 'satie-gymnopedie-1')! };
}

/** The Gymnopédie with its score held for rights review and no first-publication fact. */
function heldCopy(): string {
  const dir = copies.copy();
  editFile(dir, WORK, (t) =>
    t
      .replace(/^firstPublished:\n(?: {2}.*\n)+/m, '')
      .replace(
        '    reviewState: human-reviewed\n    access: public\n    technicalChecks: MusicXML 4.0 partwise; loads in Verovio (1 page)',
        '    reviewState: human-reviewed\n    access: public\n    heldForRights: true\n    technicalChecks: MusicXML 4.0 partwise; loads in Verovio (1 page)',
      ),
  );
  return dir;
}

describe('a score held for rights review', () => {
  it('resolve names the missing fact and the correction report that records it, not a source score', () => {
    const { answer, record } = resolveOutro(heldCopy());
    expect(record.sourceAssets[0]).toMatchObject({
      id: 1,
      reviewState: 'rights-review-required',
      access: 'admin-only',
    });
    expect(record.rights.territories.US.missingFacts).toEqual(['the first publication year']);
    expect(answer.missing.map((m) => m.what)).not.toContain('source-score');
    const held = answer.missing.find((m) => m.what === 'composition-rights')!;
    expect(held).toMatchObject({ operation: null, workSlug: 'satie-gymnopedie-1', assetId: 1 });
    expect(held.detail).toMatch(/has a MusicXML source score \(asset 1\), held for rights review/);
    expect(held.detail).toMatch(/Missing: the first publication year/);
    expect(held.detail).toMatch(/correction report/);
  });

  it('once the fact is recorded the held score is public with its own review state, and nothing asks about it', () => {
    const dir = heldCopy();
    editFile(dir, WORK, (t) =>
      t.replace(
        /^year: "1888"\n/m,
        'year: "1888"\nfirstPublished:\n  bound: no-later-than\n  year: 1900\n  evidence:\n    - url: https://example.org/edition\n      note: A test edition.\n',
      ),
    );
    const { answer, record } = resolveOutro(dir);
    expect(record.sourceAssets[0]).toMatchObject({ id: 1, reviewState: 'human-reviewed', access: 'public' });
    expect(answer.missing.map((m) => m.what)).not.toContain('composition-rights');
    expect(answer.missing.map((m) => m.what)).not.toContain('source-score');
  });

  it('as the server answers (reading only the records the answer needs), a held work with no arrangement is named with its held score', () => {
    const dir = heldCopy();
    // The work as an import lands it: a held score and no arrangement (so no candidate).
    editFile(dir, WORK, (t) =>
      t.replace(/^arrangements:\n[\s\S]*?(?=^---$)/m, 'arrangements: []\ncomments: []\nvideos: []\n'),
    );
    const { resolver } = resolverOf(dir);
    const input = {
      workSlug: 'satie-gymnopedie-1',
      channel: { channelKey: 'test-channel', intendedRole: 'outro' as const },
      requirements: { requiredFormats: ['mp3'] },
    };
    const plan = planResolve(resolver, input);
    const needed = new Set(recordsNeeded(resolver, plan));
    const all = inMemoryRecords(resolver);
    const answer = finishResolve(
      resolver,
      plan,
      input,
      { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' },
      (order) => {
        if (!needed.has(order)) throw new Error(`the answer read record ${order}, which recordsNeeded did not name`);
        return all(order);
      },
    );
    expect(answer.missing.map((m) => m.what)).toEqual(['composition-rights', 'arrangement']);
    expect(answer.missing[0]).toMatchObject({ operation: null, workSlug: 'satie-gymnopedie-1', assetId: 1 });
    expect(answer.missing[0]!.detail).toMatch(/held for rights review.*Missing: the first publication year/);
  });
});
