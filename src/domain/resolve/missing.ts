/**
 * The prepare analysis: when no candidate is ready, name exactly what keeps the best candidate
 * that fits the channel role from being ready, and which contribution operation would supply
 * each item. When nothing fits the role, the missing thing is an arrangement (and, for a work
 * without a public score, the source score first); when no work is found, it is the work.
 * Listening approval is never something a contribution supplies: only an accountable person
 * asserts it in review, so those items carry `operation: null` and say so.
 */
import { ASSET_KINDS, MUSIC_ROLES } from '../../schemas/common.ts';
import { MISSING_KINDS, type MissingItem, type MissingKind } from '../../schemas/resolve.ts';
import type { ContributionOperation } from '../../schemas/contribution.ts';
import { REVIEW_STATE_LABELS } from '../review-states.ts';
import {
  arrangementAt,
  compositionCheck,
  workAt,
  type PreparedWork,
  type RecordSource,
  type ResolveCatalog,
} from './catalog.ts';
import type { Evaluation, ResolveRequest } from './evaluate.ts';
import { unusableAssetsOf } from './evaluate.ts';
import type { ArrangementRecord, WorkRecord } from '../../schemas/work.ts';
import { AUDIBLE_KINDS, EDITION_KINDS, MUSICXML_MASK, type RequestedFormat } from './formats.ts';
import { worksAt, type Found } from './find.ts';

export interface PrepareInput {
  catalog: ResolveCatalog;
  /** Full records; only the best candidate's work is read. */
  records: RecordSource;
  found: Found;
  request: ResolveRequest;
  /** The best-ranked candidate that fits the role, with its explained evaluation; null when none fits. */
  best: { index: number; evaluation: Evaluation } | null;
}

interface Target {
  workSlug?: string | null;
  arrangementId?: number | null;
  assetId?: number | null;
  format?: string | null;
}

function item(what: MissingKind, operation: ContributionOperation | null, detail: string, t: Target = {}): MissingItem {
  return {
    what,
    operation,
    detail,
    workSlug: t.workSlug ?? null,
    arrangementId: t.arrangementId ?? null,
    assetId: t.assetId ?? null,
    format: t.format ?? null,
  };
}

const NO_CONTRIBUTION =
  'No contribution can supply it: only an accountable, named person may assert listening approval, and editors do so in review. ' +
  'Reuse it once the canonical record shows human-listening-approved, or contribute a different performance (operation performance) for review.';

/** The facts a work's record names as missing (each territory's, once each). */
function missingFactsOf(record: WorkRecord): string[] {
  const t = record.rights.territories;
  return [...new Set([t.US, t.EU, t.CA].flatMap((v) => v.missingFacts ?? []))];
}

/** How a missing fact is recorded: a correction report with evidence, accepted by a named editor. */
function factRoute(slug: string): string {
  return `Record each with its evidence by a correction report (POST /api/v1/correction-reports: workSlug "${slug}", targetType "composer" or "lyricist" with fieldName "died", or targetType "work" with fieldName "firstPublished"); a named editor accepts it in review. No contribution of a file supplies it.`;
}

/**
 * A work whose MusicXML source score the archive holds for rights review: what is missing is a
 * fact, not a file (never ask for a score the archive has).
 */
function heldScoreItem(work: PreparedWork, record: WorkRecord): MissingItem {
  const held = record.sourceAssets.find(
    (a) => (a.kind === 'musicxml' || a.kind === 'mxl') && a.reviewState === 'rights-review-required',
  );
  const facts = missingFactsOf(record);
  return item(
    'composition-rights',
    null,
    `${work.slug} has a MusicXML source score${held ? ` (asset ${held.id})` : ''}, held for rights review: the composition is not yet known to be public domain in the US, the EU and Canada. ${facts.length > 0 ? `Missing: ${facts.join('; ')}. ${factRoute(work.slug)}` : compositionCheck(record).detail}`,
    { workSlug: work.slug, ...(held ? { assetId: held.id } : {}) },
  );
}

function sourceScoreItem(work: PreparedWork, records?: RecordSource): MissingItem {
  if (work.hasHeldScore && records) return heldScoreItem(work, records(work.order));
  return item(
    'source-score',
    'source-score',
    `${work.slug} has no public MusicXML source score. Contribute one (operation source-score) with its edition rights and evidence, so arrangements can be made and checked against it.`,
    { workSlug: work.slug },
  );
}

