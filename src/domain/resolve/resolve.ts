/**
 * Resolve music for a channel: find the works the request names (or scan the catalog by role),
 * evaluate every arrangement, rank them, and answer `reuse` when the first is ready, `prepare`
 * with what is missing otherwise, or `no-music` when the channel allows none. Pure: the route
 * calls it with the served build's prepared catalog and the configured base URL.
 */
import type { MusicResolveInput, ResolveCandidate, ResolveResult, ResolveVerdict } from '../../schemas/resolve.ts';
import { REVIEW_STATE_LABELS } from '../review-states.ts';
import { urls } from '../records.ts';
import type { ClassBounds, RecordSource, ResolveCatalog, RoleLists } from './catalog.ts';
import { arrangementAt, inMemoryRecords, isUsable, usableAssets, workAt } from './catalog.ts';
import {
  KEY_LIMIT,
  KEY_READY,
  bestTextMasks,
  boundKey,
  compileRequest,
  evaluate,
  judge,
  textMasksOf,
  type Evaluation,
  type ResolveRequest,
  type TextMasks,
} from './evaluate.ts';
import { findWorks, type Found } from './find.ts';
import {
  cutFor,
  effectiveDurationSeconds,
  fitOf,
  fitTolerance,
  listenAsset,
  loopRepeats,
  loopSeam,
  measuredDuration,
  noListenReason,
  renderedView,
  type FitKind,
  type RenderedView,
} from '../audio/arrangement.ts';
import type { ArrangementRecord } from '../../schemas/work.ts';
import { analyzeMissing } from './missing.ts';
import { TopK, type Scored } from './rank.ts';

/** Candidates in one answer. */
export const MAX_CANDIDATES = 10;
/** Work slugs listed under `search.workSlugs`. */
export const MAX_LISTED_WORKS = 20;

export interface ResolveContext {
  /** PUBLIC_BASE_URL: origin of the contribution and workflow links. */
  baseUrl: string;
  /** generatedAtUtc of the build the catalog was prepared from. */
  catalogGeneratedAtUtc: string;
}

/** Fit to the requested runtime (docs/resolve.md): measured duration when there is one (a recording, else the rendered audio), else declared. */
function fitFor(a: ArrangementRecord, target: number | null, maxRepeats: number): ResolveCandidate['fit'] {
  if (target === null) return null;
  const m = measuredDuration(a.assets);
  const seconds = m ? Math.round(m.seconds * 10) / 10 : a.durationSeconds;
  // The kind is judged on the same whole seconds and facts the ranking used (evaluate.ts).
  const judged = effectiveDurationSeconds(a.durationSeconds, a.assets);
  const loopable = a.loopable && loopSeam(a.assets).state !== 'gap';
  const kind = fitOf(
    judged,
    target,
    loopable,
    a.trimmable,
    maxRepeats,
    cutFor(renderedView(a.assets), target) !== null,
  );
  return {
    kind,
    repeats: loopRepeats(judged, target),
    maxRepeats,
    targetSeconds: target,
    durationSeconds: seconds,
    durationSource: m ? (m.source === 'rendered' ? 'rendered' : 'measured') : 'declared',
    deltaSeconds: Math.round((seconds - target) * 10) / 10,
    toleranceSeconds: fitTolerance(target),
  };
}

/** The rendered file that gives a fit: the cut, the loop, or the whole score. */
function fittingRole(
  view: RenderedView,
  kind: FitKind | null,
  target: number | null,
): 'master' | 'cut-30' | 'cut-60' | 'loop' {
  if (kind === 'cut' && target !== null) return cutFor(view, target) === 30 ? 'cut-30' : 'cut-60';
  if (kind === 'loop' && view.loop) return 'loop';
  return 'master';
}

