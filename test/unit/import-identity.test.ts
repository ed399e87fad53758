/**
 * Works told apart on import (src/domain/corpus/duplicates.ts, openscore.ts, plan.ts): catalog
 * numbers compared whole, with composer and title, the finding saying what matched and whether
 * all of it did; the movements of one OpenScore work (Mozart's K. 464, Emilie Mayer's Op. 14, one
 * file per movement) planned as one work, and Mozart's other "Op. 10" quartets as works of their
 * own with no duplicate flag, read from the real corpus in ../shared/corpora.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalogNumbers } from '../../src/domain/catalog-numbers.ts';
import { compareIdentity, findDuplicate, identityKey } from '../../src/domain/corpus/duplicates.ts';
import { movementNumber } from '../../src/domain/corpus/musicxml-facts.ts';
import { planWork, type ItemPlan } from '../../src/domain/corpus/plan.ts';
import { isOpenScoreFolder, openScoreSource } from '../../scripts/lib/import-sources.ts';
import { stagedFileUrl } from '../../api/imports/staged-files.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const QUARTETS = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'openscore-string-quartets');
const key = (label: string, composer: string, title: string) =>
  identityKey(label, composer, title, parseCatalogNumbers(title));

describe('duplicates by identity', () => {
  it('compares catalog numbers whole: Op. 10 No. 3 is not Op. 10 No. 4, K. 464 is not K. 465', () => {
    expect(parseCatalogNumbers('String Quartet No.17 in B-flat major, K.458 (Op. 10, No. 3)')).toEqual([
      { catalog: 'K.', number: '458' },
      { catalog: 'Op.', number: '10 No. 3' },
    ]);
    const k458 = key('a', 'Mozart', 'String Quartet No.17 in B-flat major, K.458 (Op. 10, No. 3)');
    const k428 = key('b', 'Mozart', 'String Quartet No.16 in E-flat major, K.428/421b (Op. 10, No. 4)');
    expect(compareIdentity(k458, k428)).toBeNull();
    expect(
      compareIdentity(key('c', 'Mozart', 'Quartet, Op. 10 No. 3'), key('d', 'Mozart', 'Quartet, Op. 10 No. 4')),
    ).toBeNull();
    expect(compareIdentity(key('e', 'Mozart', 'Quartet K. 464'), key('f', 'Mozart', 'Quartet K. 465'))).toBeNull();
    // Same title, different numbers of one catalog: still two works.
    expect(compareIdentity(key('g', 'Bach', 'Chorale, BWV 101.7'), key('h', 'Bach', 'Chorale, BWV 101.6'))).toBeNull();
  });

  it('says what matched, and calls it exact only when composer, title and every number are the same', () => {
    const song = key('x', 'Franz Schubert', 'Ellens Gesang III, D.839');
    const catalogWork = key('schubert-ave-maria-d-839', 'Franz Schubert', 'Ave Maria, D. 839');
    expect(compareIdentity(song, catalogWork)).toEqual({
      of: 'schubert-ave-maria-d-839',
      matched: ['composer', 'catalog number D. 839'],
      exact: false,
    });
    expect(compareIdentity(song, key('y', 'franz schubert', 'Ellens Gesang III, D. 839'))).toEqual({
      of: 'y',
      matched: ['composer', 'catalog number D. 839', 'title'],
      exact: true,
    });
    // The same title with no number to tell them apart is a probable duplicate; another composer never.
    expect(compareIdentity(key('a', 'Hugo Wolf', 'Verborgenheit'), key('b', 'Hugo Wolf', 'Verborgenheit'))?.exact).toBe(
      true,
    );
    expect(
      compareIdentity(key('a', 'Hugo Wolf', 'Verborgenheit'), key('b', 'Robert Franz', 'Verborgenheit')),
    ).toBeNull();
    // An exact match is preferred over an earlier partial one.
    expect(findDuplicate(song, [catalogWork, key('z', 'Franz Schubert', 'Ellens Gesang III, D.839')])?.of).toBe('z');
  });

  it('reads movement numbers as files write them', () => {
    expect(['I', 'II', 'iv.', '4', 'No. 3', 'XII', 'x', 'allegro', ''].map(movementNumber)).toEqual([
      1,
      2,
      4,
      4,
      3,
      12,
      10,
      null,
      null,
    ]);
  });
});

describe('the OpenScore quartets: movements and Mozart’s “Op. 10”', () => {
  it('plans K. 464 (four files) as one work with four movements, and K. 387/421/428/458/465 as five works, none a duplicate', async () => {
    const source = await openScoreSource(QUARTETS, (await isOpenScoreFolder(QUARTETS))!);
    const mozart = source.works.filter((w) => w.files.some((f) => /K\.(387|421|428|458|464|465)/.test(f)));
    expect(mozart.map((w) => w.files.length).sort()).toEqual([1, 1, 1, 1, 1, 4]);
    const plans: Array<Extract<ItemPlan, { kind: 'submit' }>> = [];
    for (const w of mozart) {
      const facts = await w.load();
      if ('skip' in facts) throw new Error(facts.skip);
      const plan = planWork(facts, { asOfYear: 2026, stagedUrl: stagedFileUrl });
      if (plan.kind !== 'submit') throw new Error(plan.reason);
      plans.push(plan);
    }
    const k464 = plans.find((p) => p.files.length === 4)!;
    expect(k464.itemKey).toBe('sqset5108515');
    expect(k464.body.work?.movements).toEqual([
      { number: 1, title: 'Allegro' },
      { number: 2, title: 'Menuetto and Trio' },
      { number: 3, title: 'Andante' },
      { number: 4, title: 'Allegro' },
    ]);
    const scores = k464.body.assets.filter((a) => a.kind === 'mxl');
    expect(scores.map((a) => [a.movement, a.title])).toEqual([
      [1, 'Movement 1: Allegro (compressed MusicXML)'],
      [2, 'Movement 2: Menuetto and Trio (compressed MusicXML)'],
      [3, 'Movement 3: Andante (compressed MusicXML)'],
      [4, 'Movement 4: Allegro (compressed MusicXML)'],
    ]);
    expect(k464.body.target?.workSlug).toBe('wolfgang-amadeus-mozart-string-quartet-no-18-in-a-major-k-464-op-10-no-5');
    expect(k464.body.work?.catalogNumbers).toEqual([
      { catalog: 'K.', number: '464' },
      { catalog: 'Op.', number: '10 No. 5' },
    ]);
    // The six in any order: none is a probable duplicate of another.
    for (const p of plans)
      expect(
        findDuplicate(
          p.identity,
          plans.filter((q) => q !== p).map((q) => q.identity),
        ),
      ).toBeNull();
    expect(new Set(plans.map((p) => p.body.target?.workSlug)).size).toBe(6);
  });

  it('plans Emilie Mayer’s Op. 14 (four files) as one work, and every other quartet of the corpus as one file each', async () => {
    const source = await openScoreSource(QUARTETS, (await isOpenScoreFolder(QUARTETS))!);
    const grouped = source.works.filter((w) => w.files.length > 1);
    expect(grouped.map((w) => w.itemKey).sort()).toEqual(['sqset5108458', 'sqset5108515']);
    expect(source.works.length).toBe(122 - 6);
    const mayer = await grouped.find((w) => w.itemKey === 'sqset5108458')!.load();
    if ('skip' in mayer) throw new Error(mayer.skip);
    expect(mayer.title).toBe('String Quartet in G minor, Op.14');
    expect(mayer.movements.map((m) => m.title)).toEqual([
      'Allegro appassionato',
      'Scherzo. Allegro assai',
      'Adagio con molta espressione',
      'Finale. Allegro molto',
    ]);
  });
});
