import { describe, expect, it } from 'vitest';
import {
  combinedPublication,
  deriveWorkRights,
  heldFileReleased,
  lastChecked,
  notPublicDomainReason,
  territoryRights,
  worldwideRights,
  type PersonRightsFacts,
  type RightsFacts,
  type WorkPublication,
} from '../../src/domain/territory-rights.ts';

const facts = (over: Partial<RightsFacts>): RightsFacts => ({
  authors: [{ role: 'composer', name: 'A', died: 1828 }],
  firstPublished: 1830,
  asOfYear: 2026,
  ...over,
});

describe('per-territory rights from death years and publication', () => {
  it('an old, published work is public domain everywhere', () => {
    const r = territoryRights(facts({}));
    expect([r.US.status, r.EU.status, r.CA.status, r.composition]).toEqual([
      'public-domain',
      'public-domain',
      'public-domain',
      'public-domain',
    ]);
    expect(r.missingFacts).toEqual([]);
  });

  it('EU life + 70 ends on 31 December: died 1955 is free in 2026, died 1956 is not', () => {
    expect(territoryRights(facts({ authors: [{ role: 'composer', name: 'A', died: 1955 }] })).EU.status).toBe(
      'public-domain',
    );
    const r = territoryRights(facts({ authors: [{ role: 'composer', name: 'A', died: 1956 }] }));
    expect(r.EU).toMatchObject({ status: 'not-public-domain', freeFromYear: 2027 });
    expect(r.composition).toBe('not-public-domain');
  });

  it('Canada keeps life + 50 for authors who died before 1972 and life + 70 from 1972', () => {
    expect(territoryRights(facts({ authors: [{ role: 'composer', name: 'A', died: 1971 }] })).CA.status).toBe(
      'public-domain',
    );
    expect(territoryRights(facts({ authors: [{ role: 'composer', name: 'A', died: 1972 }] })).CA).toMatchObject({
      status: 'not-public-domain',
      freeFromYear: 2043,
    });
  });

  it('US: 95 years from publication; without the publication year it is unknown and says so', () => {
    expect(territoryRights(facts({ firstPublished: 1930 })).US.status).toBe('public-domain');
    expect(territoryRights(facts({ firstPublished: 1931 })).US).toMatchObject({
      status: 'not-public-domain',
      freeFromYear: 2027,
    });
    const r = territoryRights(facts({ firstPublished: null }));
    expect(r.US).toMatchObject({ status: 'unknown', missingFacts: ['the first publication year'] });
    expect(r.composition).toBe('unknown');
    expect(territoryRights(facts({ firstPublished: 'unpublished' })).US.status).toBe('public-domain');
  });

  it('a song counts its lyricist: an unknown death year is named, a later one decides', () => {
    const unknown = territoryRights(
      facts({
        authors: [
          { role: 'composer', name: 'A', died: 1828 },
          { role: 'lyricist', name: 'Wilhelm Müller', died: null },
        ],
      }),
    );
    expect(unknown.EU).toMatchObject({
      status: 'unknown',
      missingFacts: ["the lyricist's death year (Wilhelm Müller)"],
    });
    const unnamed = territoryRights(
      facts({
        authors: [
          { role: 'composer', name: 'A', died: 1828 },
          { role: 'lyricist', name: null, died: null },
        ],
      }),
    );
    expect(unnamed.EU.missingFacts).toEqual(['the lyricist (not named in the source)']);
    const later = territoryRights(
      facts({
        authors: [
          { role: 'composer', name: 'A', died: 1828 },
          { role: 'lyricist', name: 'B', died: 1960 },
        ],
      }),
    );
    expect(later.EU).toMatchObject({ status: 'not-public-domain', freeFromYear: 2031 });
  });

  it('a composer whose term has not run out decides it even when the lyricist is unknown', () => {
    const f = facts({
      asOfYear: 2004,
      firstPublished: null,
      authors: [
        { role: 'composer', name: 'Jane Bingham Abbott', died: 1934 },
        { role: 'lyricist', name: null, died: null },
      ],
    });
    const r = territoryRights(f);
    expect(r.EU).toMatchObject({ status: 'not-public-domain', freeFromYear: 2005 });
    expect(notPublicDomainReason(r, f)).toBe('composer died in 1934: not public domain in the EU until 2005');
    // The same facts in 2026: free in the EU and Canada, the US still needs the publication year.
    const now = territoryRights({ ...f, asOfYear: 2026 });
    expect(notPublicDomainReason(now, { ...f, asOfYear: 2026 })).toBeNull();
    expect(now.composition).toBe('unknown');
  });

  it('a living author is not public domain anywhere the term counts from death', () => {
    const r = territoryRights(facts({ authors: [{ role: 'composer', name: 'A', died: 'living' }] }));
    expect([r.EU.status, r.CA.status]).toEqual(['not-public-domain', 'not-public-domain']);
  });
});

describe('first publication as an upper bound', () => {
  it('"no later than" a year more than 95 years ago is enough for the US; a later bound is not', () => {
    expect(territoryRights(facts({ firstPublished: { noLaterThan: 1900 } })).US).toMatchObject({
      status: 'public-domain',
      freeFromYear: 1996,
    });
    const late = territoryRights(facts({ firstPublished: { noLaterThan: 1940 } }));
    expect(late.US.status).toBe('unknown');
    expect(late.US.missingFacts).toEqual(['the exact first publication year (known: no later than 1940)']);
  });

  it("the composer's bound for every work tightens the work's own bound, and never overrides an exact year", () => {
    const bound = { year: 1897, evidence: null };
    expect(combinedPublication(null, bound)).toMatchObject({ bound: 'no-later-than', year: 1897, from: 'composer' });
    expect(combinedPublication({ bound: 'no-later-than', year: 1910, evidence: null }, bound)).toMatchObject({
      year: 1897,
      from: 'composer',
    });
    expect(combinedPublication({ bound: 'no-later-than', year: 1890, evidence: null }, bound)).toMatchObject({
      year: 1890,
      from: 'work',
    });
    expect(combinedPublication({ bound: 'exact', year: 1826, evidence: null }, bound)).toMatchObject({
      year: 1826,
      from: 'work',
    });
  });
});