/** `works`: the first (up to five) of the `count` works found. */
function arrangementForRole(
  catalog: ResolveCatalog,
  request: ResolveRequest,
  works: PreparedWork[],
  count: number,
  records?: RecordSource,
): MissingItem[] {
  const role = request.role;
  if (count === 1) {
    const w = works[0]!;
    // Intended roles from the columns, in arrangement order: no record needs reading.
    const intended: string[] = [];
    for (let i = w.firstArrangement; i < w.firstArrangement + w.arrangementCount; i++)
      intended.push(MUSIC_ROLES[31 - Math.clz32(catalog.cols.intendedBit[i]!)]!);
    const roles = [...new Set(intended)];
    const out = w.hasPublicScore ? [] : [sourceScoreItem(w, records)];
    out.push(
      item(
        'arrangement',
        'arrangement',
        `${w.slug} has no arrangement for ${role}${roles.length ? ` (it has: ${roles.join(', ')})` : ' (it has none)'}. Contribute one (operation arrangement) with intendedRole "${role}", its files at HTTPS URLs with SHA-256 digests, and its rights.`,
        { workSlug: w.slug },
      ),
    );
    return out;
  }
  if (count > 1) {
    const named = works
      .slice(0, 5)
      .map((w) => w.slug)
      .join(', ');
    return [
      item(
        'arrangement',
        'arrangement',
        `None of the ${count} works found (${named}${count > 5 ? ', ...' : ''}) has an arrangement for ${role}. Contribute one (operation arrangement) for the work you want, with intendedRole "${role}".`,
      ),
    ];
  }
  return [
    item(
      'arrangement',
      'arrangement',
      `No arrangement in the catalog fits ${role}. Contribute one (operation arrangement) for a public-domain work, with intendedRole "${role}"; name a work (workSlug) to see what it already has.`,
    ),
  ];
}

function formatItem(work: PreparedWork, a: ArrangementRecord, f: RequestedFormat): MissingItem {
  const target = { workSlug: work.slug, arrangementId: a.id, format: f.format };
  if (f.kinds.length === 0) {
    return item(
      'format',
      null,
      `"${f.asSent}" is not a format the archive stores; contributions accept ${ASSET_KINDS.join(', ')}.`,
      target,
    );
  }
  const existing = unusableAssetsOf(a, f.kinds)[0];
  const where = existing ? ` Asset ${existing.id} exists but is ${existing.access}, not public.` : '';
  if (f.kinds.some((k) => EDITION_KINDS.has(k))) {
    return existing
      ? item(
          'format',
          'score-revision',
          `Arrangement ${a.id} needs a public ${f.format} score.${where} Contribute a revised score for it (operation score-revision, target asset ${existing.id}).`,
          { ...target, assetId: existing.id },
        )
      : item(
          'format',
          'arrangement',
          `Arrangement ${a.id} has no ${f.format} score. Contribute its score (operation arrangement with target.workSlug "${work.slug}" and target.arrangementId ${a.id}: the file is added to this arrangement) with edition rights.`,
          target,
        );
  }
  return item(
    'format',
    'performance',
    `Arrangement ${a.id} needs a public ${f.format} file.${where} Contribute a rendering or recording of it (operation performance with target.workSlug "${work.slug}" and target.arrangementId ${a.id}) with recording rights${f.kinds.includes('mp3') || f.kinds.includes('wav') ? '; audio is reused only after human listening approval' : ''}.`,
    existing ? { ...target, assetId: existing.id } : target,
  );
}

