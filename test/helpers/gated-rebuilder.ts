/**
 * The one fake rebuilder: it holds every rebuild-and-swap until `open()`, then fails (with `fail`
 * set, or when `failWhen()` says so) or runs the real rebuild it wraps. Tests of the apply pipeline
 * use it to see an apply in flight ("applying"), to queue several behind one build, and to make a
 * build fail on purpose (`fail`, or `failWhen(text)` over the work file as main holds it, which
 * is what a real build builds, so only some merges break the build); opened at once with `fail` set it is simply a rebuilder whose builds fail.
 */
import type { SiteRebuilder, SwapResult } from '../../api/site/builds.ts';
import { git } from '../../api/site/content-repo.ts';
import type { ReconcileStatus } from '../../src/schemas/reconcile.ts';

export class GatedRebuilder implements SiteRebuilder {
  private release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  private readonly inner: SiteRebuilder;
  /** The content repository whose work file `failWhen` reads. */
  private readonly contentRepo: string | null;
  /** The work the simulated failure names (as the build's own message would). */
  private readonly work: string;
  fail = false;
  failWhen: ((workFile: string) => boolean) | null = null;
  calls = 0;

  constructor(inner: SiteRebuilder, options: { contentRepo?: string; work?: string } = {}) {
    this.inner = inner;
    this.contentRepo = options.contentRepo ?? null;
    this.work = options.work ?? 'bach-minuet-in-g';
  }

  private async failing(): Promise<boolean> {
    if (this.fail) return true;
    if (!this.failWhen || !this.contentRepo) return false;
    // From main's commit, as a build reads it (the main checkout may still be following a merge).
    return this.failWhen(await git(this.contentRepo, ['show', `refs/heads/main:works/${this.work}/index.md`]));
  }

  open(): void {
    this.release();
  }

  async rebuildAndSwap(): Promise<SwapResult> {
    this.calls++;
    await this.gate;
    if (await this.failing())
      throw new Error(`build failed (exit 1): works/${this.work}/index.md: simulated build failure`);
    return this.inner.rebuildAndSwap();
  }

  prepare(): Promise<void> {
    return this.inner.prepare?.() ?? Promise.resolve();
  }

  reconcileServed(): void {
    this.inner.reconcileServed?.();
  }

  requestReconcile(): ReconcileStatus {
    return this.inner.requestReconcile();
  }

  reconcileStatus(): ReconcileStatus {
    return this.inner.reconcileStatus();
  }

  close(): void | Promise<void> {
    return this.inner.close?.();
  }
}
