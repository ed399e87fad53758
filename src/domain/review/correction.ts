/**
 * Correction reports applied to one field (pure). Only a whitelist of editable fields can be
 * changed this way; each has a type, a coercion from the reported text and a check. The content
 * lint still runs on the result before anything is committed.
 *
 * A report about a person the work names (`targetType` "composer" or "lyricist", or the dotted
 * "composer.died" of a work) changes that person's record (people/<slug>.json), so every work that
 * names them; a report about the work's `firstPublished` changes the work's publication fact. Both
 * are facts: a value other than "unknown" needs `evidenceUrl` (a fact without evidence is refused),
 * and the fact is recorded with it, with who accepted it and when (docs/rights.md).
 */
import type { CorrectionReportInput } from '../../schemas/correction.ts';
import type { PersonContent } from '../../schemas/person.ts';
import type { PersonFactField } from '../../schemas/common.ts';
import { isRealDate } from '../catalog.ts';
import type { Evidence } from '../people.ts';
import { ProposalError, type Data } from './proposal.ts';

interface FieldRule {
  nullable: boolean;
  min: number;
  max: number;
  check?: (v: string) => string | null;
  /** A fact: a value (other than "unknown" or null) needs an evidenceUrl. */
  fact?: boolean;
}

const text = (max: number, min = 0, nullable = false): FieldRule => ({ nullable, min, max });
const date: FieldRule = {
  nullable: false,
  min: 4,
  max: 10,
  check: (v) =>
    /^[0-9]{4}(-[0-9]{2}-[0-9]{2})?$/.test(v) && isRealDate(v)
      ? null
      : 'must be a real date YYYY-MM-DD, or a year YYYY',
};
/** A life date of a person: a real date, a year, or "unknown". */
const lifeDate: FieldRule = {
  nullable: false,
  min: 4,
  max: 10,
  fact: true,
  check: (v) =>
    v === 'unknown' || (/^[0-9]{4}(-[0-9]{2}-[0-9]{2})?$/.test(v) && isRealDate(v))
      ? null
      : 'must be a real date YYYY-MM-DD, a year YYYY, or "unknown"',
};
const https: FieldRule = {
  nullable: false,
  min: 9,
  max: 1000,
  check: (v) => (/^https:\/\/[^\s]+$/.test(v) && URL.canParse(v) ? null : 'must be an absolute https:// URL'),
};
const wikidata: FieldRule = {
  nullable: true,
  min: 2,
  max: 13,
  check: (v) => (/^Q[1-9][0-9]{0,11}$/.test(v) ? null : 'must be a Wikidata item id, e.g. "Q6101"'),
};
const year: FieldRule = {
  nullable: false,
  min: 4,
  max: 4,
  fact: true,
  check: (v) => (/^[0-9]{4}$/.test(v) ? null : 'must be a year YYYY'),
};
/** First publication: "1826", "no later than 1900", "unpublished", or "unknown" (removes it). */
const publication: FieldRule = {
  nullable: false,
  min: 4,
  max: 40,
  fact: true,
  check: (v) =>
    parsePublication(v) !== undefined
      ? null
      : 'must be a year "1826", "no later than 1900", "unpublished" or "unknown"',
};

/** "1826" / "no later than 1900" / "unpublished" as a publication fact; null for "unknown"; undefined when it is none of them. */
export function parsePublication(
  v: string,
): { bound: 'exact' | 'no-later-than' | 'unpublished'; year: number | null } | null | undefined {
  const t = v.trim().toLowerCase();
  if (t === 'unknown') return null;
  if (t === 'unpublished') return { bound: 'unpublished', year: null };
  if (/^[0-9]{4}$/.test(t)) return { bound: 'exact', year: Number(t) };
  const m = /^(?:no later than|by|not after)\s+([0-9]{4})$/.exec(t);
  return m ? { bound: 'no-later-than', year: Number(m[1]) } : undefined;
}