/** Audio rendered from the arrangement's score, as the candidate lists it. */
function renderedFor(view: RenderedView | null, fit: ResolveCandidate['fit']): ResolveCandidate['renderedAudio'] {
  if (!view) return null;
  const a = view.audio;
  return {
    assetId: view.assetId,
    reviewState: a.reviewState,
    reviewStatus: REVIEW_STATE_LABELS[a.reviewState],
    statement: a.statement ?? '',
    fitting: fit ? fittingRole(view, fit.kind, fit.targetSeconds) : null,
    files: a.files.map((f) => ({
      name: f.name,
      role: f.role,
      format: f.format,
      durationSeconds: f.durationSeconds,
      sha256: f.sha256,
      url: f.url,
    })),
    provenance: a.links.provenance,
  };
}

/** A public MP3/WAV to hear, else the MP3 rendered from its score, or why there is none. */
function listenFor(a: ArrangementRecord): ResolveCandidate['listen'] {
  const l = listenAsset(a.assets);
  if (!l) {
    const view = renderedView(a.assets);
    if (view)
      return {
        url: view.master.mp3.url,
        assetId: view.assetId,
        format: 'mp3',
        reviewStatus: REVIEW_STATE_LABELS[view.audio.reviewState],
        reason: null,
      };
    return { url: null, assetId: null, format: null, reviewStatus: null, reason: noListenReason(a.assets) };
  }
  return {
    url: l.links.download!,
    assetId: l.id,
    format: l.kind as 'mp3' | 'wav',
    reviewStatus: REVIEW_STATE_LABELS[l.reviewState],
    reason: null,
  };
}

function candidateOf(
  catalog: ResolveCatalog,
  records: RecordSource,
  i: number,
  ev: Evaluation,
  position: number,
  q: ResolveRequest,
): ResolveCandidate {
  const { work: w, arrangement: a } = arrangementAt(catalog, records, i);
  const failed = ev.reasons.filter((r) => !r.passed).map((r) => r.requirement);
  const fit = fitFor(a, q.targetSeconds, q.maxRepeats);
  const view = renderedView(a.assets);
  const rendered = renderedFor(view, fit);
  return {
    position,
    ready: ev.ready,
    summary: ev.ready
      ? `Ready to reuse: all ${ev.reasons.length} checks pass.`
      : `Not ready: ${failed.join(', ')} ${failed.length === 1 ? 'fails' : 'fail'}.`,
    score: ev.score,
    workSlug: w.slug,
    workTitle: w.title,
    composer: w.composer.name,
    arrangementId: a.id,
    arrangementRank: a.rank,
    arrangementTitle: a.title,
    intendedRole: a.intendedRole,
    alsoSuits: a.alsoSuits,
    style: a.style,
    instrumentation: a.instrumentation,
    moods: a.moods,
    durationSeconds: a.durationSeconds,
    measuredDurationSeconds: measuredDuration(a.assets)?.seconds ?? null,
    fit,
    listen: listenFor(a),
    loopable: a.loopable,
    trimmable: a.trimmable,
    reviewState: a.reviewState,
    reviewStatus: REVIEW_STATE_LABELS[a.reviewState],
    license: a.rights.license,
    attribution: a.rights.attribution,
    rights: {
      composition: w.rights.composition,
      edition: a.rights.edition,
      recording: a.rights.recording,
      territories: w.rights.territories,
      rightsNote: w.rightsNote,
      checkedAtUtc: w.rights.checkedAtUtc,
      evidenceUrls: w.rights.evidenceUrls,
    },
    formats: [...usableAssets(a).entries()]
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
      .map(([format, asset]) => {
        if (!asset.renderedAudio || !view || !rendered)
          return { format, assetId: asset.id, download: asset.links.download! };
        // The rendered MP3 that fits: the cut or loop when the fit uses one, else the whole score.
        const file = rendered.files.find((f) => f.role === rendered.fitting && f.format === 'mp3');
        return { format, assetId: asset.id, download: file?.url ?? asset.links.download!, rendered: true };
      }),
    renderedAudio: rendered,
    assets: a.assets.map((x) => ({
      id: x.id,
      kind: x.kind,
      title: x.title,
      mediaType: x.mediaType,
      access: x.access,
      usable: isUsable(x),
      reviewState: x.reviewState,
      reviewStatus: REVIEW_STATE_LABELS[x.reviewState],
      rightsStatus: x.rightsStatus,
      license: x.license,
      attribution: x.attribution,
      sha256: x.sha256,
      measured: x.measured ?? null,
      links: { download: x.links.download, sourcePage: x.links.sourcePage },
    })),
    renderingProfiles: a.renderingProfileSlugs.map((slug) => {
      const p = catalog.profiles.get(slug);
      return p
        ? { slug, status: p.status, renderReady: p.renderReady, approved: p.status === 'approved', link: p.links.self }
        : { slug, status: 'unregistered' as const, renderReady: false, approved: false, link: null };
    }),
    reasons: ev.reasons,
    links: { work: w.links.self, markdown: w.links.markdown, html: w.links.html },
  };
}

