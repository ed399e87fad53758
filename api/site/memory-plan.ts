/**
 * One memory bound for the whole service (docs/operations.md, "Memory"): the server process with
 * its caches and its worker threads (each with a per-worker limit), the warm build process, and
 * the small children (the command spawner, git, Pagefind's process during a build). Each part is
 * bounded by a setting; `ARCHIVE_MEMORY_LIMIT_MB` caps their sum: the parts not set by hand take
 * their share of it, and a configuration whose parts do not fit stops the start, naming them.
 *
 *   server        its resident memory right after start + every cache at its budget + headroom
 *                 (memoryBoundMiB, api/site/cache-budgets.ts)
 *   readers       with ARCHIVE_READ_PROCESSES = N > 1, N read processes beside it, each holding
 *                 the same caches (api/site/read-processes.ts): N x server
 *   engraving     ARCHIVE_ENGRAVE_WORKERS x ARCHIVE_ENGRAVE_MEMORY_MB (V8 heap and Verovio's
 *                 WebAssembly memory of each worker, capped inside it: src/lib/budget-pool.ts)
 *   audio         the one audio-measuring worker's heap cap (api/audio/measure-audio.ts)
 *   warm builder  ARCHIVE_WARM_BUILDER_MAX_RSS_MB: the process is replaced before a build would
 *                 take it past this (scripts/build-worker.ts), so it does not grow per apply
 *   children      CHILDREN_MIB
 *
 * The worker threads live in the server's process, so its resident memory is "server" plus
 * whatever of "engraving" and "audio" is in use at the moment.
 */
import { WORKER_HEAP_MB } from '../audio/measure-audio.ts';
import { memoryBoundMiB, type CacheBudgets } from './cache-budgets.ts';

/** The command spawner (about 45 MiB), git commands and Pagefind's process during a build. */
export const CHILDREN_MIB = 256;
/** The least resident memory after start a plan counts on before the server has started. */
export const SERVER_START_MIN_MIB = 256;
/** Shares of ARCHIVE_MEMORY_LIMIT_MB for the parts not set by hand. */
export const ENGRAVING_SHARE = 0.3;
export const WARM_BUILDER_SHARE = 0.35;
/** The least memory per engraving worker the limit's share gives (a short score's Verovio is 128 MiB). */
export const ENGRAVE_MIN_MB = 256;

export interface MemoryPlanInput {
  /** ARCHIVE_MEMORY_LIMIT_MB, or null when not set. */
  limitMiB: number | null;
  /** The server's resident memory right after start, MiB (before it starts: SERVER_START_MIN_MIB). */
  serverStartMiB: number;
  /** The caches' budgets, MiB. */
  cacheBudgetsMiB: CacheBudgets;
  engrave: { size: number; memoryMb: number };
  warmBuilderMiB: number;
  /** Read processes beside the server (ARCHIVE_READ_PROCESSES when above 1, else 0). */
  readProcesses: number;
}

export interface MemoryPlan {
  limitMiB: number | null;
  /** Each part's bound, MiB. */
  parts: { server: number; readers: number; engraving: number; audio: number; warmBuilder: number; children: number };
  /** Their sum: what the service's process tree stays under, MiB. */
  totalMiB: number;
}

export function memoryPlan(input: MemoryPlanInput): MemoryPlan {
  const server = Math.ceil(input.serverStartMiB + memoryBoundMiB(input.cacheBudgetsMiB));
  const parts = {
    server,
    readers: input.readProcesses * server,
    engraving: input.engrave.size * input.engrave.memoryMb,
    audio: WORKER_HEAP_MB,
    warmBuilder: input.warmBuilderMiB,
    children: CHILDREN_MIB,
  };
  const totalMiB = parts.server + parts.readers + parts.engraving + parts.audio + parts.warmBuilder + parts.children;
  return { limitMiB: input.limitMiB, parts, totalMiB };
}

/** One line per part, for refusals and the start-up log. */
export function memoryPlanWords(plan: MemoryPlan): string {
  const p = plan.parts;
  const readers = p.readers > 0 ? `, read processes ${p.readers} MiB (ARCHIVE_READ_PROCESSES x the server)` : '';
  return `server ${p.server} MiB (its size at start with every cache full)${readers}, engraving ${p.engraving} MiB (workers x ARCHIVE_ENGRAVE_MEMORY_MB), audio measurement ${p.audio} MiB, warm build process ${p.warmBuilder} MiB (ARCHIVE_WARM_BUILDER_MAX_RSS_MB), other children ${p.children} MiB: ${plan.totalMiB} MiB in all`;
}
