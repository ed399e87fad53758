/**
 * The HTML "Reuse at a glance" counts recordings with recordingClearedForReuse, the rule resolve
 * applies to a reuse answer. Ode to Joy has a listening-approved, public MP3 in an arrangement
 * under rights review: it is not cleared, though the file's own state says approved.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { buildResolveCatalog, recordingClearedForReuse, reuseSummary } from '../../src/domain/resolve/catalog.ts';
import { resolveMusic } from '../../src/domain/resolve/resolve.ts';
import type { MusicRole } from '../../src/schemas/common.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { expectEach } from '../helpers/expect-each.ts';
import { catalogRecords } from '../helpers/resolve-fixture.ts';

const BASE = 'https://reuse.example.test';
const { records: SAMPLE, profiles, instruments } = catalogRecords(BASE);
const catalog = buildResolveCatalog(SAMPLE, profiles, instruments);
const ODE = 'beethoven-symphony-9-ode-to-joy';

/** Resolve, for the work `workSlug`, the role `role` with an MP3. */
const resolveMp3 = (workSlug: string, role: MusicRole) =>
  resolveMusic(
    catalog,
    {
      channel: { channelKey: 'reuse-summary', intendedRole: role },
      requirements: { requiredFormats: ['mp3'] },
      workSlug,
    },
    { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' },
  );

describe('recordings cleared for reuse (one rule for the page and resolve)', () => {
  it('does not count an approved MP3 of an arrangement under rights review (Ode to Joy)', () => {
    const work = SAMPLE.find((w) => w.slug === ODE)!;
    const verdicts = work.arrangements.flatMap((a) =>
      a.assets
        .filter((x) => x.kind === 'mp3')
        .map((x) => ({
          arrangement: a.reviewState,
          asset: x.reviewState,
          cleared: recordingClearedForReuse(work, a, x),
        })),
    );
    const underReview = verdicts.filter((v) => v.arrangement === 'rights-review-required');
    expect(underReview.length).toBeGreaterThan(0);
    expect(underReview.some((v) => v.asset === 'human-listening-approved')).toBe(true);
    expectEach(underReview, (v) => !v.cleared);
    expect(verdicts.filter((v) => v.cleared)).toHaveLength(1);
  });

  it('the built Ode to Joy page counts 1 of 2 recordings as cleared', () => {
    const html = readFileSync(path.join(inject('sampleBuildDir'), 'client', 'works', ODE, 'index.html'), 'utf8');
    expect(html).toMatch(/Recordings cleared for reuse \([^)]*\): <strong>1 of 2<\/strong>/);
  });

  it('agrees with resolve: an MP3 resolve offers for reuse is cleared, and every cleared MP3 is offered when its work is asked for', () => {
    for (const work of SAMPLE) {
      for (const a of work.arrangements) {
        const res = resolveMp3(work.slug, a.intendedRole);
        const ready = res.candidates.filter((c) => c.ready && c.workSlug === work.slug).map((c) => c.arrangementId);
        const cleared = a.assets.some((x) => x.kind === 'mp3' && recordingClearedForReuse(work, a, x));
        if (ready.includes(a.id)) expect(cleared, `${work.slug}/${a.id}`).toBe(true);
        if (!cleared) expect(ready, `${work.slug}/${a.id}`).not.toContain(a.id);
      }
    }
  });
});

describe('one readiness function on all three renderings', () => {
  it('the JSON record, the Markdown record and the HTML page of every sample work show the count reuseSummary computes', () => {
    const build = inject('sampleBuildDir');
    for (const work of SAMPLE) {
      const expected = reuseSummary(work);
      const json = JSON.parse(
        readFileSync(path.join(build, 'client', 'api', 'v1', 'works', work.slug, 'index.json'), 'utf8'),
      );
      const record = (json.data ?? json) as WorkRecord;
      expect(record.reuse, work.slug).toMatchObject(expected);
      const md = readFileSync(path.join(build, 'client', 'api', 'v1', 'works', work.slug, 'index.md'), 'utf8');
      expect(md, work.slug).toContain(
        `- Recordings cleared for reuse: ${expected.recordingsCleared} of ${expected.recordings} (as resolve requires)`,
      );
      const html = readFileSync(path.join(build, 'client', 'works', work.slug, 'index.html'), 'utf8');
      expect(html, work.slug).toMatch(
        new RegExp(
          `Recordings cleared for reuse \\([^)]*\\): <strong>${expected.recordingsCleared} of ${expected.recordings}</strong>`,
        ),
      );
    }
    // Ode to Joy: 1 of 2 on all three.
    expect(reuseSummary(SAMPLE.find((w) => w.slug === ODE)!)).toEqual({ recordings: 2, recordingsCleared: 1 });
  });

  it("is the rule resolve uses: a work counts a cleared recording exactly when resolve, asked for that arrangement's MP3, offers it ready", () => {
    for (const work of SAMPLE) {
      for (const a of work.arrangements) {
        const mp3s = a.assets.filter((x) => x.kind === 'mp3');
        if (mp3s.length === 0) continue;
        const res = resolveMp3(work.slug, a.intendedRole);
        const ready = res.candidates.some((c) => c.ready && c.arrangementId === a.id);
        expect(
          mp3s.some((x) => recordingClearedForReuse(work, a, x)),
          `${work.slug}/${a.id}`,
        ).toBe(ready);
      }
    }
  });
});
