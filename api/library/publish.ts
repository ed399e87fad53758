/**
 * Publication (spec Part 3: private -> public): a curator publishes an eligible package as a new
 * arrangement of a canonical work. The package becomes public through the content repository and
 * the rebuild-and-swap path, never by serving library files directly. With the same machinery as
 * an editor's apply (api/site/content-proposal.ts), never a checkout or a lint of the
 * whole catalog:
 *
 *   1. under the content-repository lock, a proposal on HEAD; a partial copy of it (the
 *      shared files and the named work's folder) gives the work and its lint messages before;
 *   2. check eligibility against that work (src/domain/library/eligibility.ts);
 *   3. add the arrangement to works/<slug>/index.md (blob references, no re-upload; the file is
 *      read from HEAD with `cat-file`), add it to the proposal, lint the changed work again (a
 *      message it did not have before refuses), and commit with plumbing (`commit-tree`), the
 *      curator as author;
 *   4. build that commit incrementally from the served build, in the rebuilder's persistent
 *      checkout; a failed build changes nothing (the branch never moved);
 *   5. record the commit as a pending publication, fast-forward the branch, rebuild-and-swap
 *      (which finds the build of step 4 complete);
 *   6. set visibility `public`.
 *
 * If the process dies between 5 and 6, the pending publication is settled on the next read or
 * publish: public if its commit reached the branch (which the next start builds), else dropped.
 */
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.ts';
import type { Principal } from '../http/auth.ts';
import { ensureIncrementalBuild } from '../site/builds.ts';
import { ContentProposal } from '../site/content-proposal.ts';
import { git, moveMain, withContentRepoLock } from '../site/content-repo.ts';
import { formatLintMessage, type LoadedWork } from '../../src/domain/catalog.ts';
import { checkPartialCopy } from '../../src/domain/content-lint.ts';
import { checkEligibility, readRightsEvidence, type RefusalReason } from '../../src/domain/library/eligibility.ts';
import { SLUG_PATTERN } from '../../src/schemas/common.ts';
import { addArrangementToWorkFile, buildArrangement } from '../../src/domain/library/publication.ts';
import type { StoredImport, StoredPublication, StoredTrack } from '../../src/domain/library/model.ts';
import type { LibraryStore } from './store.ts';
import type { LibraryImports } from './imports.ts';
import type { Failpoint } from './failpoints.ts';
import { ProblemError } from '../http/problem.ts';

export type PublishedTrack = StoredTrack & { publication: StoredPublication };

export class LibraryPublisher {
  private readonly ctx: AppContext;
  private readonly store: LibraryStore;
  private readonly imports: LibraryImports;
  private readonly log: FastifyBaseLogger;
  private readonly inFlight = new Set<string>();
  private readonly failpoint: Failpoint;

  constructor(
    ctx: AppContext,
    store: LibraryStore,
    imports: LibraryImports,
    log: FastifyBaseLogger,
    failpoint: Failpoint,
  ) {
    this.ctx = ctx;
    this.store = store;
    this.imports = imports;
    this.log = log;
    this.failpoint = failpoint;
  }

  private async landed(commit: string): Promise<boolean> {
    try {
      await git(this.ctx.config.contentRepo, ['merge-base', '--is-ancestor', commit, 'HEAD']);
      return true;
    } catch {
      return false;
    }
  }

  /** Settle a publication a crash interrupted (no-op while this process is publishing it). */
  async settle(track: StoredTrack): Promise<StoredTrack> {
    if (!track.pendingPublication || this.inFlight.has(track.stableKey)) return track;
    return this.settleNow(track);
  }

  private async settleNow(track: StoredTrack): Promise<StoredTrack> {
    const pending = track.pendingPublication;
    if (!pending) return track;
    const landed = await this.landed(pending.commit);
    const updated = await this.store.tracks.update(track.stableKey, (t) =>
      t.pendingPublication?.commit !== pending.commit
        ? undefined
        : landed
          ? { ...t, visibility: 'public', publication: pending, pendingPublication: null }
          : { ...t, pendingPublication: null },
    );
    return updated ?? track;
  }

  async publish(stableKey: string, curator: Principal): Promise<PublishedTrack> {
    const pkg = await this.imports.committedTrack(stableKey);
    if (!pkg) throw new ProblemError('not-found', `No library package has the stableKey "${stableKey}".`);
    if (this.inFlight.has(stableKey))
      throw new ProblemError(
        'conflict',
        'A publication of this package is already in progress; read the package in a moment to see its outcome.',
      );
    this.inFlight.add(stableKey);
    try {
      const track = await this.settleNow(pkg.track);
      // Publishing twice is answered with the first publication (a retry after a lost answer).
      if (track.visibility === 'public' && track.publication) return track as PublishedTrack;
      return await withContentRepoLock(this.ctx.config.contentRepo, () => this.publishLocked(pkg.rec, curator));
    } finally {
      this.inFlight.delete(stableKey);
    }
  }