const person = (name: string, died: string, extra: Partial<PersonRightsFacts> = {}): PersonRightsFacts => ({
  name,
  died,
  diedEvidence: null,
  worksPublishedBy: null,
  ...extra,
});

describe("a work's rights derived from its facts", () => {
  const song = (lyricistDied: string, publication: WorkPublication | null) =>
    deriveWorkRights({
      composer: person('Hugo Wolf', '1903'),
      lyricist: person('Joseph von Eichendorff', lyricistDied, {
        diedEvidence: {
          evidenceUrl: 'https://example.org/e',
          acceptedBy: 'editor-key',
          acceptedAtUtc: '2026-12-07T10:00:00Z',
        },
      }),
      hasLyrics: true,
      publication,
      decision: null,
      asOfYear: 2026,
    });

  it("a song missing its lyricist's death and its publication is held, and says which facts are missing", () => {
    const r = song('unknown', null);
    expect(r.compositionStatus).toBe('unknown');
    expect(r.compositionCleared).toBe(false);
    expect(r.territories.missingFacts).toEqual([
      'the first publication year',
      "the lyricist's death year (Joseph von Eichendorff)",
    ]);
    expect(r.summary).toMatch(/held for rights review.*Missing: the first publication year; the lyricist's death year/);
  });

  it('the facts decide: public domain everywhere, with the deciding facts and who accepted them', () => {
    const r = song('1857', { bound: 'no-later-than', year: 1900, evidence: null });
    expect([r.territories.US.status, r.territories.EU.status, r.territories.CA.status]).toEqual([
      'public-domain',
      'public-domain',
      'public-domain',
    ]);
    expect(r.compositionStatus).toBe('public-domain');
    expect(r.compositionCleared).toBe(true);
    expect(r.decidedBy.map((f) => f.fact)).toEqual([
      'Hugo Wolf (composer) died in 1903',
      'Joseph von Eichendorff (lyricist) died in 1857',
      'first published no later than 1900',
    ]);
    expect(r.decidedBy[1]).toMatchObject({ acceptedBy: 'editor-key', acceptedAtUtc: '2026-12-07T10:00:00Z' });
    expect(lastChecked('2026-01-01T00:00:00Z', r.decidedBy)).toBe('2026-12-07T10:00:00Z');
    expect(r.worldwide.status).toBe('public-domain');
  });

  it('a lyricist who died in 1990 keeps the song protected in the EU, and the notes say why', () => {
    const r = song('1990', { bound: 'no-later-than', year: 1900, evidence: null });
    expect(r.territories.EU).toMatchObject({ status: 'not-public-domain', freeFromYear: 2061 });
    expect(r.compositionCleared).toBe(false);
    expect(r.compositionNote).toMatch(/Not public domain in the EU and Canada as of 2026\..*lyricist died in 1990/);
    expect(r.worldwide.status).toBe('not-public-domain');
    expect(r.worldwide.protectedIn.map((p) => p.freeFromYear)).toEqual([2041, 2061, 2091]);
  });

  it('worldwide: free only when the last author died more than 100 years ago and the US term has run', () => {
    const at = (died: number, asOfYear: number) =>
      worldwideRights({ authors: [{ role: 'composer', name: 'A', died }], firstPublished: 1850, asOfYear });
    expect(at(1925, 2026)).toMatchObject({ status: 'public-domain', freeEverywhereFromYear: 2026 });
    const mexico = at(1926, 2026);
    expect(mexico).toMatchObject({ status: 'not-public-domain', freeEverywhereFromYear: 2027 });
    expect(mexico.protectedIn).toEqual([
      { where: 'Mexico (the longest term in force): life + 100', freeFromYear: 2027 },
    ]);
    expect(at(1800, 2026).note).toMatch(/^Public domain worldwide/);
    expect(
      worldwideRights({ authors: [{ role: 'composer', name: 'A', died: 1800 }], firstPublished: null, asOfYear: 2026 })
        .status,
    ).toBe('unknown');
  });

  it('documented permission stands; "not applicable" never clears', () => {
    const base = {
      composer: person('A', 'unknown'),
      lyricist: null,
      hasLyrics: false,
      publication: null,
      asOfYear: 2026,
    };
    expect(deriveWorkRights({ ...base, decision: 'permission-documented' })).toMatchObject({
      compositionStatus: 'permission-documented',
      compositionCleared: true,
    });
    expect(deriveWorkRights({ ...base, decision: 'not-applicable' }).compositionCleared).toBe(false);
  });

  it('a held file is released only with the composition cleared, the edition cleared and open terms', () => {
    const cleared = { compositionCleared: true };
    expect(heldFileReleased(cleared, true, { license: 'CC0-1.0', rightsStatus: 'public-domain' })).toBe(true);
    expect(heldFileReleased({ compositionCleared: false }, true, { license: 'CC0-1.0', rightsStatus: 'x' })).toBe(
      false,
    );
    expect(heldFileReleased(cleared, false, { license: 'CC0-1.0', rightsStatus: 'public-domain' })).toBe(false);
    expect(heldFileReleased(cleared, true, { license: 'All rights reserved', rightsStatus: 'licensed' })).toBe(false);
    expect(heldFileReleased(cleared, true, { license: null, rightsStatus: 'public-domain' })).toBe(true);
  });
});