export function analyzeMissing(input: PrepareInput): MissingItem[] {
  const { catalog, records, found, request, best } = input;
  if (found.by === 'work-slug' && found.work === null) {
    return [
      item(
        'work',
        'new-work',
        `No work has slug "${found.slug}". Contribute it (operation new-work) with its bibliographic fields, composer and rights evidence; a source score and an arrangement for ${request.role} can follow once it is applied.`,
      ),
    ];
  }
  if (found.by === 'title-composer' && found.orders.length === 0) {
    const named = [found.title ? `title "${found.title}"` : '', found.composer ? `composer "${found.composer}"` : '']
      .filter(Boolean)
      .join(' and ');
    return [
      item(
        'work',
        'new-work',
        `No work matches ${named}. Check the spelling, or contribute the work (operation new-work) with its bibliographic fields, composer and rights evidence.`,
      ),
    ];
  }
  if (best === null) {
    const works =
      found.by === 'work-slug' ? [found.work!] : found.by === 'title-composer' ? worksAt(catalog, found.orders, 5) : [];
    return arrangementForRole(
      catalog,
      request,
      works,
      found.by === 'title-composer' ? found.orders.length : works.length,
      records,
    );
  }

  const { index, evaluation } = best;
  const facts = evaluation.facts;
  const w = workAt(catalog, catalog.arrangementWork[index]!);
  const { work: record, arrangement: a } = arrangementAt(catalog, records, index);
  const at = { workSlug: w.slug, arrangementId: a.id };
  const out: MissingItem[] = [];
  const failed = facts.failed;

  const needsScoreWork = facts.missingFormats.length > 0 || failed.has('music-xml') || facts.noUsableFile;
  if (needsScoreWork && !w.hasPublicScore && (catalog.cols.usableMask[index]! & MUSICXML_MASK) === 0)
    out.push(sourceScoreItem(w, records));

  // A held score's item already names the missing facts.
  if (failed.has('composition-rights') && !out.some((x) => x.what === 'composition-rights')) {
    out.push(
      missingFactsOf(record).length > 0
        ? item(
            'composition-rights',
            null,
            `${compositionCheck(record).detail} Missing: ${missingFactsOf(record).join('; ')}. ${factRoute(w.slug)}`,
            { workSlug: w.slug },
          )
        : item(
            'composition-rights',
            'metadata-revision',
            `${compositionCheck(record).detail} Contribute dated HTTPS evidence (operation metadata-revision) for the composition layer.`,
            { workSlug: w.slug },
          ),
    );
  }
  const fit: Array<['style' | 'instrumentation' | 'mood' | 'duration', MissingKind, string, string]> = [
    ['style', 'style-fit', 'style', 'arrangement.style'],
    ['instrumentation', 'instrumentation-fit', 'instrumentation', 'arrangement.instrumentation'],
    ['mood', 'mood-fit', 'mood', 'arrangement.moods'],
    [
      'duration',
      'duration-fit',
      'duration',
      'arrangement.duration (m:ss), and arrangement.loopable / arrangement.trimmable where true',
    ],
  ];
  for (const [requirement, what, words, field] of fit) {
    if (!failed.has(requirement)) continue;
    const reason = evaluation.reasons.find((r) => r.requirement === requirement)!;
    out.push(
      item(
        what,
        'arrangement',
        `The closest arrangement (${w.slug} #${a.id}) does not fit the requested ${words}: ${reason.detail} Contribute an arrangement (operation arrangement) that does, declaring it in ${field}.`,
        {
          workSlug: w.slug,
        },
      ),
    );
  }
  for (const f of facts.missingFormats) out.push(formatItem(w, a, f));
  if (facts.noUsableFile) {
    out.push(
      item(
        'format',
        'performance',
        `Arrangement ${a.id} has no public file. Contribute a rendering or recording of it (operation performance with target.workSlug "${w.slug}" and target.arrangementId ${a.id}).`,
        at,
      ),
    );
  }
  const musicXmlCovered = facts.missingFormats.some((f) => f.kinds.includes('musicxml') || f.kinds.includes('mxl'));
  if (failed.has('music-xml') && !musicXmlCovered) {
    const existing = unusableAssetsOf(a, ['musicxml', 'mxl'])[0];
    out.push(
      existing
        ? item(
            'music-xml',
            'score-revision',
            `Arrangement ${a.id} needs a public MusicXML score; asset ${existing.id} exists but is ${existing.access}. Contribute a revised score (operation score-revision, target asset ${existing.id}).`,
            { ...at, assetId: existing.id },
          )
        : item(
            'music-xml',
            'arrangement',
            `Arrangement ${a.id} has no MusicXML score. Contribute its score (operation arrangement with target.workSlug "${w.slug}" and target.arrangementId ${a.id}: the file is added to this arrangement) with edition rights.`,
            at,
          ),
    );
  }
  if (failed.has('approved-rendering-profile')) {
    const list = facts.nonApprovedProfiles.map((p) => `${p.slug} (${p.status})`).join(', ');
    out.push(
      item(
        'approved-rendering-profile',
        'rendering-profile',
        `Arrangement ${a.id} uses rendering profiles that are not approved: ${list}. Contribute a profile revision for approval (operation rendering-profile), or a performance rendered with an approved profile (operation performance).`,
        at,
      ),
    );
  }
  for (const [layer, name] of [
    ['edition', 'Edition'],
    ['recording', 'Recording'],
  ] as const) {
    if (failed.has(`${layer}-rights`))
      out.push(
        item(
          `${layer}-rights`,
          'metadata-revision',
          `${name} rights of arrangement ${a.id} are not cleared (${a.rights[layer].status}). Contribute the license and dated evidence (operation metadata-revision).`,
          at,
        ),
      );
  }
  for (const asset of facts.assetsFailingRights) {
    out.push(
      item(
        'asset-rights',
        'metadata-revision',
        `Asset ${asset.id} has rights status "${asset.rightsStatus}"${asset.license ? '' : ' and no license'}. Contribute its rights and evidence (operation metadata-revision).`,
        { ...at, assetId: asset.id },
      ),
    );
  }

  const arrangementInReview = failed.has('arrangement-review');
  const blockedAssets = facts.assetsFailingReview.filter((x) => x.reviewState !== 'rights-review-required');
  if (arrangementInReview && a.reviewState === 'rights-review-required') {
    out.push(
      item(
        'rights-review',
        'metadata-revision',
        `Arrangement ${a.id} is under rights review (${REVIEW_STATE_LABELS[a.reviewState]}); it is not permission to publish. Contribute the missing rights evidence, such as a written license confirmation (operation metadata-revision); an editor clears it in review.`,
        at,
      ),
    );
  } else if (arrangementInReview) {
    const alsoAssets = blockedAssets.length
      ? ` Its file(s) ${blockedAssets.map((x) => `${x.id} (${REVIEW_STATE_LABELS[x.reviewState]})`).join(', ')} need the same.`
      : '';
    out.push(
      item(
        'listening-approval',
        null,
        `Arrangement ${a.id} needs human listening approval; it is "${REVIEW_STATE_LABELS[a.reviewState]}".${alsoAssets}${blockedAssets.some((x) => x.renderedAudio) ? ' An editor who listens to the audio rendered from its score and approves it on the review desk gives it that approval.' : ''} ${NO_CONTRIBUTION}`,
        at,
      ),
    );
  }
  for (const asset of facts.assetsFailingReview) {
    if (asset.reviewState === 'rights-review-required') {
      out.push(
        item(
          'rights-review',
          'metadata-revision',
          `Asset ${asset.id} is under rights review; it is not permission to publish. Contribute the missing rights evidence (operation metadata-revision).`,
          { ...at, assetId: asset.id },
        ),
      );
    } else if (!arrangementInReview && AUDIBLE_KINDS.has(asset.kind)) {
      out.push(
        item(
          'listening-approval',
          null,
          asset.renderedAudio
            ? `The audio rendered from asset ${asset.id} (${asset.kind}) is "${REVIEW_STATE_LABELS[asset.reviewState]}": an editor approves it after listening, on the review desk. ${NO_CONTRIBUTION}`
            : `Asset ${asset.id} (${asset.kind}) is "${REVIEW_STATE_LABELS[asset.reviewState]}". ${NO_CONTRIBUTION}`,
          { ...at, assetId: asset.id },
        ),
      );
    } else if (!arrangementInReview) {
      out.push(
        item(
          'human-review',
          null,
          `Asset ${asset.id} (${asset.kind}) is "${REVIEW_STATE_LABELS[asset.reviewState]}"; files other than audio are reused once a person has reviewed them. No contribution can supply that; editors review it.`,
          { ...at, assetId: asset.id },
        ),
      );
    }
  }
  const order = new Map(MISSING_KINDS.map((k, i) => [k, i]));
  return out
    .map((x, i) => ({ x, i }))
    .sort((p, q) => order.get(p.x.what)! - order.get(q.x.what)! || p.i - q.i)
    .map((p) => p.x);
}