/** Work fields (targetType "work"), by dotted field name. */
export const WORK_FIELDS: Record<string, FieldRule> = {
  title: text(200, 1),
  originalTitle: text(200, 0, true),
  period: text(80),
  genre: text(80),
  year: text(40),
  workNumber: text(80, 0, true),
  summary: text(300),
  key: text(40, 0, true),
  instrumentation: text(220),
  rightsNote: text(2000, 1),
  firstPublished: publication,
  'composer.name': text(160, 1),
  'composer.sortName': text(160, 1),
  'composer.born': lifeDate,
  'composer.died': lifeDate,
  'composer.wikidataId': wikidata,
  'composer.worksPublishedBy': year,
  'lyricist.name': text(160, 1),
  'lyricist.sortName': text(160, 1),
  'lyricist.born': lifeDate,
  'lyricist.died': lifeDate,
  'lyricist.wikidataId': wikidata,
};

/** The person fields a report can change (targetType "composer" or "lyricist"). */
export const PERSON_FIELDS: Record<string, FieldRule> = {
  name: text(160, 1),
  sortName: text(160, 1),
  born: lifeDate,
  died: lifeDate,
  wikidataId: wikidata,
  worksPublishedBy: year,
};

/** Asset fields (targetType "source-asset", "asset", "arrangement-asset", "arrangement-recording", "arrangement-score"; targetId = asset id). */
export const ASSET_FIELDS: Record<string, FieldRule> = {
  title: text(180, 1),
  license: text(160, 0, true),
  attribution: text(500, 0, true),
  rightsStatus: text(80, 1),
  sourcePageUrl: https,
};

/** Arrangement fields (targetType "arrangement"; targetId = arrangement id). */
export const ARRANGEMENT_FIELDS: Record<string, FieldRule> = {
  title: text(160, 1),
  style: text(80),
  instrumentation: text(220),
  notes: text(2000, 0, true),
};

const ASSET_TARGETS = new Set([
  'source-asset',
  'asset',
  'arrangement-asset',
  'arrangement-recording',
  'arrangement-score',
]);

const PERSON_TARGETS = new Set(['composer', 'lyricist']);

/** A person record a correction changes. */
export interface PersonCorrection {
  slug: string;
  before: PersonContent;
  after: PersonContent;
}

export interface CorrectionResult {
  /** The work front matter after the change (as it was, when the change is a person's). */
  after: Data;
  /** The person record the change is to, when it is a person's fact (every work naming them follows). */
  person?: PersonCorrection;
  /** JSON-pointer-like path of the changed field, e.g. "/composer/died" or "people/eichendorff-joseph-von.json: /died". */
  pointer: string;
  oldValue: unknown;
  newValue: string | null;
}

/** What is wrong with a proposed value under its field's rule (empty: it passes). */
function valueProblems(rule: FieldRule, raw: string): string[] {
  const v = raw.trim();
  if (rule.nullable && (v === '' || v.toLowerCase() === 'null')) return [];
  const problems: string[] = [];
  if (v.length < rule.min)
    problems.push(rule.min === 1 ? 'must not be empty' : `must be at least ${rule.min} characters`);
  if (v.length > rule.max) problems.push(`must be at most ${rule.max} characters`);
  const extra = rule.check?.(v);
  if (extra) problems.push(extra);
  return problems;
}

function coerce(rule: FieldRule, field: string, raw: string): string | null {
  const v = raw.trim();
  if (rule.nullable && (v === '' || v.toLowerCase() === 'null')) return null;
  const problems = valueProblems(rule, raw);
  if (problems.length > 0)
    throw new ProposalError([`proposedValue for "${field}" ${problems.join(' and ')} (got ${JSON.stringify(raw)}).`]);
  return v;
}

/** Whether a fact's value needs evidence: anything but "unknown" (or nothing). */
function needsEvidence(rule: FieldRule, value: string): boolean {
  const v = value.trim().toLowerCase();
  return rule.fact === true && v !== 'unknown' && v !== '' && v !== 'null';
}

/** Target types whose fields a report can change through apply. */
function correctable(type: string): boolean {
  return type === 'work' || PERSON_TARGETS.has(type) || type === 'arrangement' || ASSET_TARGETS.has(type);
}

/**
 * The rule of the reported field, known from the report alone (no record needed): the field's
 * dotted name and rule, or why the field cannot be changed by a report. Shared by intake (which
 * refuses a report apply would refuse) and apply.
 */
