/**
 * A correction report that records a rights fact (a person's birth or death, Wikidata id, a
 * composer's bound for every work, a work's first publication): the fact as it reads on main and
 * as the report would leave it, and the works it reaches with their derived rights before and after
 * (src/domain/people.ts, `factImpact`). The desk shows it on the report's page. A person's works are
 * found in the served build's person record (GET /api/v1/people/{slug}), not by reading every work.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { settleCheckout } from '../site/content-repo.ts';
import { applyCorrection } from '../../src/domain/review/correction.ts';
import { acceptanceOf } from '../../src/domain/review/proposal-input.ts';
import { currentRightsYear } from '../../src/domain/catalog.ts';
import { factImpact, type FactImpactRow } from '../../src/domain/people.ts';
import { parseFrontMatter, splitWorkFile } from '../../src/domain/work-file.ts';
import { validate } from '../../src/domain/validation.ts';
import { WorkFile } from '../../src/schemas/work.ts';
import type { PersonContent } from '../../src/schemas/person.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';
import type { ReviewRecord } from '../../src/schemas/review.ts';

/** At most this many works are shown (a person named by more: the rest is counted). */
const MAX_WORKS = 200;

export interface FactImpactView {
  /** What the report changes, e.g. "people/eichendorff-joseph-von.json: /died". */
  pointer: string;
  oldValue: string | null;
  newValue: string | null;
  evidenceUrl: string | null;
  /** The person whose record changes (every work naming them follows), or null for a work's own fact. */
  person: string | null;
  asOfYear: number;
  works: FactImpactRow[];
  /** Works naming the person beyond those shown. */
  more: number;
  /** Why the impact could not be worked out (the report refers to nothing on main, or is stale). */
  unavailable: string | null;
}

const FACT_FIELDS = /^(?:(?:composer|lyricist)\.)?(?:born|died|wikidataId|worksPublishedBy|firstPublished)$/;

/** Whether a report is about a rights fact (so its page shows the impact). */
export function isFactReport(report: StoredCorrectionReport['report']): boolean {
  return (
    (report.targetType === 'work' || report.targetType === 'composer' || report.targetType === 'lyricist') &&
    FACT_FIELDS.test(report.fieldName)
  );
}

export async function factImpactOf(
  ctx: AppContext,
  record: StoredCorrectionReport,
  review: ReviewRecord | null,
): Promise<FactImpactView | null> {
  const r = record.report;
  if (!isFactReport(r) || !r.workSlug) return null;
  const repo = ctx.config.contentRepo;
  await settleCheckout(repo);
  const read = (rel: string): string | null => {
    const abs = path.join(repo, rel);
    return existsSync(abs) ? readFileSync(abs, 'utf8') : null;
  };
  const person = (slug: string): PersonContent | null => {
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) return null;
    const text = read(`people/${slug}.json`);
    try {
      return text === null ? null : (JSON.parse(text) as PersonContent);
    } catch {
      return null;
    }
  };
  const workFile = (slug: string): WorkFile | null => {
    const text = read(`works/${slug}/index.md`);
    if (text === null) return null;
    try {
      const data = parseFrontMatter(splitWorkFile(text).frontMatter);
      return validate(WorkFile, data, { useDefaults: true }).length === 0 ? (data as WorkFile) : null;
    } catch {
      return null;
    }
  };
  const asOfYear = currentRightsYear();
  const empty = (unavailable: string): FactImpactView => ({
    pointer: r.fieldName,
    oldValue: null,
    newValue: r.proposedValue,
    evidenceUrl: r.evidenceUrl ?? null,
    person: null,
    asOfYear,
    works: [],
    more: 0,
    unavailable,
  });
  const work = workFile(r.workSlug);
  if (!work) return empty(`The work "${r.workSlug}" is not on main (or does not pass the lint).`);
  let change;
  try {
    change = applyCorrection(work as unknown as Record<string, unknown>, r, {
      person,
      accepted: review ? acceptanceOf({ actions: review.actions, acceptedBy: review.acceptedBy }) : null,
      trackingCode: record.trackingCode,
    });
  } catch (err) {
    return empty((err as Error).message);
  }
  const peopleBefore = new Map<string, PersonContent>();
  const peopleAfter = new Map<string, PersonContent>();
  const addPeople = (f: WorkFile) => {
    for (const slug of [f.composer, f.lyricist]) {
      if (!slug || peopleBefore.has(slug)) continue;
      const p = person(slug);
      if (p) {
        peopleBefore.set(slug, p);
        peopleAfter.set(slug, p);
      }
    }
  };
  let works: Array<{ file: WorkFile; title: string }> = [];
  let more = 0;
  const workAfter = new Map<string, WorkFile>();
  if (change.person) {
    // Every work naming the person, as the served build lists them.
    const listed = ctx.handle.current.view.locate(`api/v1/people/${change.person.slug}/index.json`);
    const slugs: string[] = [];
    if (listed) {
      try {
        const data = JSON.parse(readFileSync(listed, 'utf8')) as { data: { works: Array<{ slug: string }> } };
        slugs.push(...data.data.works.map((w) => w.slug));
      } catch {
        // A record that cannot be read: the reported work alone.
      }
    }
    if (!slugs.includes(r.workSlug)) slugs.unshift(r.workSlug);
    more = Math.max(0, slugs.length - MAX_WORKS);
    for (const slug of slugs.slice(0, MAX_WORKS)) {
      const f = workFile(slug);
      if (f) works.push({ file: f, title: f.title });
    }
    for (const w of works) addPeople(w.file);
    peopleAfter.set(change.person.slug, change.person.after);
  } else {
    works = [{ file: work, title: work.title }];
    addPeople(work);
    workAfter.set(work.slug, change.after as unknown as WorkFile);
  }
  return {
    pointer: change.pointer,
    oldValue: change.oldValue === null || change.oldValue === undefined ? null : String(change.oldValue),
    newValue: change.newValue,
    evidenceUrl: r.evidenceUrl ?? null,
    person: change.person?.slug ?? null,
    asOfYear,
    works: factImpact(works, peopleBefore, peopleAfter, workAfter, asOfYear),
    more,
    unavailable: null,
  };
}