interface Scan {
  top: Scored[];
  /** Ranked: judged, or shown by a bound to rank below the tenth candidate. */
  evaluated: number;
  /** Judged against the requirements one by one. */
  judged: number;
  readyCount: number;
  /** Every arrangement that could be ready was judged, so readyCount is exact. */
  readyCountComplete: boolean;
  /** The scan did not stop at its per-request bound: the candidates are the best of all. */
  rankingComplete: boolean;
  workSlugs: string[];
  matchedWorks: number;
}

/**
 * Per-request bounds of a resolve (docs/decisions/0047-catalog-wide-resolve-by-branch-and-bound.md).
 * `maxJudged`: no request judges more arrangements than this; a scan that reaches it stops and
 * says so (rankingComplete: false). `countBudget`: after the candidates are settled, a
 * catalog-wide scan keeps judging arrangements that could be ready, to make readyCount exact,
 * only while fewer than this many were judged (readyCountComplete says whether it is exact).
 */
export interface ResolveLimits {
  maxJudged: number;
  countBudget: number;
}

export const RESOLVE_LIMITS: ResolveLimits = { maxJudged: 2000, countBudget: 1000 };

/**
 * The catalog-wide scan, branch and bound over the role's bound classes (catalog.ts, RoleLists):
 * the classes in the order of their upper bound key (boundKey), each in tie-break order. A class
 * whose bound cannot outrank the tenth candidate kept is skipped whole; inside a class, the first
 * arrangement that cannot (its class bound, then its tie-break) ends the class, since every one
 * after it has the same bound and a later tie-break. So the ten kept are exactly the best ten of
 * the role, unless `maxJudged` stopped the scan first (rankingComplete: false).
 */
