/**
 * The start's preparation (`Rebuilder.prepare`): the rebuilds' persistent checkout moved to the
 * content's HEAD, then, with the warm build process and its warm-up on, the warm-up
 * (build/warm-up.ts; docs/decisions/0053-warm-renderer.md): the process plans a build on the
 * served build and renders its pages into a scratch folder it removes, so the first apply finds the
 * catalog loaded and Astro's pages compiled.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { WarmUpResult } from '../../build/warm-up.ts';
import { buildInChild } from './child-builds.ts';
import { git } from './content-repo.ts';
import { serverBuildOptions } from './ensure-build.ts';
import type { RebuildCore } from './rebuild-core.ts';
import { isCompleteBuild } from './served.ts';
import { checkoutPersistent, persistentWorktreePath, withWorktree } from './worktrees.ts';

/** How long a stopping server waits for its start's checkout and warm-up to end once stopped. */
const PREPARE_STOP_WAIT_MS = 10_000;

/** The start's warm-up of the warm build process (`Rebuilder.prepare`), for the log. */
export interface WarmUpEvent {
  /** `skipped`: the served build cannot be built on (the first apply is a full build; `result.skipped` says why). */
  outcome: 'done' | 'skipped' | 'failed' | 'cancelled';
  /** The served build it planned on. */
  base: string;
  durationMs: number;
  /** Of it, waiting for the build checkout and moving it to the content's HEAD. */
  checkoutMs: number;
  /** The warm-up's own figures (build/warm-up.ts), when it ran. */
  result?: WarmUpResult;
  error?: string;
}

/** The server's log line for the warm-up's end. */
export function warmUpLogLine(event: WarmUpEvent): string {
  const r = event.result;
  const what = r?.skipped
    ? `: ${r.skipped}`
    : r
      ? `: ${r.works} works, catalog ${r.snapshotRead ? `read in ${r.phases.loadMs ?? 0} ms` : 'already in memory'}, pages ${r.renderer?.kind === 'warm' ? 'already compiled' : `compiled and rendered in ${r.phases.astroMs ?? 0} ms`}, ${r.searchFailed !== undefined ? `no search shard indexed (${r.searchFailed.split('\n')[0]!.slice(0, 200)})` : `one search shard indexed again in ${r.phases.searchMs ?? 0} ms`}`
      : '';
  return `warm build process warm-up on ${event.base}: ${event.outcome} in ${event.durationMs} ms${what}${event.error ? ` (${event.error.split('\n')[0]!.slice(0, 300)})` : ''}`;
}

export class StartPreparation {
  private readonly core: RebuildCore;
  private readonly warmUp: boolean;
  private readonly onWarmUp: ((event: WarmUpEvent) => void) | undefined;
  /** The start's preparation (`prepare`) while it runs; `close()` stops and waits for it. */
  private preparing: Promise<void> | null = null;
  private readonly prepareAbort = new AbortController();
  /** Stops the start's warm-up (`close()`). */
  private warmUpAbort: AbortController | null = null;

  constructor(core: RebuildCore, options: { warmUp?: boolean; onWarmUp?: (event: WarmUpEvent) => void }) {
    this.core = core;
    this.warmUp = options.warmUp ?? false;
    this.onWarmUp = options.onWarmUp;
  }

  /**
   * On start: make the rebuilder's persistent checkout hold HEAD now (one full checkout in the
   * background when it is new or was left broken), so the first apply only moves it; then, with
   * the warm build process and its warm-up on (`warmUp`), warm the process up on the served build
   * (`warmUpBuilder`). A rebuild that comes meanwhile waits for both (the checkout's lock). Never
   * rejects.
   */
  prepare(): Promise<void> {
    // The warm build process is started at once, before any await: the server calls this while it
    // starts, before it listens (api/site/warm-builder.ts, `prestart`).
    if (this.core.builder && this.warmUp) this.core.builder.prestart();
    const preparing = this.prepareNow().finally(() => {
      if (this.preparing === preparing) this.preparing = null;
    });
    this.preparing = preparing;
    return preparing;
  }

  private async prepareNow(): Promise<void> {
    const { config } = this.core;
    const dir = persistentWorktreePath(config, 'rebuild');
    const asked = Date.now();
    let head: string;
    try {
      head = await git(config.contentRepo, ['rev-parse', 'HEAD']);
      mkdirSync(path.dirname(dir), { recursive: true });
    } catch {
      return; // The next rebuild makes the checkout.
    }
    if (!this.core.builder || !this.warmUp) {
      await withWorktree(dir, () => checkoutPersistent(config, dir, head, this.prepareAbort.signal)).catch(
        () => undefined,
      );
      return;
    }
    await this.warmUpBuilder(dir, head, asked);
  }

  /**
   * The warm-up (build/warm-up.ts): in the checkout's lock, the checkout moved to `head`,
   * then the warm build process plans a build of it on the served build and renders its pages into
   * ARCHIVE_DATA_DIR/warm-up, which it removes. It fails (logged, nothing else changes) when the
   * served build is not complete or cannot be built on; `close()` cancels it.
   */
  private async warmUpBuilder(dir: string, head: string, asked: number): Promise<void> {
    const { config } = this.core;
    const base = this.core.handle.current.dir;
    const outDir = path.join(config.dataDir, 'warm-up');
    const abort = (this.warmUpAbort = new AbortController());
    let checkoutMs = 0;
    const event = (outcome: WarmUpEvent['outcome'], extra: Partial<WarmUpEvent> = {}) =>
      this.onWarmUp?.({
        outcome,
        base: path.basename(base),
        durationMs: Date.now() - asked,
        checkoutMs,
        ...extra,
      });
    try {
      await withWorktree(dir, async () => {
        await checkoutPersistent(config, dir, head, this.prepareAbort.signal);
        checkoutMs = Date.now() - asked;
        if (this.core.closed || abort.signal.aborted) throw new Error('build cancelled');
        if (!isCompleteBuild(base)) throw new Error(`the served build ${path.basename(base)} is not complete`);
        await buildInChild(dir, outDir, config.publicBaseUrl, {
          ...serverBuildOptions(config),
          commit: head,
          incrementalFrom: base,
          builder: this.core.builder,
          signal: abort.signal,
          warmUp: true,
          onWarmBuild: (r) => event(r.warmUp?.skipped ? 'skipped' : 'done', { result: r.warmUp }),
        });
      });
    } catch (err) {
      rmSync(outDir, { recursive: true, force: true });
      event(abort.signal.aborted || this.core.closed ? 'cancelled' : 'failed', { error: (err as Error).message });
    } finally {
      if (this.warmUpAbort === abort) this.warmUpAbort = null;
    }
  }

  /** Stop the checkout's git processes and the warm-up at once. */
  stop(): void {
    this.prepareAbort.abort();
    this.warmUpAbort?.abort();
  }

  /** Resolves once the preparation stopped (its git processes end at once on the abort; the wait is bounded all the same). */
  stopped(): Promise<void> {
    if (!this.preparing) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      this.preparing,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, PREPARE_STOP_WAIT_MS).unref())),
    ]).finally(() => clearTimeout(timer));
  }
}
