/**
 * Listening approval of rendered audio (docs/audio.md, "Listening approval";
 * docs/decisions/0037-rendered-audio-fluidsynth.md). A listener who heard a score's rendered master gives a verdict
 * (approved or declined) that names the audio heard by its SHA-256; the verdict is a fact in the
 * content repository: the score asset's `listening` in the work file (verdict, digest, the
 * listener's key label, the time), committed with the listener as its author, then built like
 * any change. The review state is derived from it by the build (src/domain/audio/listening.ts):
 * approved only while the named digest is the master it serves.
 *
 * Refused, changing nothing: a key without an operator-given label (403: an approval names an
 * accountable person), a work or asset the served build does not have (404), an asset with no
 * rendered audio to hear (409), and a verdict whose `audioSha256` is not the master served now
 * (409: nobody approves audio they did not hear). The desk (api/desk/listening.ts) and the admin
 * API (listening-routes.ts) both call `record`, so the two cannot disagree.
 */
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import { ContentProposal } from '../site/content-proposal.ts';
import { git, moveMain, withContentRepoLock } from '../site/content-repo.ts';
import { checkPartialCopy } from '../../src/domain/content-lint.ts';
import { formatLintMessage } from '../../src/domain/catalog.ts';
import { parseFrontMatter, rewriteWorkFile, splitWorkFile } from '../../src/domain/work-file.ts';
import { heardFile } from '../../src/domain/audio/listening.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { SLUG_PATTERN } from '../../src/schemas/common.ts';
import type { ListeningFact, RenderedAudio } from '../../src/schemas/audio.ts';
import type { ArrangementRecord, AssetRecord, WorkRecord } from '../../src/schemas/work.ts';
import type { ListeningBody, ListeningOutcome } from '../../src/schemas/listening.ts';
import type { ReviewActor } from './core.ts';

const SLUG = new RegExp(SLUG_PATTERN);
const SCORE_KINDS = new Set(['musicxml', 'mxl']);

/** One score of a work with rendered audio to hear: what the desk lists and a verdict is about. */
export interface Listenable {
  asset: AssetRecord;
  /** The arrangement the score belongs to; null for a source score. */
  arrangement: ArrangementRecord | null;
  audio: RenderedAudio;
  /** The file heard and named by a verdict (master.flac). */
  heard: RenderedAudio['files'][number];
}

/** Every score of a work record whose rendered audio can be heard, sources first, in record order. */
export function listenableScores(record: WorkRecord): Listenable[] {
  const out: Listenable[] = [];
  const add = (asset: AssetRecord, arrangement: ArrangementRecord | null) => {
    const audio = asset.renderedAudio;
    if (!SCORE_KINDS.has(asset.kind) || audio?.status !== 'rendered') return;
    const heard = heardFile(audio.files);
    if (heard) out.push({ asset, arrangement, audio, heard });
  };
  for (const a of record.sourceAssets) add(a, null);
  for (const arr of record.arrangements) for (const a of arr.assets) add(a, arr);
  return out;
}

export class ListeningService {
  private readonly ctx: AppContext;
  private readonly now: () => Date;
  logger: { error: (obj: unknown, msg: string) => void } = { error: () => undefined };

  constructor(ctx: AppContext, options: { now?: () => Date } = {}) {
    this.ctx = ctx;
    this.now = options.now ?? (() => new Date());
  }

  /** The served work record, or a 404. */
  async work(slug: string): Promise<WorkRecord> {
    const record = SLUG.test(slug) ? await this.ctx.handle.current.catalog.records.get(slug) : null;
    if (!record) throw new ProblemError('not-found', `The served catalog has no work "${slug}".`);
    return record;
  }

  /** The score asset's rendered audio as the served build has it, or why a verdict cannot be given on it. */
  async target(slug: string, assetId: number): Promise<Listenable & { work: WorkRecord }> {
    const work = await this.work(slug);
    const asset = [...work.sourceAssets, ...work.arrangements.flatMap((a) => a.assets)].find((a) => a.id === assetId);
    if (!asset) throw new ProblemError('not-found', `Work "${slug}" has no asset ${assetId}.`);
    const found = listenableScores(work).find((l) => l.asset.id === assetId);
    if (!found) {
      const why = !SCORE_KINDS.has(asset.kind)
        ? `asset ${assetId} is a ${asset.kind} file, not a score: only audio the archive rendered from a score takes a listening verdict here (a contributed recording's review state is asserted at review).`
        : `asset ${assetId} has no rendered audio to hear (${asset.renderedAudio ? `${asset.renderedAudio.status}: ${asset.renderedAudio.reason ?? ''}` : 'this build rendered none'}).`;
      throw new ProblemError('conflict', `No verdict can be given: ${why}`.trim());
    }
    return { ...found, work };
  }

