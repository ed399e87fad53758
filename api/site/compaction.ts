/**
 * The background compaction of a served layer (docs/decisions/0052-background-compaction.md): once
 * the served layer carries half the bound, a plain folder of the same view is made by a child at
 * the lowest CPU priority and swapped in by the rebuild queue, only while the layer is still
 * served, so the next apply is a small layer over it instead of paying the compaction inline.
 */
import path from 'node:path';
import { compactionDue } from '../../src/domain/site-layers.ts';
import { compactInChild } from './child-builds.ts';
import { pruneBuilds } from './prune.ts';
import type { RebuildCore } from './rebuild-core.ts';
import { compactedBuildDir, readBuildInfo } from './served.ts';

/**
 * How a background compaction of a served layer ended (build/compact.ts): swapped in,
 * made but not swapped (the served build changed meanwhile), failed, or stopped (a rebuild came).
 */
export interface CompactionEvent {
  /** The layer's folder name. */
  layer: string;
  outcome: 'swapped' | 'superseded' | 'failed' | 'cancelled';
  /** The paths the layer carried. */
  layerPaths: number;
  durationMs: number;
  error?: string;
}

/** The server's log line for a compaction's end. */
export function compactionLogLine(event: CompactionEvent): string {
  return `background compaction of ${event.layer} (${event.layerPaths} paths): ${event.outcome} in ${event.durationMs} ms${event.error ? ` (${event.error.split('\n')[0]})` : ''}`;
}

interface Compaction {
  source: string;
  dir: string;
  abort: AbortController;
  layerPaths: number;
}

export class Compactor {
  private readonly core: RebuildCore;
  private readonly layerMaxPaths: number;
  private readonly onCompaction: ((event: CompactionEvent) => void) | undefined;
  /** Other folders a background job is writing (the reconcile's): a prune keeps them. */
  private readonly othersBusy: () => string[];
  /** The background compaction of the served layer, while it runs. */
  private compaction: Compaction | null = null;

  constructor(
    core: RebuildCore,
    options: { layerMaxPaths: number; onCompaction?: (event: CompactionEvent) => void; othersBusy: () => string[] },
  ) {
    this.core = core;
    this.layerMaxPaths = options.layerMaxPaths;
    this.onCompaction = options.onCompaction;
    this.othersBusy = options.othersBusy;
  }

  /** The compaction running, if any (tests). */
  get compacting(): { source: string; dir: string } | null {
    return this.compaction ? { source: this.compaction.source, dir: this.compaction.dir } : null;
  }

  /** The folder the compaction is writing, if one runs. */
  get busyDir(): string | null {
    return this.compaction?.dir ?? null;
  }

  /**
   * Compact the served layer `dir` in the background once it carries half the bound
   * (`compactionDue`): a plain folder of the same view, made by a child at the lowest CPU priority
   * and swapped in by the rebuild queue only while `dir` is still served, so the next apply is a
   * small layer over it instead of paying the compaction inline at the bound.
   */
  maybeCompact(dir: string): void {
    if (this.core.closed || this.compaction) return;
    // The layer's size from build.json (a few KB), not layer.json (every path: about 1 MB at the bound).
    const info = readBuildInfo(dir);
    if (!info?.commit || !compactionDue(info.layerPaths, this.layerMaxPaths)) return;
    const c = {
      source: dir,
      dir: compactedBuildDir(this.core.config, info.commit),
      abort: new AbortController(),
      layerPaths: info.layerPaths!,
    };
    if (c.dir === dir) return;
    this.compaction = c;
    void this.run(c);
  }

  cancel(): void {
    const c = this.compaction;
    if (!c) return;
    this.compaction = null;
    c.abort.abort('superseded');
  }

  private async run(c: Compaction): Promise<void> {
    const started = Date.now();
    const report = (outcome: CompactionEvent['outcome'], error?: string) =>
      this.onCompaction?.({
        layer: path.basename(c.source),
        outcome,
        layerPaths: c.layerPaths,
        durationMs: Date.now() - started,
        ...(error ? { error } : {}),
      });
    try {
      await compactInChild(c.source, c.dir, c.abort.signal);
      // Switch in the rebuild queue, only while the layer is still served (the same view).
      const swapped = await this.core.switchInQueue(async () => {
        if (this.compaction !== c || this.core.handle.current.dir !== c.source) return false;
        await this.core.handle.swap(c.dir);
        void pruneBuilds(this.core.config, [c.dir, c.source, ...this.othersBusy()]);
        return true;
      });
      report(swapped ? 'swapped' : 'superseded');
    } catch (err) {
      report(c.abort.signal.aborted ? 'cancelled' : 'failed', (err as Error).message.slice(0, 2000));
    } finally {
      if (this.compaction === c) this.compaction = null;
    }
  }
}
