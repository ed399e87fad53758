/**
 * Commit messages and pull-request bodies of review proposals (pure). Both carry the tracking
 * code, the submitter (name, kind, agent and version), the rights declaration, the change
 * summary and the rationale, so `git log` alone tells what was applied and why.
 */
import type { MusicContributionInput } from '../../schemas/contribution.ts';
import type { CorrectionReportInput } from '../../schemas/correction.ts';

export interface ProposalText {
  title: string;
  message: string;
  body: string;
}

const cell = (v: unknown) =>
  String(v ?? '—')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, '<br>');
const table = (rows: [string, unknown][]) =>
  ['| Field | Value |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${cell(v)} |`)].join('\n');
const oneLine = (s: string, max = 72) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export function submitterLine(by: MusicContributionInput['submittedBy']): string {
  const agent = by.agentName ? `; agent ${by.agentName}${by.agentVersion ? ` ${by.agentVersion}` : ''}` : '';
  return `${by.name} (${by.kind}${agent})`;
}

function rightsLine(r: MusicContributionInput['rights']): string {
  return [
    `composition ${r.compositionStatus}`,
    `edition ${r.editionStatus ?? 'not declared'}`,
    `recording ${r.recordingStatus ?? 'not declared'}`,
    `territory ${r.territory}`,
    `license ${r.license ?? 'none'}`,
  ].join('; ');
}

export function contributionText(code: string, s: MusicContributionInput): ProposalText {
  const target = s.target?.workSlug ?? s.arrangement?.renderingProfileSlugs[0] ?? 'the catalog';
  const what = s.arrangement?.title ?? s.work?.title ?? s.assets[0]?.title ?? s.operation;
  const title = oneLine(`${code}: ${s.operation} for ${target}: ${what}`);
  const message = [
    title,
    '',
    `Tracking-Code: ${code}`,
    `Operation: ${s.operation}`,
    `Submitted-By: ${submitterLine(s.submittedBy)}`,
    `Rights: ${rightsLine(s.rights)}`,
    `Evidence: ${s.rights.evidenceUrls.join(' ')}`,
    `Assets: ${s.assets.map((a) => `${a.kind} sha256:${a.sha256 ?? 'none'}`).join(', ') || 'none'}`,
    '',
    'Change summary:',
    s.changeSummary,
    '',
    'Rationale:',
    s.rationale ?? '(none given)',
    '',
  ].join('\n');
  const body = [
    `Contribution **${code}** (${s.operation}), proposed through the archive's review workflow. Nothing is in the catalog until it is applied.`,
    '',
    table([
      ['Tracking code', code],
      ['Operation', s.operation],
      ['Target work', s.target?.workSlug],
      ['Base SHA-256', s.target?.baseSha256],
      ['Submitted by', s.submittedBy.name],
      ['Submitter kind', s.submittedBy.kind],
      ['Agent', s.submittedBy.agentName],
      ['Agent version', s.submittedBy.agentVersion],
      ['Composition status', s.rights.compositionStatus],
      ['Edition status', s.rights.editionStatus],
      ['Recording status', s.rights.recordingStatus],
      ['Territory', s.rights.territory],
      ['License', s.rights.license],
      ['Attribution', s.rights.attribution],
      ['Rights evidence', s.rights.evidenceUrls.join(' ')],
      ...s.assets.map((a, i): [string, unknown] => [
        `Asset ${i}`,
        `${a.kind}: ${a.title} — ${a.downloadUrl ?? a.sourcePageUrl} (sha256 ${a.sha256 ?? 'none'}; claimed ${a.reviewState})`,
      ]),
      ['Change summary', s.changeSummary],
      ['Rationale', s.rationale],
    ]),
  ].join('\n');
  return { title, message, body };
}

export function correctionText(code: string, r: CorrectionReportInput): ProposalText {
  const title = oneLine(
    `${code}: correct ${r.fieldName} of ${r.workSlug ?? r.targetType}${r.targetId != null ? ` #${r.targetId}` : ''}`,
  );
  const message = [
    title,
    '',
    `Tracking-Code: ${code}`,
    `Operation: correction-report`,
    `Submitted-By: ${r.reporterName} (${r.reporterKind})`,
    `Target: ${r.targetType}${r.targetId != null ? ` ${r.targetId}` : ''} of ${r.workSlug ?? '-'}, field ${r.fieldName}`,
    `Current-Value: ${r.currentValue ?? '(not given)'}`,
    `Proposed-Value: ${r.proposedValue}`,
    `Evidence: ${r.evidenceUrl ?? '(none)'}`,
    '',
    'Rationale:',
    r.rationale,
    '',
  ].join('\n');
  const body = [
    `Correction report **${code}**: one field of one record.`,
    '',
    table([
      ['Tracking code', code],
      ['Work', r.workSlug],
      ['Target', `${r.targetType}${r.targetId != null ? ` ${r.targetId}` : ''}`],
      ['Field', r.fieldName],
      ['Current value', r.currentValue],
      ['Proposed value', r.proposedValue],
      ['Reported by', `${r.reporterName} (${r.reporterKind})`],
      ['Evidence', r.evidenceUrl],
      ['Rationale', r.rationale],
    ]),
  ].join('\n');
  return { title, message, body };
}

/**
 * The merge commit message: first line names the tracking code; the trailers name who is
 * accountable: `Reviewed-By` is the authenticated key's label (a name the operator gave the key), the free-text
 * name follows as `Reviewer-Display-Name` (display only).
 */
export function mergeMessage(
  code: string,
  title: string,
  actor: string,
  displayName: string,
  note: string | null,
): string {
  const subject = title.startsWith(code) ? title : `${code}: ${title}`;
  const trailers = [
    `Tracking-Code: ${code}`,
    `Reviewed-By: ${actor}`,
    `Reviewer-Display-Name: ${oneLine(displayName, 100)}`,
  ];
  return [`Apply ${subject}`, '', ...(note ? [note, ''] : []), ...trailers, ''].join('\n');
}
