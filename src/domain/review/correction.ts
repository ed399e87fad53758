/**
 * Correction reports applied to one field (pure). Only a whitelist of editable fields can be
 * changed this way; each has a type, a coercion from the reported text and a check. The content
 * lint still runs on the result before anything is committed.
 */
import type { CorrectionReportInput } from '../../schemas/correction.ts';
import { isRealDate } from '../catalog.ts';
import { ProposalError, type Data } from './proposal.ts';

interface FieldRule {
  nullable: boolean;
  min: number;
  max: number;
  check?: (v: string) => string | null;
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
const https: FieldRule = {
  nullable: false,
  min: 9,
  max: 1000,
  check: (v) => (/^https:\/\/[^\s]+$/.test(v) && URL.canParse(v) ? null : 'must be an absolute https:// URL'),
};

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
  'composer.name': text(160, 1),
  'composer.sortName': text(160, 1),
  'composer.born': date,
  'composer.died': date,
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

export interface CorrectionResult {
  after: Data;
  /** JSON-pointer-like path of the changed field, e.g. "/composer/died". */
  pointer: string;
  oldValue: unknown;
  newValue: string | null;
}

function coerce(rule: FieldRule, field: string, raw: string): string | null {
  const v = raw.trim();
  if (rule.nullable && (v === '' || v.toLowerCase() === 'null')) return null;
  const problems: string[] = [];
  if (v.length < rule.min)
    problems.push(rule.min === 1 ? 'must not be empty' : `must be at least ${rule.min} characters`);
  if (v.length > rule.max) problems.push(`must be at most ${rule.max} characters`);
  const extra = rule.check?.(v);
  if (extra) problems.push(extra);
  if (problems.length > 0)
    throw new ProposalError([`proposedValue for "${field}" ${problems.join(' and ')} (got ${JSON.stringify(raw)}).`]);
  return v;
}

function locate(
  work: Data,
  report: CorrectionReportInput,
): { holder: Data; key: string; rule: FieldRule; pointer: string } {
  const type = report.targetType;
  const field = report.fieldName;
  if (type === 'work' || type === 'composer') {
    const name = type === 'composer' && !field.startsWith('composer.') ? `composer.${field}` : field;
    const rule = WORK_FIELDS[name];
    if (!rule)
      throw new ProposalError([
        `"${field}" is not a field correction reports can change on a work; editable: ${Object.keys(WORK_FIELDS).join(', ')}.`,
      ]);
    const parts = name.split('.');
    const holder = parts.length === 2 ? (work[parts[0]!] as Data) : work;
    return { holder, key: parts[parts.length - 1]!, rule, pointer: `/${parts.join('/')}` };
  }
  const id = report.targetId;
  if (ASSET_TARGETS.has(type)) {
    const rule = ASSET_FIELDS[field];
    if (!rule)
      throw new ProposalError([
        `"${field}" is not a field correction reports can change on an asset; editable: ${Object.keys(ASSET_FIELDS).join(', ')}.`,
      ]);
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
    const rule = ARRANGEMENT_FIELDS[field];
    if (!rule)
      throw new ProposalError([
        `"${field}" is not a field correction reports can change on an arrangement; editable: ${Object.keys(ARRANGEMENT_FIELDS).join(', ')}.`,
      ]);
    if (id == null) throw new ProposalError(['targetType "arrangement" needs targetId (the arrangement id).']);
    const arrangements = (work.arrangements as Data[] | undefined) ?? [];
    const ai = arrangements.findIndex((a) => a.id === id);
    if (ai < 0) throw new ProposalError([`The work has no arrangement ${id}.`], true);
    return { holder: arrangements[ai]!, key: field, rule, pointer: `/arrangements/${ai}/${field}` };
  }
  throw new ProposalError([
    `targetType "${type}" cannot be corrected through a report; apply it by editing the content repository. Correctable: work, composer, arrangement, ${[...ASSET_TARGETS].join(', ')}.`,
  ]);
}

/**
 * The work front matter with the one reported field changed. A non-null `currentValue` that no
 * longer matches the record makes the report stale (the record moved since it was written).
 */
export function applyCorrection(work: Data | null, report: CorrectionReportInput): CorrectionResult {
  if (!report.workSlug) throw new ProposalError(['The report names no workSlug, so there is no record to change.']);
  if (!work)
    throw new ProposalError(
      [`The work "${report.workSlug}" does not exist (it may have been removed or renamed).`],
      true,
    );
  const after = structuredClone(work);
  const { holder, key, rule, pointer } = locate(after, report);
  const oldValue = holder[key] ?? null;
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