function scanCatalog(catalog: ResolveCatalog, q: ResolveRequest, limits: ResolveLimits): Scan {
  const lists = catalog.byRole.get(q.role)!;
  const top = new TopK(MAX_CANDIDATES, catalog.cols);
  const text = { style: 0, instrumentation: 0, mood: 0, grade: 0 };
  // A layered catalog (catalog-layer.ts): the base's classes less its tombstoned works, and the
  // overlay's classes, visited together by bound (equal bounds: the base's first).
  const layer = catalog.layer;
  const dead = layer?.dead;
  const work = catalog.arrangementWork;
  const sources = [{ lists, ranked: classBounds(catalog, q), offset: 0, dead }];
  if (layer) {
    const over = layer.over.byRole.get(q.role)!;
    sources.push({
      lists: over,
      ranked: overlayBounds(layer.over, q),
      offset: layer.baseArrangements,
      dead: undefined,
    });
  }
  const next = sources.map(() => 0);
  // The classes passed whole, by source (a layered scan counts their live arrangements only if it stops early).
  const passed: Array<[number, number]> = [];
  let judged = 0;
  let ranked = 0;
  let readyCount = 0;
  let readyCountComplete = true;
  let rankingComplete = true;
  const total = layer ? layer.liveByRole.get(q.role)! : lists.order.length;
  for (;;) {
    let from = -1;
    for (let s = 0; s < sources.length; s++) {
      const { byBound, bounds } = sources[s]!.ranked;
      if (next[s]! >= byBound.length) continue;
      if (
        from < 0 ||
        bounds[byBound[next[s]!]!]! > sources[from]!.ranked.bounds[sources[from]!.ranked.byBound[next[from]!]!]!
      )
        from = s;
    }
    if (from < 0) break;
    const source = sources[from]!;
    const c = source.ranked.byBound[next[from]!++]!;
    const { order, classStart } = source.lists;
    const { offset, dead: skip } = source;
    const bound = source.ranked.bounds[c]!;
    const mayBeReady = (bound & KEY_READY) !== 0;
    // Classes come by bound: when this one cannot enter and cannot hold a ready arrangement, nor can the rest.
    if (!mayBeReady && top.worstKey() > bound) {
      ranked = total;
      break;
    }
    const end = classStart[c + 1]!;
    let k = classStart[c]!;
    // Live arrangements of the class met before k.
    let met = 0;
    for (; k < end; k++) {
      const i = order[k]! + offset;
      if (skip && skip[work[i]!]) continue;
      // Past here nothing in the class can enter the ten; judge on only to count the ready ones.
      const mayEnter = top.mayEnter(bound, i);
      if (!mayEnter && !(mayBeReady && judged < limits.countBudget)) break;
      if (judged === limits.maxJudged) {
        // Stopped while only counting: the ten are settled, the count is not.
        if (mayEnter) rankingComplete = false;
        break;
      }
      met++;
      judged++;
      const key = judge(catalog, i, q, textMasksOf(catalog, q, i, text), null);
      if (key & KEY_READY) readyCount++;
      top.offer(key, i);
    }
    if (!rankingComplete) {
      ranked += met;
      // A layered scan: the live arrangements of the classes passed (tombstoned ones are not ranked).
      if (dead) ranked -= deadIn(passed, sources, work);
      // The classes not reached may hold ready arrangements (and better candidates).
      readyCountComplete = false;
      break;
    }
    // Every class passed or skipped by its bound: all the role's live arrangements are ranked.
    ranked += end - classStart[c]!;
    if (dead) passed.push([from, c]);
    if (k < end && mayBeReady) readyCountComplete = false;
  }
  if (rankingComplete) ranked = total;
  const result = top.result();
  return {
    top: result,
    evaluated: ranked,
    judged,
    readyCount,
    readyCountComplete,
    rankingComplete,
    matchedWorks: lists.works,
    workSlugs: [...new Set(result.map((r) => catalog.works.slugs.at(catalog.arrangementWork[r.index]!)))],
  };
}

/** Tombstoned arrangements in the classes `passed` ([source, class] pairs). */
function deadIn(
  passed: ReadonlyArray<[number, number]>,
  sources: ReadonlyArray<{ lists: RoleLists; offset: number; dead: Uint8Array | undefined }>,
  work: Int32Array,
): number {
  let n = 0;
  for (const [s, c] of passed) {
    const { lists, offset, dead } = sources[s]!;
    if (!dead) continue;
    for (let k = lists.classStart[c]!; k < lists.classStart[c + 1]!; k++)
      if (dead[work[lists.order[k]! + offset]!]) n++;
  }
  return n;
}

/** A layered catalog's overlay's classes ranked for `q` (as `classBounds`; few, so not kept). */
function overlayBounds(over: ResolveCatalog, q: ResolveRequest): ClassBounds {
  return rankClasses(over, q, bestTextMasks(q.over!));
}

/**
 * Each of the role's bound classes' bound key (boundKey, with `best` as the word matches), and
 * the classes by bound, highest first (equal bounds by class number).
 */
function rankClasses(catalog: ResolveCatalog, q: ResolveRequest, best: TextMasks): ClassBounds {
  const { order, classStart } = catalog.byRole.get(q.role)!;
  const classes = classStart.length - 1;
  const bounds = new Int32Array(classes);
  // Packed as (highest key - bound) * 2^24 + class, so a native numeric sort ranks them.
  const packed = new Float64Array(classes);
  for (let c = 0; c < classes; c++) {
    bounds[c] = boundKey(catalog, order[classStart[c]!]!, q, best);
    packed[c] = (KEY_LIMIT - bounds[c]!) * CLASS_SPAN + c;
  }
  packed.sort();
  return { bounds, byBound: Int32Array.from(packed, (v) => v % CLASS_SPAN) };
}