  /**
   * Record a listener's verdict: checked against the served audio, committed to the content
   * repository, then built (`wait`: the answer follows the rebuild; else it runs in the background).
   */
  async record(
    slug: string,
    assetId: number,
    body: ListeningBody,
    actor: ReviewActor,
    options: { wait?: boolean } = {},
  ): Promise<ListeningOutcome> {
    if (!actor.operatorLabeled)
      throw new ProblemError(
        'forbidden',
        `Listening approval is asserted by an accountable person: the key "${actor.label}" has no operator-given label. Configure the key as label=secret in ARCHIVE_ADMIN_KEYS (the label is recorded in the commit and the work file) and act with it.`,
      );
    const target = await this.target(slug, assetId);
    const named = body.audioSha256.toLowerCase();
    if (named !== target.heard.sha256)
      throw new ProblemError(
        'conflict',
        `audioSha256 names ${named}, but the audio served for asset ${assetId} is master.flac ${target.heard.sha256}: a verdict names the audio heard, and this is not it (the score may have been rendered again since). Listen to the current audio and send its digest.`,
        { servedAudioSha256: target.heard.sha256 },
      );
    const fact: ListeningFact = {
      verdict: body.verdict,
      audioSha256: named,
      listener: actor.label,
      atUtc: utcTimestamp(this.now()),
    };
    const commit = await withContentRepoLock(this.ctx.config.contentRepo, () => this.commit(slug, assetId, fact));
    let visible = false;
    const rebuild = this.ctx.rebuilder.rebuildAndSwap().then(
      async () => {
        const served = await this.ctx.handle.current.catalog.records.get(slug);
        const asset =
          served &&
          [...served.sourceAssets, ...served.arrangements.flatMap((a) => a.assets)].find((a) => a.id === assetId);
        visible = asset?.renderedAudio?.listening?.atUtc === fact.atUtc;
      },
      (err: unknown) => this.logger.error({ err }, 'rebuild after a listening verdict failed; the next build shows it'),
    );
    if (options.wait ?? true) await rebuild;
    const base = this.ctx.config.publicBaseUrl;
    return {
      workSlug: slug,
      assetId,
      listening: fact,
      commit,
      state: visible ? 'visible' : 'recorded',
      links: { work: `${base}/api/v1/works/${slug}`, provenance: target.audio.links.provenance },
    };
  }

  /** The work file with the verdict on the asset, committed on main (the repository's lock held). */
  private async commit(slug: string, assetId: number, fact: ListeningFact): Promise<string> {
    const { config } = this.ctx;
    const repo = config.contentRepo;
    const head = await git(repo, ['rev-parse', 'HEAD']);
    const file = `works/${slug}/index.md`;
    const proposal = await ContentProposal.open(repo, path.join(config.dataDir, 'worktrees'), 'listening', head);
    try {
      const text = (await proposal.readBase(file))?.toString('utf8') ?? null;
      if (text === null)
        throw new ProblemError('conflict', `The content repository no longer has ${file}; nothing was recorded.`);
      const before = parseFrontMatter(splitWorkFile(text).frontMatter);
      const after = structuredClone(before) as {
        sourceAssets?: Record<string, unknown>[];
        arrangements?: { assets?: Record<string, unknown>[] }[];
      };
      const assets = [...(after.sourceAssets ?? []), ...(after.arrangements ?? []).flatMap((a) => a.assets ?? [])];
      const asset = assets.find((a) => a.id === assetId);
      if (!asset || !SCORE_KINDS.has(String(asset.kind)))
        throw new ProblemError(
          'conflict',
          `${file} no longer has score asset ${assetId} (it changed since the site was built); nothing was recorded.`,
        );
      asset.listening = { ...fact };
      const known = new Set(
        (await proposal.checkChanged([file], checkPartialCopy)).result.messages.map(formatLintMessage),
      );
      await proposal.write([{ path: file, content: rewriteWorkFile(text, before, after as Record<string, unknown>) }]);
      const fresh = (await proposal.checkChanged([file], checkPartialCopy)).result.messages
        .map(formatLintMessage)
        .filter((m) => !known.has(m));
      if (fresh.length > 0)
        throw new ProblemError(
          'conflict',
          `The verdict would not pass the content lint; nothing was recorded: ${fresh.join(' ')}`,
        );
      const commit = await proposal.commit(
        [
          `Listening: ${fact.verdict} the rendered audio of ${slug} asset ${assetId}`,
          '',
          `Listener: ${fact.listener}`,
          `Heard: master.flac sha256 ${fact.audioSha256}`,
          `At: ${fact.atUtc}`,
          '',
        ].join('\n'),
        `${fact.listener} <${fact.listener}@listeners.archive.invalid>`,
      );
      await moveMain(repo, head, commit, 'record a listening verdict');
      return commit;
    } finally {
      proposal.dispose();
    }
  }
}
