import { describe, expect, it } from 'vitest';
import { notPublicDomainReason, territoryRights, type RightsFacts } from '../../src/domain/territory-rights.ts';

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