/** Request shapes whose ranked classes are kept per catalog (a lookup instead of one judgment per class). */
const MAX_BOUND_SHAPES = 256;

/**
 * The role's bound classes ranked for `q`: each class's bound key (boundKey), and the classes by
 * bound, highest first (equal bounds by class number). The bounds depend only on the request's
 * shape (role, narration, formats, required score and profile, whether a duration is asked, and
 * per text field how many words it has and which the vocabulary holds), so they are kept per shape.
 */
function classBounds(catalog: ResolveCatalog, q: ResolveRequest): ClassBounds {
  const best = bestTextMasks(q);
  const t = q.t;
  const shape = [
    q.role,
    q.narration,
    Array.from(t.formatMasks).join('+'),
    q.requireMusicXml,
    q.requireApprovedProfile,
    q.targetSeconds !== null,
    t.styleWords,
    best.style,
    t.instrumentationWords,
    best.instrumentation,
    t.moodWords,
    best.mood,
    best.grade,
    q.style?.negated ?? 0,
    q.instrumentation?.negated ?? 0,
    q.mood?.negated ?? 0,
    q.like ? 1 : 0,
  ].join(',');
  const cache = catalog.scratch.bounds;
  const hit = cache.get(shape);
  if (hit) return hit;
  const ranked = rankClasses(catalog, q, best);
  if (cache.size >= MAX_BOUND_SHAPES) cache.clear();
  cache.set(shape, ranked);
  return ranked;
}

const CLASS_SPAN = 2 ** 24;

function scan(catalog: ResolveCatalog, q: ResolveRequest, found: Found, limits: ResolveLimits): Scan {
  if (found.by === 'catalog') return scanCatalog(catalog, q, limits);
  // Named works: every arrangement of theirs, in catalog order, up to the per-request bound.
  const top = new TopK(MAX_CANDIDATES, catalog.cols);
  const text = { style: 0, instrumentation: 0, mood: 0, grade: 0 };
  let judged = 0;
  let readyCount = 0;
  let rankingComplete = true;
  const orders = found.by === 'work-slug' ? Int32Array.from(found.work ? [found.work.order] : []) : found.orders;
  const first = catalog.works.firstArrangement;
  outer: for (let w = 0; w < orders.length; w++) {
    const order = orders[w]!;
    for (let i = first[order]!; i < first[order + 1]!; i++) {
      if (judged === limits.maxJudged) {
        rankingComplete = false;
        break outer;
      }
      judged++;
      const key = judge(catalog, i, q, textMasksOf(catalog, q, i, text), null);
      if (key & KEY_READY) readyCount++;
      top.offer(key, i);
    }
  }
  return {
    top: top.result(),
    evaluated: judged,
    judged,
    readyCount,
    readyCountComplete: rankingComplete,
    rankingComplete,
    matchedWorks: orders.length,
    workSlugs: Array.from(orders.subarray(0, MAX_LISTED_WORKS), (order) => catalog.works.slugs.at(order)),
  };
}

function searchNote(found: Found, s: Scan, q: ResolveRequest): string {
  switch (found.by) {
    case 'work-slug':
      return found.work
        ? `Work "${found.slug}" found by slug; its ${s.evaluated} arrangement(s) were evaluated. Title and composer are not used when a slug is given.`
        : `No work has slug "${found.slug}". Title and composer are not used when a slug is given.`;
    case 'title-composer':
      return (
        `${s.matchedWorks} work(s) match ${[found.title ? `title "${found.title}"` : '', found.composer ? `composer "${found.composer}"` : ''].filter(Boolean).join(' and ')} (case- and accent-insensitive, any name form, every word must match); their ${s.evaluated} arrangement(s) were evaluated.` +
        boundWords(s)
      );
    case 'catalog':
      return (
        `No work named: ${s.evaluated} arrangement(s) across ${s.matchedWorks} work(s) fit ${q.role} and were evaluated against the requirements ` +
        `(${s.judged} judged one by one; the others shown by an upper bound of their rank to fall below the tenth candidate).` +
        boundWords(s)
      );
  }
}

