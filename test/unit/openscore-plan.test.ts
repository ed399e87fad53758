/**
 * The importer's plan of one real corpus song (src/domain/corpus/openscore.ts) and the proposal the
 * archive builds from it (src/domain/review/proposal.ts), for a composer the corpus's
 * composers.tsv lists and for one it does not.
 */
import { describe, expect, it } from 'vitest';
import { buildContributionChange, type Data } from '../../src/domain/review/proposal.ts';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { proposalInput } from '../review/proposal-input.ts';

const landed = (fileName: string, slug: string) => {
  const { body } = plannedImportItem(LIEDER, fileName, slug);
  const change = buildContributionChange(proposalInput(body, { work: null, workFileSha256: null, asOfYear: 2026 }));
  if (change.kind !== 'work') throw new Error('expected a work change');
  return { body, after: change.after };
};

describe('OpenScore import plan', () => {
  it('adds a composer missing from composers.tsv with unknown life dates, and the rights name the missing death year', () => {
    // Roger Quilter's songs are in the Lieder corpus, but composers.tsv has no row for him.
    const { body, after } = landed('lc321919.mxl', 'quilter-the-bracelet');
    expect(body.work?.composerFacts).toMatchObject({
      name: 'Roger Quilter',
      sortName: 'Quilter, Roger',
      born: 'unknown',
      died: 'unknown',
      wikidataId: null,
    });
    expect(body.work?.composerFacts?.evidenceUrls).toHaveLength(1);
    expect(body.rights.compositionStatus).toBe('unknown');
    expect(after.composer).toMatchObject({ name: 'Roger Quilter', born: 'unknown', died: 'unknown' });
    const rights = after.rights as Data;
    expect((rights.composition as Data).status).toBe('unknown');
    const verdict = (t: string) => (rights.territories as Data)[t] as Data;
    for (const t of ['US', 'EU', 'CA']) expect(verdict(t).status).toBe('unknown');
    // The EU and Canada count from the composer's death; the US from first publication.
    expect(JSON.stringify(verdict('EU').missingFacts)).toMatch(/composer/i);
    expect(JSON.stringify(verdict('CA').missingFacts)).toMatch(/composer/i);
    expect(JSON.stringify(verdict('US').missingFacts)).toMatch(/publication/i);
    expect(String(after.rightsNote)).toMatch(/Missing facts: .*composer/i);
  });

  it("sends a listed composer's life dates and Wikidata evidence", () => {
    const { body, after } = landed('lc6487832.mxl', 'schubert-fischerweise');
    expect(body.work?.composerFacts).toMatchObject({
      name: 'Franz Schubert',
      sortName: 'Schubert, Franz',
      born: '1797',
      died: '1828',
      wikidataId: 'Q7312',
    });
    expect(body.work?.composerFacts?.evidenceUrls[0]).toBe('https://www.wikidata.org/wiki/Q7312');
    expect(after.composer).toMatchObject({ name: 'Franz Schubert', born: '1797', died: '1828' });
  });
});