function fieldRule(type: string, field: string): { name: string; rule: FieldRule } | { refusal: string } {
  if (type === 'work' || PERSON_TARGETS.has(type)) {
    const name = PERSON_TARGETS.has(type) && !field.startsWith(`${type}.`) ? `${type}.${field}` : field;
    const rule = WORK_FIELDS[name];
    return rule
      ? { name, rule }
      : {
          refusal: PERSON_TARGETS.has(type)
            ? `"${field}" is not a field correction reports can change on a ${type}; editable: ${Object.keys(
                PERSON_FIELDS,
              )
                .filter((f) => type === 'composer' || f !== 'worksPublishedBy')
                .join(', ')}.`
            : `"${field}" is not a field correction reports can change on a work; editable: ${Object.keys(WORK_FIELDS).join(', ')}.`,
        };
  }
  if (ASSET_TARGETS.has(type)) {
    const rule = ASSET_FIELDS[field];
    return rule
      ? { name: field, rule }
      : {
          refusal: `"${field}" is not a field correction reports can change on an asset; editable: ${Object.keys(ASSET_FIELDS).join(', ')}.`,
        };
  }
  const rule = ARRANGEMENT_FIELDS[field];
  return rule
    ? { name: field, rule }
    : {
        refusal: `"${field}" is not a field correction reports can change on an arrangement; editable: ${Object.keys(ARRANGEMENT_FIELDS).join(', ')}.`,
      };
}

/**
 * The field rules apply enforces, checked at intake: for a target a report can change (a work,
 * a person it names, an arrangement, an asset), the field must be editable, the proposed value
 * must pass that field's rule, and a fact must come with evidence, so a report apply would refuse
 * is refused before anyone reviews it. Reports about other parts (comments, videos, profiles) are
 * read by a person, not applied.
 */
export function correctionReportErrors(report: {
  targetType?: unknown;
  fieldName?: unknown;
  proposedValue?: unknown;
  evidenceUrl?: unknown;
}): Array<{ pointer: string; detail: string }> {
  const { targetType: type, fieldName: field, proposedValue: value } = report;
  if (typeof type !== 'string' || typeof field !== 'string' || !correctable(type)) return [];
  const found = fieldRule(type, field);
  if ('refusal' in found) return [{ pointer: '/fieldName', detail: found.refusal }];
  if (typeof value !== 'string') return [];
  const problems = valueProblems(found.rule, value);
  const out =
    problems.length > 0 ? [{ pointer: '/proposedValue', detail: `for "${field}" ${problems.join(' and ')}` }] : [];
  if (needsEvidence(found.rule, value)) {
    const url = typeof report.evidenceUrl === 'string' ? report.evidenceUrl.trim() : '';
    if (url === '')
      out.push({
        pointer: '/evidenceUrl',
        detail: `is required for "${field}": a fact without evidence is refused (give a page an editor can follow, e.g. a Wikidata entry or the scan of an edition)`,
      });
    else if (!/^https:\/\/[^\s]+$/.test(url))
      out.push({ pointer: '/evidenceUrl', detail: `must be an https:// page for the fact "${field}"` });
  }
  return out;
}

