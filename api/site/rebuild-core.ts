/**
 * What the rebuilder's rooms share (api/site/builds.ts composes them): the configuration, the
 * served build, the warm build process, and the rebuild queue, in which every swap happens one at
 * a time (an apply's rebuild, a compaction's or a reconcile's switch).
 */
import type { Config } from '../config.ts';
import type { SiteHandle } from './site-handle.ts';
import { WarmBuilder } from './warm-builder.ts';

export class RebuildCore {
  readonly config: Config;
  readonly handle: SiteHandle;
  /** The warm build process the rebuilds run in (null: a new process per build). */
  readonly builder: WarmBuilder | null;
  /** Rebuilds, and the background jobs' switches, one after another. */
  queue: Promise<unknown> = Promise.resolve();
  /** Rebuilds queued or running (not counting callers that share one). */
  rebuildsInFlight = 0;
  closed = false;

  constructor(config: Config, handle: SiteHandle, builder: { warm: boolean; maxRssBytes?: number }) {
    this.config = config;
    this.handle = handle;
    this.builder = builder.warm ? new WarmBuilder({ maxRssBytes: builder.maxRssBytes }) : null;
  }

  /** Run `fn` in the rebuild queue, after what is queued; false when it fails. */
  switchInQueue(fn: () => Promise<boolean>): Promise<boolean> {
    const run = this.queue.then(fn).catch(() => false);
    this.queue = run;
    return run;
  }
}
