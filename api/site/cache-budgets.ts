/**
 * Byte budgets of the in-memory caches one served build keeps (api/site/site-handle.ts hands them
 * to each): what bounds the server's memory, whatever the traffic (docs/operations.md, "Memory").
 * The defaults live beside each cache; api/config.ts reads the settings that change them.
 */
import { STATIC_CACHE_BYTES, STATIC_FACTS_BYTES } from './static-site.ts';
import { RECORD_CACHE_BYTES } from '../catalog/work-records.ts';
import { ANSWER_CACHE_BYTES } from '../catalog/answer-cache.ts';

export interface CacheBudgets {
  /** Small static files' bytes (ARCHIVE_STATIC_CACHE_MB). */
  staticBytes: number;
  /** Estimated heap of the known static files' facts (ARCHIVE_STATIC_FACTS_MB). */
  staticFactBytes: number;
  /** JSON bytes of parsed work records (ARCHIVE_RECORD_CACHE_MB). */
  recordBytes: number;
  /** Bytes of each answer cache, listings and resolve (ARCHIVE_ANSWER_CACHE_MB). */
  answerBytes: number;
}

export const MIB = 1024 * 1024;

export const DEFAULT_CACHE_BUDGETS: CacheBudgets = {
  staticBytes: STATIC_CACHE_BYTES,
  staticFactBytes: STATIC_FACTS_BYTES,
  recordBytes: RECORD_CACHE_BYTES,
  answerBytes: ANSWER_CACHE_BYTES,
};

/**
 * Headroom over the caches' budgets, MiB: what traffic adds that no cache holds. V8's young
 * generation and the old generation's garbage between collections, buffers already evicted but
 * not yet collected (V8 lets external memory grow by about 64 MiB between collections), code
 * compiled for the paths traffic takes, and the allocator's slack. Measured, not derived: the
 * largest growth seen with caches nearly empty was 143 MiB, a plateau reached after about 65,000
 * requests (docs/operations.md, "Memory").
 */
export const MEMORY_HEADROOM_MIB = 224;

/**
 * The most the server's resident memory should grow over its size right after start, in MiB,
 * whatever the traffic: each cache at its budget (parsed records take about three times their
 * JSON bytes; two answer caches) plus MEMORY_HEADROOM_MIB. Budgets in MiB.
 */
export function memoryBoundMiB(budgetsMiB: CacheBudgets): number {
  return (
    budgetsMiB.staticBytes +
    budgetsMiB.staticFactBytes +
    3 * budgetsMiB.recordBytes +
    2 * budgetsMiB.answerBytes +
    MEMORY_HEADROOM_MIB
  );
}