function locate(
  work: Data,
  report: CorrectionReportInput,
): { holder: Data; key: string; rule: FieldRule; pointer: string } {
  const type = report.targetType;
  const field = report.fieldName;
  if (type === 'work') {
    const found = fieldRule(type, field);
    if ('refusal' in found) throw new ProposalError([found.refusal]);
    const { name, rule } = found;
    const parts = name.split('.');
    const holder = parts.length === 2 ? (work[parts[0]!] as Data) : work;
    return { holder, key: parts[parts.length - 1]!, rule, pointer: `/${parts.join('/')}` };
  }
  const id = report.targetId;
  if (ASSET_TARGETS.has(type)) {
    const found = fieldRule(type, field);
    if ('refusal' in found) throw new ProposalError([found.refusal]);
    const { rule } = found;
    if (id == null) throw new ProposalError([`targetType "${type}" needs targetId (the asset id).`]);
    const sources = (work.sourceAssets as Data[] | undefined) ?? [];
    const si = sources.findIndex((a) => a.id === id);
    if (si >= 0) return { holder: sources[si]!, key: field, rule, pointer: `/sourceAssets/${si}/${field}` };
    const arrangements = (work.arrangements as Data[] | undefined) ?? [];
    for (const [ai, arr] of arrangements.entries()) {
      const assets = (arr.assets as Data[] | undefined) ?? [];
      const j = assets.findIndex((a) => a.id === id);
      if (j >= 0) return { holder: assets[j]!, key: field, rule, pointer: `/arrangements/${ai}/assets/${j}/${field}` };
    }
    throw new ProposalError([`The work has no asset ${id}.`], true);
  }
  if (type === 'arrangement') {
    const found = fieldRule(type, field);
    if ('refusal' in found) throw new ProposalError([found.refusal]);
    const { rule } = found;
    if (id == null) throw new ProposalError(['targetType "arrangement" needs targetId (the arrangement id).']);
    const arrangements = (work.arrangements as Data[] | undefined) ?? [];
    const ai = arrangements.findIndex((a) => a.id === id);
    if (ai < 0) throw new ProposalError([`The work has no arrangement ${id}.`], true);
    return { holder: arrangements[ai]!, key: field, rule, pointer: `/arrangements/${ai}/${field}` };
  }
  throw new ProposalError([
    `targetType "${type}" cannot be corrected through a report; apply it by editing the content repository. Correctable: work, composer, lyricist, arrangement, ${[...ASSET_TARGETS].join(', ')}.`,
  ]);
}

/** What a report's acceptance adds to the evidence of the fact it records. */
export interface CorrectionContext {
  /** A person record as main has it, by slug. */
  person?: (slug: string) => PersonContent | null;
  /** Who accepted the report (key label) and when. */
  accepted?: { by: string; atUtc: string } | null;
  trackingCode?: string;
}

function evidenceOf(report: CorrectionReportInput, facts: PersonFactField[] | null, ctx: CorrectionContext): Evidence {
  const note = report.rationale.trim().slice(0, 500) || 'Recorded by a correction report.';
  return {
    url: (report.evidenceUrl ?? '').trim(),
    note,
    ...(facts ? { facts } : {}),
    acceptedBy: ctx.accepted?.by ?? null,
    acceptedAtUtc: ctx.accepted?.atUtc ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    via: ctx.trackingCode ?? null,
  };
}

function staleCheck(report: CorrectionReportInput, pointer: string, oldValue: unknown): void {
  if (
    report.currentValue != null &&
    String(oldValue ?? '') !== report.currentValue.trim() &&
    !(oldValue === null && /^null$/i.test(report.currentValue.trim()))
  ) {
    throw new ProposalError(
      [
        `The report is stale: ${pointer} now reads ${JSON.stringify(oldValue)}, not ${JSON.stringify(report.currentValue)}.`,
      ],
      true,
    );
  }
}

/** "1826", "no later than 1900", "unpublished" or null: how a report reads a work's publication fact. */
function publicationWords(p: unknown): string | null {
  if (p === null || p === undefined || typeof p !== 'object') return null;
  const f = p as { bound?: string; year?: number | null };
  if (f.bound === 'unpublished') return 'unpublished';
  if (f.bound === 'exact') return String(f.year);
  if (f.bound === 'no-later-than') return `no later than ${f.year}`;
  return null;
}

