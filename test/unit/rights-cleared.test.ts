/**
 * One rule for when a rights layer is cleared (src/domain/rights-cleared.ts), and every user of it
 * agrees: resolve's composition check and layer columns, the state a contributed file lands in,
 * and library eligibility. The `not-applicable` composition is not cleared anywhere (a review
 * proposal used to count it as cleared while resolve did not).
 */
import { describe, expect, it } from 'vitest';
import {
  CLEARABLE_COMPOSITION_STATUSES,
  compositionCleared,
  editionState,
  recordingState,
} from '../../src/domain/rights-cleared.ts';
import { arrangementReadiness, compositionCheck } from '../../src/domain/resolve/catalog.ts';
import { heldForRights, landedState } from '../../src/domain/review/proposal.ts';
import { deriveWorkRights, heldFileReleased } from '../../src/domain/territory-rights.ts';
import { REUSABLE_EDITION_STATUSES, REUSABLE_RECORDING_STATUSES } from '../../src/domain/library/eligibility.ts';
import type { ArrangementRecord, WorkRecord } from '../../src/schemas/work.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';

const PD = ['public-domain', 'public-domain', 'public-domain'];
const layer = (status: string) => ({ status, note: 'n' });
const record = (composition: string, territories = PD) =>
  ({
    rights: {
      composition: layer(composition),
      edition: layer('public-domain'),
      recording: layer('public-domain'),
      territories: { US: layer(territories[0]!), EU: layer(territories[1]!), CA: layer(territories[2]!) },
    },
  }) as unknown as WorkRecord;

describe('the composition layer', () => {
  it.each([
    ['permission-documented', PD, true],
    ['permission-documented', ['unknown', 'unknown', 'unknown'], true],
    ['public-domain', PD, true],
    ['public-domain', ['public-domain', 'unclear', 'public-domain'], false],
    ['not-applicable', PD, false],
    ['unknown', PD, false],
  ])('%s with territories %j: cleared %s, and resolve agrees', (status, territories, cleared) => {
    expect(compositionCleared(status, territories)).toBe(cleared);
    expect(compositionCheck(record(status, territories)).passes).toBe(cleared);
  });

  it('a contributed file with open terms lands held for rights review: the facts or documented permission release it, "not-applicable" never does', () => {
    const submission = {
      rights: { compositionStatus: 'not-applicable', license: null },
      assets: [{ rightsStatus: 'public-domain' }],
    } as unknown as MusicContributionInput;
    // Held, with its own technical state: the build publishes it only once the composition is cleared.
    expect(heldForRights(submission, submission.assets[0]!)).toBe(true);
    expect(landedState(submission, 0, null)).toBe('pending');
    const derive = (decision: 'not-applicable' | 'permission-documented' | null) =>
      deriveWorkRights({
        composer: { name: 'A', died: 'unknown', diedEvidence: null, worksPublishedBy: null },
        lyricist: null,
        hasLyrics: false,
        publication: null,
        decision,
        asOfYear: 2026,
      });
    const file = { license: null, rightsStatus: 'public-domain' };
    expect(heldFileReleased(derive('not-applicable'), true, file)).toBe(false);
    expect(heldFileReleased(derive(null), true, file)).toBe(false);
    expect(heldFileReleased(derive('permission-documented'), true, file)).toBe(true);
    expect(CLEARABLE_COMPOSITION_STATUSES).toEqual(['permission-documented', 'public-domain']);
    // A file whose own terms are not open is not held this way: it lands in rights review unless the declaration clears it.
    const closed = {
      rights: { compositionStatus: 'not-applicable', license: 'All rights reserved' },
      assets: [{ rightsStatus: 'licensed', license: 'All rights reserved' }],
    } as unknown as MusicContributionInput;
    expect(heldForRights(closed, closed.assets[0]!)).toBe(false);
    expect(landedState(closed, 0, null)).toBe('rights-review-required');
    for (const status of ['public-domain', 'permission-documented']) {
      const cleared = {
        ...closed,
        rights: { ...closed.rights, compositionStatus: status },
      } as unknown as MusicContributionInput;
      expect(landedState(cleared, 0, null)).not.toBe('rights-review-required');
    }
  });
});

describe('edition and recording layers', () => {
  it('public domain is cleared; own or licensed layers need a license; not-applicable does not block', () => {
    expect(editionState('public-domain', null)).toBe('cleared');
    expect(editionState('original-contribution', null)).toBe('not-cleared');
    expect(editionState('original-contribution', 'CC0-1.0')).toBe('cleared');
    expect(editionState('licensed', 'CC-BY-4.0')).toBe('cleared');
    expect(editionState('not-applicable', null)).toBe('not-applicable');
    expect(editionState('unknown', 'CC0-1.0')).toBe('not-cleared');
    expect(recordingState('original-generated-recording', 'CC0-1.0')).toBe('cleared');
    expect(recordingState('original-human-recording', '')).toBe('not-cleared');
  });

  it('resolve readiness follows the same rule', () => {
    const arrangement = (edition: string, recording: string, license: string | null) =>
      ({
        reviewState: 'human-listening-approved',
        rights: { edition: layer(edition), recording: layer(recording), license, attribution: null },
      }) as unknown as ArrangementRecord;
    expect(
      arrangementReadiness(true, arrangement('original-contribution', 'not-applicable', 'CC0-1.0')).staticReady,
    ).toBe(true);
    expect(arrangementReadiness(true, arrangement('original-contribution', 'not-applicable', null)).staticReady).toBe(
      false,
    );
    expect(arrangementReadiness(true, arrangement('unknown', 'public-domain', 'CC0-1.0')).staticReady).toBe(false);
  });

  it('library publication takes the cleared layers except a third-party license', () => {
    expect(REUSABLE_EDITION_STATUSES).toEqual(['public-domain', 'original-contribution', 'not-applicable']);
    expect(REUSABLE_RECORDING_STATUSES).toEqual([
      'public-domain',
      'original-generated-recording',
      'original-human-recording',
      'not-applicable',
    ]);
  });
});
