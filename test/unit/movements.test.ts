/**
 * Works with movements (additive in the contribution and work schemas): a new work sent as one
 * score per movement lands with its movements in order and each score naming its own
 * (src/domain/review/proposal.ts); a score naming a movement the work does not list is refused at
 * the proposal and by the content lint (src/domain/catalog.ts); the record lists each movement
 * with its scores (src/domain/records.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildContributionChange, ProposalError, type Data } from '../../src/domain/review/proposal.ts';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';
import { buildWorkRecord, renderWorkMarkdown } from '../../src/domain/records.ts';
import { editFile, fixtureCopies, MINI_WORK } from '../helpers/fixture-copies.ts';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { proposalInput } from '../review/proposal-input.ts';

const copies = fixtureCopies('pdma-movements-');
afterEach(() => copies.removeAll());

/** A song's import body turned into two movement scores of one work. */
function twoMovements() {
  const { body } = plannedImportItem(LIEDER, 'lc6487832.mxl', 'schubert-two-movements');
  const score = body.assets[0]!;
  body.assets = [
    { ...score, title: 'Movement 2: Rondo', movement: 2 },
    { ...score, title: 'Movement 1: Allegro', movement: 1, sha256: 'a'.repeat(64) },
  ];
  body.work!.movements = [
    { number: 2, title: 'Rondo' },
    { number: 1, title: 'Allegro' },
  ];
  return body;
}

describe('works with movements', () => {
  it('a new work lands with its movements in order, each score naming its own', () => {
    const change = buildContributionChange(
      proposalInput(twoMovements(), { work: null, workFileSha256: null, asOfYear: 2026 }),
    );
    if (change.kind !== 'work') throw new Error('expected a work');
    expect(change.after.movements).toEqual([
      { number: 1, title: 'Allegro' },
      { number: 2, title: 'Rondo' },
    ]);
    expect((change.after.sourceAssets as Data[]).map((a) => [a.title, a.movement])).toEqual([
      ['Movement 2: Rondo', 2],
      ['Movement 1: Allegro', 1],
    ]);
  });

  it('refuses a score naming a movement the work does not list, or a movement listed twice', () => {
    const body = twoMovements();
    body.assets[0]!.movement = 3;
    body.work!.movements!.push({ number: 1, title: 'Again' });
    const build = () =>
      buildContributionChange(proposalInput(body, { work: null, workFileSha256: null, asOfYear: 2026 }));
    expect(build).toThrow(ProposalError);
    expect(build).toThrow(
      expect.objectContaining({
        reasons: [
          'work.movements lists movement 1 twice.',
          'assets[0].movement is 3, which work.movements does not list.',
        ],
      }),
    );
  });

  it('the content lint checks movements; the record and the Markdown list them with their scores', () => {
    const dir = copies.copy();
    editFile(dir, MINI_WORK, (t) =>
      t
        .replace('sourceAssets:\n', 'movements:\n  - number: 1\n    title: Menuet\nsourceAssets:\n')
        .replace('    access: public\narrangements:', '    access: public\n    movement: 1\narrangements:'),
    );
    const loaded = loadCatalog(dir);
    expect(loaded.messages.map(formatLintMessage)).toEqual([]);
    const work = loaded.catalog.works.find((w) => w.content.slug === 'bach-minuet-in-g')!;
    const record = buildWorkRecord(work, loaded.catalog, 'https://archive.example.test');
    expect(record.movements).toEqual([{ number: 1, title: 'Menuet', assetIds: [1] }]);
    expect(renderWorkMarkdown(record, '2026-12-07T00:00:00.000Z')).toContain('## Movements\n\n1. Menuet (asset 1)');

    editFile(dir, MINI_WORK, (t) => t.replace('    movement: 1\n', '    movement: 2\n'));
    expect(loadCatalog(dir).messages.map(formatLintMessage)).toEqual([
      `${MINI_WORK}: /sourceAssets/0/movement: is 2, which /movements does not list`,
    ]);
  });
});
