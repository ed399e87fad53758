/**
 * What held this process's main thread, window by window: the longest event-loop delay
 * (`monitorEventLoopDelay`) and the garbage collector's pauses. The stall probe's server runs in
 * the bench's own process, so a window's slow requests can be told apart: the server's thread
 * was busy (a long delay, or a long pause), or the request waited elsewhere (the disk, a child).
 */
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

export interface ThreadFigures {
  /** The longest the event loop was held, in ms (10 ms resolution). */
  loopDelayMaxMs: number;
  /** Garbage-collector pauses: how many, the longest and their sum (ms); `majorPauses` of them were full (mark-compact). */
  gcPauses: number;
  majorPauses: number;
  gcMaxMs: number;
  gcTotalMs: number;
}

export interface ThreadWatch {
  /** The figures since the watch began or since the last `take`, which starts the next window. */
  take(): ThreadFigures;
  stop(): void;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

export function watchThread(): ThreadWatch {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let pauses: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => {
    pauses.push(...list.getEntries());
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    take() {
      const out: ThreadFigures = {
        loopDelayMaxMs: round(delay.count > 0 ? delay.max / 1e6 : 0),
        gcPauses: pauses.length,
        majorPauses: pauses.filter(
          (p) => (p as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
        ).length,
        gcMaxMs: round(Math.max(0, ...pauses.map((p) => p.duration))),
        gcTotalMs: round(pauses.reduce((sum, p) => sum + p.duration, 0)),
      };
      delay.reset();
      pauses = [];
      return out;
    },
    stop() {
      delay.disable();
      observer.disconnect();
    },
  };
}