  private async publishLocked(rec: StoredImport, curator: Principal): Promise<PublishedTrack> {
    const { config } = this.ctx;
    const repo = config.contentRepo;
    const stableKey = rec.track.stableKey;
    const head = await git(repo, ['rev-parse', 'HEAD']);
    const proposal = await ContentProposal.open(repo, path.join(config.dataDir, 'worktrees'), 'publication', head);
    try {
      // The work the evidence names, as HEAD holds it (a slug is its folder's name).
      const slug = readRightsEvidence(rec.track.rightsEvidence).workSlug;
      const workFile = slug !== null && SLUG.test(slug) ? `works/${slug}/index.md` : null;
      let work: LoadedWork | null = null;
      let known = new Set<string>();
      if (workFile) {
        const before = (await proposal.checkChanged([workFile], checkPartialCopy)).result;
        work = before.catalog.works.find((w) => w.content.slug === slug && w.file === workFile) ?? null;
        known = new Set(before.messages.map(formatLintMessage));
      }
      const verdict = checkEligibility({
        track: rec.track,
        files: rec.files.map((f) => ({
          id: f.id,
          kind: f.kind,
          contentType: f.contentType,
          fileName: f.fileName,
          byteLength: f.verified!.byteLength,
          sha256: f.verified!.sha256,
        })),
        findWork: (s) => (work && work.content.slug === s ? work.content : null),
      });
      if (!verdict.plan || !work) throw refuse(verdict.reasons);
      const publishedAtUtc = new Date().toISOString();
      const draft = buildArrangement({
        track: rec.track,
        plan: verdict.plan,
        curator: curator.label,
        nowUtc: publishedAtUtc,
      });
      const text = await proposal.readBase(work.file);
      let edited: string;
      try {
        if (text === null) throw new Error('is not in the content repository');
        edited = addArrangementToWorkFile(text.toString('utf8'), draft.arrangement);
      } catch (err) {
        throw refuse([{ condition: 'content-check', detail: `${work.file}: ${(err as Error).message}` }]);
      }
      await proposal.write([{ path: work.file, content: edited }]);
      // Only the changed work is linted (with the shared files); a message it had before is not this change's.
      const after = (await proposal.checkChanged([work.file], checkPartialCopy)).result;
      const fresh = after.messages.map(formatLintMessage).filter((m) => !known.has(m));
      if (fresh.length > 0) throw refuse(fresh.map((detail) => ({ condition: 'content-check', detail })));

      const commit = await proposal.commit(
        [
          `Publish library track ${stableKey} as arrangement ${draft.arrangement.id} of ${work.content.slug}`,
          '',
          `Curator: ${curator.label}`,
          `Library track: ${stableKey}`,
          `Import: ${rec.id}`,
          `Files: ${draft.assetIds.length} blob reference(s) from the library store, no re-upload`,
          '',
        ].join('\n'),
        `${curator.label} <${curator.label}@curators.archive.invalid>`,
      );
      try {
        // Incrementally from the served build, as an apply builds; the swap below finds it complete.
        // In the rebuilder's persistent checkout, moved to the commit (only the changed file is written).
        await ensureIncrementalBuild(config, commit, this.ctx.handle.current.dir, { worktree: 'rebuild' });
      } catch (err) {
        this.log.error({ err }, 'publication build failed');
        throw new ProblemError(
          'internal-error',
          'The site did not build with the new arrangement. Nothing was published and the content repository is unchanged; an operator must look at the build output.',
        );
      }

      const publication: StoredPublication = {
        publishedAtUtc,
        publishedBy: curator.label,
        workSlug: work.content.slug,
        arrangementId: draft.arrangement.id,
        assetIds: draft.assetIds,
        commit,
      };
      await this.store.tracks.update(stableKey, (t) => ({ ...t, pendingPublication: publication }));
      this.failpoint('publish-before-merge');
      try {
        // A fast-forward by plumbing: main moves only if it still names `head`.
        await moveMain(repo, head, commit, 'publish an arrangement');
      } catch {
        await this.store.tracks.update(stableKey, (t) => ({ ...t, pendingPublication: null }));
        throw new ProblemError(
          'conflict',
          'The content repository changed while publishing; nothing was published. Retry the publication.',
        );
      }
      this.failpoint('publish-after-merge');
      try {
        await this.ctx.rebuilder.rebuildAndSwap();
      } catch (err) {
        this.log.error({ err }, 'publication rebuild failed; moving the branch back');
        await moveMain(repo, commit, head, 'undo a publication whose build failed');
        await this.store.tracks.update(stableKey, (t) => ({ ...t, pendingPublication: null }));
        throw new ProblemError(
          'internal-error',
          'The site could not be rebuilt with the new arrangement. Nothing was published; the content repository was moved back.',
        );
      }
      const updated = await this.store.tracks.update(stableKey, (t) => ({
        ...t,
        visibility: 'public',
        publication,
        pendingPublication: null,
      }));
      return updated as PublishedTrack;
    } finally {
      proposal.dispose();
    }
  }
}

const SLUG = new RegExp(SLUG_PATTERN);

function refuse(reasons: RefusalReason[]): ProblemError {
  return new ProblemError(
    'publication-refused',
    `The package is not eligible for publication (${reasons.length} failed condition(s)): ${reasons.map((r) => r.detail).join(' ')}`,
    { reasons },
  );
}