/** What the per-request bound left out, in words (nothing when it left nothing out). */
function boundWords(s: Scan): string {
  let text = '';
  if (!s.rankingComplete) {
    text += ` The scan stopped at its per-request bound of ${s.judged} judged arrangements: the candidates are the best of those, classes with the highest possible rank first, and a full ranking could differ (rankingComplete: false).`;
  }
  if (!s.readyCountComplete)
    text += ` readyCount counts the ready arrangements among those judged; more may be ready (readyCountComplete: false).`;
  return text;
}

/** What a resolve decided from the index alone, before any record is read. */
export type ResolvePlan = { musicAllowed: false } | { musicAllowed: true; q: ResolveRequest; found: Found; scan: Scan };

/**
 * Search and rank from the catalog's columns (synchronous, no record read). Resolve runs in two
 * steps so a server can read the few records an answer shows between them (`recordsNeeded`).
 */
export function planResolve(
  catalog: ResolveCatalog,
  input: MusicResolveInput,
  limits: ResolveLimits = RESOLVE_LIMITS,
): ResolvePlan {
  if (input.channel.musicAllowed === false) return { musicAllowed: false };
  const q = compileRequest(catalog, input);
  const found = findWorks(catalog, input);
  return { musicAllowed: true, q, found, scan: scan(catalog, q, found, limits) };
}

/**
 * Catalog orders of the works whose full records `finishResolve` reads: the candidates' works, and
 * the one work the request names when the archive holds its score for rights review (the answer
 * names that score and the facts its record says are missing, even when the work has no
 * arrangement to be a candidate).
 */
export function recordsNeeded(catalog: ResolveCatalog, plan: ResolvePlan): number[] {
  if (!plan.musicAllowed) return [];
  const orders = new Set(plan.scan.top.map((t) => catalog.arrangementWork[t.index]!));
  const f = plan.found;
  const named =
    f.by === 'work-slug'
      ? f.work
      : f.by === 'title-composer' && f.orders.length === 1
        ? workAt(catalog, f.orders[0]!)
        : null;
  if (named?.hasHeldScore) orders.add(named.order);
  return [...orders];
}

