/**
 * The importer's plan of one real corpus song (src/domain/corpus/openscore.ts) and the proposal the
 * archive builds from it (src/domain/review/proposal.ts), for a composer the corpus's
 * composers.tsv lists and for one it does not.
 */
import { describe, expect, it } from 'vitest';
import { buildContributionChange } from '../../src/domain/review/proposal.ts';
import { resolveWork } from '../../src/domain/people.ts';
import { validate } from '../../src/domain/validation.ts';
import { WorkFile } from '../../src/schemas/work.ts';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { proposalInput } from '../review/proposal-input.ts';

/** The proposed work file and people, and the work as the build resolves it (its rights derived as of 2026). */
const landed = (fileName: string, slug: string) => {
  const { body } = plannedImportItem(LIEDER, fileName, slug);
  const change = buildContributionChange(proposalInput(body, { work: null, workFileSha256: null, asOfYear: 2026 }));
  if (change.kind !== 'work') throw new Error('expected a work change');
  const file = structuredClone(change.after);
  expect(validate(WorkFile, file, { useDefaults: true })).toEqual([]);
  const people = new Map((change.people ?? []).map((p) => [p.slug, p.after]));
  const resolved = resolveWork(file as WorkFile, people, 2026);
  expect(resolved.problems).toEqual([]);
  return { body, after: change.after, people, work: resolved.content! };
};

describe('OpenScore import plan', () => {
  it('adds a composer missing from composers.tsv with unknown life dates, and the rights name the missing death year', () => {
    // Roger Quilter's songs are in the Lieder corpus, but composers.tsv has no row for him.
    const { body, after, people, work } = landed('lc321919.mxl', 'quilter-the-bracelet');
    expect(body.work?.composerFacts).toMatchObject({
      name: 'Roger Quilter',
      sortName: 'Quilter, Roger',
      born: 'unknown',
      died: 'unknown',
      wikidataId: null,
    });
    expect(body.work?.composerFacts?.evidenceUrls).toHaveLength(1);
    expect(body.rights.compositionStatus).toBe('unknown');
    // The work names the composer by slug; the composer's facts are a record of their own.
    expect(after.composer).toBe('quilter-roger');
    expect(people.get('quilter-roger')).toMatchObject({ name: 'Roger Quilter', born: 'unknown', died: 'unknown' });
    // No conclusion is stored: the file holds no territory or composition status.
    expect(after.rights).not.toHaveProperty('territories');
    expect(after.rights).not.toHaveProperty('composition');
    // Derived: nothing decided, and each missing fact named.
    expect(work.rights.composition.status).toBe('unknown');
    for (const t of ['US', 'EU', 'CA'] as const) expect(work.rights.territories[t].status).toBe('unknown');
    // The EU and Canada count from the composer's death; the US from first publication.
    expect(JSON.stringify(work.rights.territories.EU.missingFacts)).toMatch(/composer/i);
    expect(JSON.stringify(work.rights.territories.CA.missingFacts)).toMatch(/composer/i);
    expect(JSON.stringify(work.rights.territories.US.missingFacts)).toMatch(/publication/i);
    expect(work.rightsNote).toMatch(/held for rights review.*Missing: .*composer/i);
    // The score lands held for rights review: published with its technical state once the facts decide.
    expect(after.sourceAssets).toContainEqual(
      expect.objectContaining({ kind: 'mxl', heldForRights: true, access: 'public' }),
    );
    expect(work.sourceAssets.find((a) => a.kind === 'mxl')).toMatchObject({
      reviewState: 'rights-review-required',
      access: 'admin-only',
    });
    // The narrative is about the work, never a file path.
    expect(body.changeSummary).toContain('/');
    // scores.tsv does not list the file: the IMSLP scan it was transcribed from is the one its own
    // <source> names, cited as the scan (the evidence a batch's first-publication fact uses).
    expect(body.assets).toContainEqual(
      expect.objectContaining({
        kind: 'source-page',
        sourcePageUrl: 'https://imslp.org/wiki/Special:ReverseLookup/321919',
      }),
    );
  });

  it("sends a listed composer's life dates and Wikidata evidence", () => {
    const { body, after, work } = landed('lc6487832.mxl', 'schubert-fischerweise');
    expect(body.work?.composerFacts).toMatchObject({
      name: 'Franz Schubert',
      sortName: 'Schubert, Franz',
      born: '1797',
      died: '1828',
      wikidataId: 'Q7312',
    });
    expect(body.work?.composerFacts?.evidenceUrls[0]).toBe('https://www.wikidata.org/wiki/Q7312');
    expect(after.composer).toBe('schubert-franz');
    expect(work.composer).toMatchObject({ name: 'Franz Schubert', born: '1797', died: '1828', slug: 'schubert-franz' });
    // Its lyricist is a person too, named by the corpus with the IMSLP page of their works, without dates.
    expect(after.lyricist).toBe(work.lyricist?.slug);
    expect(work.lyricist).toMatchObject({ born: 'unknown', died: 'unknown' });
    expect(work.rights.territories.EU.missingFacts?.[0]).toMatch(/lyricist's death year/);
  });
});
