/**
 * The one-time move to people as records (src/domain/people-migration.ts): an embedded composer
 * and lyricist become person records with the evidence the work cited; the stored territory and
 * composition statuses go (derived now); a first publication the record stated becomes a fact;
 * a score held only for the composition becomes a held-for-rights file; a 1970 check date takes
 * the time the work landed.
 */
import { describe, expect, it } from 'vitest';
import { migrateWork } from '../../src/domain/people-migration.ts';
import { resolveWork } from '../../src/domain/people.ts';
import { validate } from '../../src/domain/validation.ts';
import { WorkFile } from '../../src/schemas/work.ts';
import type { PersonContent } from '../../src/schemas/person.ts';

/** A work as an import of the old format wrote it (embedded people, stored conclusions, 1970). */
const imported = () => ({
  slug: 'wolf-song',
  title: 'A song',
  originalTitle: null,
  aliases: [],
  composer: {
    name: 'Hugo Wolf',
    sortName: 'Wolf, Hugo',
    born: '1860',
    died: '1903',
    aliases: [],
    evidenceUrls: ['https://www.wikidata.org/wiki/Q215747'],
  },
  lyricist: { name: 'Joseph von Eichendorff', born: 'unknown', died: 'unknown', wikidataId: null },
  period: '',
  genre: 'Lied',
  year: 'unknown',
  workNumber: null,
  catalogNumbers: [],
  summary: 'A song.',
  key: null,
  instrumentation: 'voice and piano',
  instruments: ['voice', 'piano'],
  rightsNote: 'Rights as declared by the contributor.',
  rights: {
    composition: { status: 'unknown', note: 'Not decided.' },
    edition: { status: 'public-domain', note: 'CC0 transcription.' },
    recording: { status: 'not-applicable', note: 'None.' },
    territories: {
      US: { status: 'unknown', note: 'Unknown.', missingFacts: ['the first publication year'] },
      EU: { status: 'unknown', note: 'Unknown.', missingFacts: ["the lyricist's death year (Joseph von Eichendorff)"] },
      CA: { status: 'unknown', note: 'Unknown.' },
    },
    license: 'CC0-1.0',
    attribution: null,
    checkedAtUtc: '1970-01-01T00:00:00Z',
    evidenceUrls: ['https://musescore.com/openscore-lieder-corpus/scores/1'],
  },
  sourceAssets: [
    {
      id: 1,
      kind: 'mxl',
      title: 'Score',
      blob: 'a'.repeat(64),
      byteLength: 10,
      sourcePageUrl: 'https://musescore.com/openscore-lieder-corpus/scores/1',
      mediaType: 'application/vnd.recordare.musicxml',
      rightsStatus: 'public-domain',
      license: 'CC0-1.0',
      attribution: null,
      reviewState: 'rights-review-required',
      access: 'admin-only',
      technicalChecks: 'Archive technical check passed (automated, not human review): fine',
    },
  ],
  arrangements: [],
  comments: [],
  videos: [],
});

describe('moving a work to people as records', () => {
  it('names people by slug, drops stored conclusions, keeps the facts with their evidence, and fixes 1970', () => {
    const people = new Map<string, PersonContent>();
    const { after, changed } = migrateWork(imported(), people, '2026-11-20T10:00:00Z');
    expect(changed).toBe(true);
    expect(after.composer).toBe('wolf-hugo');
    expect(after.lyricist).toBe('eichendorff-joseph-von');
    expect(people.get('wolf-hugo')).toMatchObject({
      name: 'Hugo Wolf',
      born: '1860',
      died: '1903',
      evidence: [{ url: 'https://www.wikidata.org/wiki/Q215747' }],
    });
    expect(people.get('eichendorff-joseph-von')).toMatchObject({ born: 'unknown', died: 'unknown', evidence: [] });
    const rights = after.rights as Record<string, unknown>;
    expect(rights).not.toHaveProperty('territories');
    expect(rights).not.toHaveProperty('composition');
    expect(rights.checkedAtUtc).toBe('2026-11-20T10:00:00Z');
    expect((after.sourceAssets as Array<Record<string, unknown>>)[0]).toMatchObject({
      heldForRights: true,
      reviewState: 'technical-pass',
      access: 'public',
    });
    // It loads, and the derived rights say what the stored ones did.
    expect(validate(WorkFile, after, { useDefaults: true })).toEqual([]);
    const resolved = resolveWork(after as WorkFile, people, 2026);
    expect(resolved.problems).toEqual([]);
    expect(resolved.content!.rights.territories.EU.missingFacts).toEqual([
      "the lyricist's death year (Joseph von Eichendorff)",
    ]);
    expect(resolved.content!.sourceAssets[0]).toMatchObject({
      reviewState: 'rights-review-required',
      access: 'admin-only',
    });
  });

  it('a second work of the same person finds their record; a stated first publication becomes a fact', () => {
    const people = new Map<string, PersonContent>();
    migrateWork(imported(), people);
    const second = imported();
    second.slug = 'wolf-song-2';
    second.rights.territories.US = {
      status: 'public-domain',
      note: 'First published in 1889. Works published before 1931 are in the public domain there.',
      missingFacts: [],
    };
    const { after, notes } = migrateWork(second, people);
    expect(people.size).toBe(2);
    expect(after.composer).toBe('wolf-hugo');
    expect(after.firstPublished).toEqual({
      bound: 'exact',
      year: 1889,
      evidence: [
        {
          url: 'https://musescore.com/openscore-lieder-corpus/scores/1',
          note: expect.stringMatching(/^The record's US note said: "First published in 1889/),
        },
      ],
    });
    // Without a time the work landed, the 1970 date is named for an editor, not made up.
    expect(notes).toEqual([expect.stringMatching(/its rights check date is 1970/)]);
  });

  it('leaves a work already in the new format as it is', () => {
    const people = new Map<string, PersonContent>();
    const { after } = migrateWork(imported(), people);
    expect(migrateWork(after, people).changed).toBe(false);
  });
});