/** The answer: the plan's candidates explained from their records, and the prepare analysis. */
export function finishResolve(
  catalog: ResolveCatalog,
  plan: ResolvePlan,
  input: MusicResolveInput,
  ctx: ResolveContext,
  records: RecordSource,
): ResolveResult {
  const u = urls(ctx.baseUrl);
  const channel = {
    channelKey: input.channel.channelKey,
    intendedRole: input.channel.intendedRole,
    musicAllowed: input.channel.musicAllowed !== false,
    narrationPresent: input.channel.narrationPresent === true,
  };
  const links = {
    contributionTemplate: u.contributionTemplate,
    contributionSchema: u.contributionSchema,
    contributions: u.contributions,
    workflow: u.workflow,
    works: u.works,
  };
  if (!plan.musicAllowed) {
    return {
      verdict: 'no-music',
      summary: `Channel "${channel.channelKey}" does not allow music (musicAllowed: false), so no candidates are offered.`,
      channel,
      search: {
        by: 'none',
        matchedWorks: 0,
        workSlugs: [],
        arrangementsEvaluated: 0,
        arrangementsJudged: 0,
        readyCount: 0,
        readyCountComplete: true,
        rankingComplete: true,
        note: 'Nothing was searched: the channel carries no music.',
      },
      candidates: [],
      missing: [],
      links,
      catalogGeneratedAtUtc: ctx.catalogGeneratedAtUtc,
    };
  }

  const { q, found, scan: s } = plan;
  const explained = s.top.map((t) => ({ index: t.index, ev: evaluate(catalog, t.index, q, records) }));
  const candidates = explained.map((x, k) => candidateOf(catalog, records, x.index, x.ev, k + 1, q));
  const verdict: ResolveVerdict = candidates[0]?.ready ? 'reuse' : 'prepare';
  const bestFit = explained.find((x) => x.ev.roleFit) ?? null;
  const missing =
    verdict === 'prepare'
      ? analyzeMissing({
          catalog,
          records,
          found,
          request: q,
          best: bestFit && { index: bestFit.index, evaluation: bestFit.ev },
        })
      : [];

  const first = candidates[0];
  const summary =
    verdict === 'reuse' && first
      ? `Reuse ${first.workSlug} arrangement ${first.arrangementId} ("${first.arrangementTitle}") for ${q.role}: ready, with license ${first.license ?? 'none recorded'}.` +
        (!s.readyCountComplete
          ? ` At least ${s.readyCount} ready arrangement(s).`
          : s.readyCount > 1
            ? ` ${s.readyCount} ready arrangement(s) in all.`
            : '')
      : preferenceOnly(candidates, q) +
        (missing.length > 0
          ? `Missing: ${missing.map((m) => (m.format ? `${m.what} (${m.format})` : m.what)).join(', ')}; see missing[] for the contribution that would supply each.`
          : '');
  return {
    verdict,
    summary,
    channel,
    search: {
      by: found.by,
      matchedWorks: s.matchedWorks,
      workSlugs: s.workSlugs,
      arrangementsEvaluated: s.evaluated,
      arrangementsJudged: s.judged,
      readyCount: s.readyCount,
      readyCountComplete: s.readyCountComplete,
      rankingComplete: s.rankingComplete,
      note: searchNote(found, s, q),
    },
    candidates,
    missing,
    links,
    catalogGeneratedAtUtc: ctx.catalogGeneratedAtUtc,
  };
}

/** Requirements a caller states as wishes about the music itself; the rest is clearance and files. */
const PREFERENCES = new Set(['style', 'instrumentation', 'mood', 'duration']);

/**
 * The first sentence of a `prepare` summary. When some candidates fail only preferences (style,
 * instrumentation, mood, duration) and are otherwise cleared, it says so and names the failed
 * preference, instead of a bare "nothing is ready": the caller may relax a wish.
 */
function preferenceOnly(candidates: ResolveCandidate[], q: ResolveRequest): string {
  const near = candidates.filter((c) => {
    const failed = c.reasons.filter((r) => !r.passed);
    return failed.length > 0 && failed.every((r) => PREFERENCES.has(r.requirement));
  });
  if (near.length === 0) return `Nothing is ready for ${q.role}. `;
  const failed = [...new Set(near.flatMap((c) => c.reasons.filter((r) => !r.passed).map((r) => r.requirement)))];
  const wish = (r: string) =>
    r === 'duration'
      ? `duration ${q.targetSeconds} s`
      : `${r} "${(r === 'style' ? q.style : r === 'mood' ? q.mood : q.instrumentation)?.text ?? ''}"`;
  const first = near[0]!;
  return (
    `No candidate meets every requirement for ${q.role}, but ${near.length} shown ${near.length === 1 ? 'is' : 'are'} cleared and fail${near.length === 1 ? 's' : ''} only the ${failed.length === 1 ? 'preference' : 'preferences'} ${failed.map(wish).join(' and ')} ` +
    `(first: ${first.workSlug} arrangement ${first.arrangementId}, position ${first.position}); relax ${failed.length === 1 ? 'it' : 'them'} to reuse one as is. `
  );
}

/** Both steps at once, for a catalog whose records are at hand (by default its own, in memory). */
export function resolveMusic(
  catalog: ResolveCatalog,
  input: MusicResolveInput,
  ctx: ResolveContext,
  records?: RecordSource,
  limits: ResolveLimits = RESOLVE_LIMITS,
): ResolveResult {
  const plan = planResolve(catalog, input, limits);
  return finishResolve(catalog, plan, input, ctx, records ?? ((order) => inMemoryRecords(catalog)(order)));
}
