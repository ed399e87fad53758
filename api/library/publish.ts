/**
 * Publication (spec Part 3: private -> public): a curator publishes an eligible package as a new
 * arrangement of a canonical work. The package becomes public through the content repository and
 * the rebuild-and-swap path, never by serving library files directly:
 *
 *   1. under the content-repository lock, check out HEAD in a scratch worktree;
 *   2. check eligibility against that checkout (src/domain/library/eligibility.ts);
 *   3. add the arrangement to works/<slug>/index.md (blob references, no re-upload), re-run the
 *      content checks, commit with the curator as author;
 *   4. build that commit; a failed build changes nothing (the branch never moved);
 *   5. record the commit as a pending publication, fast-forward the branch, rebuild-and-swap;
 *   6. set visibility `public`.
 *
 * If the process dies between 5 and 6, the pending publication is settled on the next read or
 * publish: public if its commit reached the branch (which the next start builds), else dropped.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.ts';
import type { Principal } from '../http/auth.ts';
import { ensureIncrementalBuild } from '../site/builds.ts';
import { git, withContentRepoLock } from '../site/content-repo.ts';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';
import { checkEligibility, type RefusalReason } from '../../src/domain/library/eligibility.ts';
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

  constructor(ctx: AppContext, store: LibraryStore, imports: LibraryImports, log: FastifyBaseLogger, failpoint: Failpoint) {
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
    if (this.inFlight.has(stableKey)) throw new ProblemError('conflict', 'A publication of this package is already in progress; read the package in a moment to see its outcome.');
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
    const scratch = path.join(config.dataDir, 'worktrees', `publish-${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}`);
    await git(repo, ['worktree', 'prune']);
    await git(repo, ['worktree', 'add', '--detach', '--force', scratch, head]);
    try {
      const before = loadCatalog(scratch);
      const works = new Map(before.catalog.works.map((w) => [w.content.slug, w]));
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
        findWork: (slug) => works.get(slug)?.content ?? null,
      });
      if (!verdict.plan) throw refuse(verdict.reasons);
      const publishedAtUtc = new Date().toISOString();
      const draft = buildArrangement({ track: rec.track, plan: verdict.plan, curator: curator.label, nowUtc: publishedAtUtc });
      const work = works.get(verdict.plan.work.slug)!;
      const workFile = path.join(scratch, work.file);
      let edited: string;
      try {
        edited = addArrangementToWorkFile(await fs.readFile(workFile, 'utf8'), draft.arrangement);
      } catch (err) {
        throw refuse([{ condition: 'content-check', detail: `${work.file}: ${(err as Error).message}` }]);
      }
      await fs.writeFile(workFile, edited);
      const known = new Set(before.messages.map(formatLintMessage));
      const fresh = loadCatalog(scratch).messages.map(formatLintMessage).filter((m) => !known.has(m));
      if (fresh.length > 0) throw refuse(fresh.map((detail) => ({ condition: 'content-check', detail })));

      await git(scratch, ['add', '--', work.file]);
      await git(scratch, [
        'commit',
        '--quiet',
        '--author',
        `${curator.label} <${curator.label}@curators.archive.invalid>`,
        '-m',
        `Publish library track ${stableKey} as arrangement ${draft.arrangement.id} of ${work.content.slug}`,
        '-m',
        [
          `Curator: ${curator.label}`,
          `Library track: ${stableKey}`,
          `Import: ${rec.id}`,
          `Files: ${draft.assetIds.length} blob reference(s) from the library store, no re-upload`,
        ].join('\n'),
      ]);
      const commit = await git(scratch, ['rev-parse', 'HEAD']);
      try {
        // Incrementally from the served build, as an apply builds (issue 12); the swap below finds it complete.
        await ensureIncrementalBuild(config, commit, this.ctx.handle.current.dir);
      } catch (err) {
        this.log.error({ err }, 'publication build failed');
        throw new ProblemError('internal-error', 'The site did not build with the new arrangement. Nothing was published and the content repository is unchanged; an operator must look at the build output.');
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
        await git(repo, ['merge', '--ff-only', '--quiet', commit]);
      } catch {
        await this.store.tracks.update(stableKey, (t) => ({ ...t, pendingPublication: null }));
        throw new ProblemError('conflict', 'The content repository changed while publishing; nothing was published. Retry the publication.');
      }
      this.failpoint('publish-after-merge');
      try {
        await this.ctx.rebuilder.rebuildAndSwap();
      } catch (err) {
        this.log.error({ err }, 'publication rebuild failed; moving the branch back');
        await git(repo, ['reset', '--hard', '--quiet', head]);
        await this.store.tracks.update(stableKey, (t) => ({ ...t, pendingPublication: null }));
        throw new ProblemError('internal-error', 'The site could not be rebuilt with the new arrangement. Nothing was published; the content repository was moved back.');
      }
      const updated = await this.store.tracks.update(stableKey, (t) => ({ ...t, visibility: 'public', publication, pendingPublication: null }));
      return updated as PublishedTrack;
    } finally {
      await git(repo, ['worktree', 'remove', '--force', scratch]).catch(() => fs.rm(scratch, { recursive: true, force: true }));
    }
  }
}

function refuse(reasons: RefusalReason[]): ProblemError {
  return new ProblemError('publication-refused', `The package is not eligible for publication (${reasons.length} failed condition(s)): ${reasons.map((r) => r.detail).join(' ')}`, { reasons });
}