/** A person's fact changed by a report: the record after, and the evidence recorded with it. */
function correctPerson(
  work: Data,
  report: CorrectionReportInput,
  role: 'composer' | 'lyricist',
  field: string,
  rule: FieldRule,
  ctx: CorrectionContext,
): CorrectionResult {
  const newValue = coerce(rule, report.fieldName, report.proposedValue);
  const slug = typeof work[role] === 'string' ? (work[role] as string) : null;
  if (!slug)
    throw new ProposalError(
      [`The work "${report.workSlug}" names no ${role}${role === 'lyricist' ? ' (record the lyricist first)' : ''}.`],
      true,
    );
  const before = ctx.person?.(slug) ?? null;
  if (!before)
    throw new ProposalError(
      [`The ${role} "${slug}" of "${report.workSlug}" has no record (people/${slug}.json).`],
      true,
    );
  if (field === 'worksPublishedBy' && role !== 'composer')
    throw new ProposalError([
      '"worksPublishedBy" is a bound for every work of a composer; report it with targetType "composer".',
    ]);
  const after = structuredClone(before);
  const pointer = `people/${slug}.json: /${field}`;
  const oldValue =
    field === 'worksPublishedBy'
      ? (before.worksPublishedBy?.year ?? null)
      : ((before as unknown as Data)[field] ?? null);
  staleCheck(report, pointer, oldValue);
  if (String(oldValue ?? '') === String(newValue ?? ''))
    throw new ProposalError(
      [`${pointer} already reads ${JSON.stringify(newValue)}; the report changes nothing.`],
      false,
      true,
    );
  const facts = (['born', 'died', 'wikidataId', 'name'] as const).includes(field as 'born')
    ? [field as PersonFactField]
    : null;
  if (field === 'worksPublishedBy') {
    after.worksPublishedBy = { year: Number(newValue), evidence: [evidenceOf(report, null, ctx)] };
  } else {
    (after as unknown as Data)[field] = newValue;
    if (needsEvidence(rule, newValue ?? '')) {
      if (!(report.evidenceUrl ?? '').trim())
        throw new ProposalError([
          `A fact without evidence is refused: the report gives no evidenceUrl for "${report.fieldName}".`,
        ]);
      // The new evidence supports the new value; earlier evidence of this field no longer does.
      after.evidence = [
        ...after.evidence
          .map((e) =>
            e.facts?.includes(field as PersonFactField) ? { ...e, facts: e.facts.filter((f) => f !== field) } : e,
          )
          .filter((e) => e.facts === undefined || e.facts.length > 0),
        evidenceOf(report, facts, ctx),
      ].slice(-20);
    }
  }
  return { after: work, person: { slug, before, after }, pointer, oldValue, newValue };
}

/**
 * The work front matter (or the person record) with the one reported field changed. A non-null
 * `currentValue` that no longer matches the record makes the report stale (the record moved since
 * it was written).
 */
export function applyCorrection(
  work: Data | null,
  report: CorrectionReportInput,
  ctx: CorrectionContext = {},
): CorrectionResult {
  if (!report.workSlug) throw new ProposalError(['The report names no workSlug, so there is no record to change.']);
  if (!work)
    throw new ProposalError(
      [`The work "${report.workSlug}" does not exist (it may have been removed or renamed).`],
      true,
    );
  const type = report.targetType;
  if (type === 'work' || PERSON_TARGETS.has(type)) {
    const found = fieldRule(type, report.fieldName);
    if ('refusal' in found) throw new ProposalError([found.refusal]);
    const [head, tail] = found.name.split('.');
    if (tail !== undefined && PERSON_TARGETS.has(head!))
      return correctPerson(work, report, head as 'composer' | 'lyricist', tail, found.rule, ctx);
    if (found.name === 'firstPublished') {
      const after = structuredClone(work);
      const oldValue = publicationWords(work.firstPublished);
      staleCheck(report, '/firstPublished', oldValue);
      coerce(found.rule, report.fieldName, report.proposedValue);
      const parsed = parsePublication(report.proposedValue)!;
      const newValue = parsed === null ? null : publicationWords(parsed);
      if (oldValue === newValue)
        throw new ProposalError(
          [`/firstPublished already reads ${JSON.stringify(newValue)}; the report changes nothing.`],
          false,
          true,
        );
      if (parsed === null) delete after.firstPublished;
      else {
        if (!(report.evidenceUrl ?? '').trim())
          throw new ProposalError([
            'A fact without evidence is refused: the report gives no evidenceUrl for "firstPublished".',
          ]);
        after.firstPublished = { bound: parsed.bound, year: parsed.year, evidence: [evidenceOf(report, null, ctx)] };
      }
      return { after, pointer: '/firstPublished', oldValue, newValue };
    }
  }
  const after = structuredClone(work);
  const { holder, key, rule, pointer } = locate(after, report);
  const oldValue = holder[key] ?? null;
  staleCheck(report, pointer, oldValue);
  const newValue = coerce(rule, report.fieldName, report.proposedValue);
  if (oldValue === newValue)
    throw new ProposalError(
      [`${pointer} already reads ${JSON.stringify(newValue)}; the report changes nothing.`],
      false,
      true,
    );
  holder[key] = newValue;
  return { after, pointer, oldValue, newValue };
}
