/**
 * What a reconcile reports (GET /api/v1/admin/reconcile, the log, metrics): its record while it
 * waits, runs and ends, the event told at its end, the full build's cost and the log line.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ReconcileCost, ReconcileState, ReconcileTrigger } from '../../src/schemas/reconcile.ts';

/** How a reconcile ended: swapped in, built but not swapped (a newer build was served meanwhile), failed, or stopped. */
export type ReconcileOutcome = 'swapped' | 'superseded' | 'failed' | 'cancelled';

export interface ReconcileEvent {
  commit: string;
  outcome: ReconcileOutcome;
  trigger: ReconcileTrigger;
  buildDir?: string;
  error?: string;
  /** From the request to the end (zero for one stopped before its build started). */
  durationMs?: number;
  /** The full build's cost (build.json), when it finished. */
  cost?: ReconcileCost | null;
}

export interface ReconcileRecord {
  state: ReconcileState;
  trigger: ReconcileTrigger | null;
  commit: string | null;
  requestedAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  detail: string | null;
  cost: ReconcileCost | null;
}

export const IDLE: ReconcileRecord = {
  state: 'idle',
  trigger: null,
  commit: null,
  requestedAt: null,
  startedAt: null,
  finishedAt: null,
  detail: null,
  cost: null,
};

export const utc = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The cost of a complete full build, from its build.json; null when it cannot be read. */
export function readBuildCost(dir: string): ReconcileCost | null {
  try {
    const info = JSON.parse(readFileSync(path.join(dir, 'build.json'), 'utf8')) as {
      durationMs?: number;
      works?: number;
      searchIndex?: { pages?: number };
      scores?: { rendered?: number; engraved?: number; fromCache?: number; failed?: number };
      peakRssBytes?: number;
    };
    const n = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
    return {
      buildMs: n(info.durationMs),
      works: n(info.works),
      pages: n(info.searchIndex?.pages),
      scoresRendered: n(info.scores?.rendered),
      scoresEngraved: n(info.scores?.engraved),
      scoresFromCache: n(info.scores?.fromCache),
      scoresFailed: n(info.scores?.failed),
      peakRssBytes: n(info.peakRssBytes),
    };
  } catch {
    return null;
  }
}

/**
 * The server's log line for a reconcile's end: `background reconcile of <commit12>: <outcome>`,
 * then how it was asked for, its time and its full build's cost.
 */
export function reconcileLogLine(event: ReconcileEvent): string {
  const parts = [`${event.trigger}`];
  if (event.durationMs !== undefined) parts.push(`${event.durationMs} ms`);
  const c = event.cost;
  if (c)
    parts.push(
      `full build ${c.buildMs} ms: ${c.works} works, ${c.pages} pages, ${c.scoresRendered} scores ` +
        `(${c.scoresEngraved} engraved, ${c.scoresFromCache} from the render cache), peak RSS ${Math.round(c.peakRssBytes / 1048576)} MiB`,
    );
  if (event.error && event.outcome === 'failed') parts.push(event.error.split('\n')[0]!.slice(0, 300));
  return `background reconcile of ${event.commit.slice(0, 12)}: ${event.outcome} (${parts.join('; ')})`;
}
