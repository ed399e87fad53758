/**
 * One memory bound for the whole service (docs/operations.md, "Memory"): ARCHIVE_MEMORY_LIMIT_MB
 * caps the sum of the parts (server and caches, read processes, engraving workers, audio worker, warm build
 * process, children); parts not set by hand take their share; a configuration whose parts do not
 * fit stops the start naming them; /metrics reports the plan beside the process tree's memory.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, memoryPlanOf } from '../../api/config.ts';
import { openApp, PROJECT_ROOT } from '../helpers/app.ts';

const MiB = 1024 * 1024;

describe('ARCHIVE_MEMORY_LIMIT_MB', () => {
  it('gives the parts not set by hand their share of the limit, and the plan fits it', () => {
    const config = loadConfig({ ARCHIVE_MEMORY_LIMIT_MB: '4096', ARCHIVE_ENGRAVE_WORKERS: '2' }, PROJECT_ROOT);
    expect(config.memoryLimitMiB).toBe(4096);
    // 30 % for the engraving workers between them, 35 % for the warm build process.
    expect(config.engrave.memoryMb).toBe(Math.floor((4096 * 0.3) / 2));
    expect(config.warmBuilderMaxRssBytes).toBe(Math.floor(4096 * 0.35) * MiB);
    const plan = memoryPlanOf(config, 256);
    expect(plan.parts.engraving).toBe(2 * config.engrave.memoryMb);
    expect(plan.totalMiB).toBeLessThanOrEqual(4096);
    // What is set by hand stays as set.
    const explicit = loadConfig(
      { ARCHIVE_MEMORY_LIMIT_MB: '8192', ARCHIVE_ENGRAVE_MEMORY_MB: '1024', ARCHIVE_WARM_BUILDER_MAX_RSS_MB: '2048' },
      PROJECT_ROOT,
    );
    expect(explicit.engrave.memoryMb).toBe(1024);
    expect(explicit.warmBuilderMaxRssBytes).toBe(2048 * MiB);
    // Read processes each hold the server's caches: counted once per process.
    const readers = loadConfig(
      { ARCHIVE_MEMORY_LIMIT_MB: '8192', ARCHIVE_READ_PROCESSES: '2', ARCHIVE_REDIS_URL: 'redis://127.0.0.1:6379/0' },
      PROJECT_ROOT,
    );
    const withReaders = memoryPlanOf(readers, 256);
    expect(withReaders.parts.readers).toBe(2 * withReaders.parts.server);
    expect(withReaders.totalMiB).toBe(
      memoryPlanOf({ ...readers, readProcesses: 1 }, 256).totalMiB + withReaders.parts.readers,
    );
    expect(memoryPlanOf(config, 256).parts.readers).toBe(0);
    // Without the limit, the parts keep their own defaults and nothing caps the sum.
    expect(loadConfig({}, PROJECT_ROOT).memoryLimitMiB).toBeNull();
  });

  it('stops the start when the parts do not fit, naming each part and what to change', () => {
    expect(() =>
      loadConfig(
        { ARCHIVE_MEMORY_LIMIT_MB: '2048', ARCHIVE_ENGRAVE_WORKERS: '4', ARCHIVE_ENGRAVE_MEMORY_MB: '2048' },
        PROJECT_ROOT,
      ),
    ).toThrow(
      /^ARCHIVE_MEMORY_LIMIT_MB \(2048\) is less than the parts it must hold: server \d+ MiB \(its size at start with every cache full\), engraving 8192 MiB \(workers x ARCHIVE_ENGRAVE_MEMORY_MB\), audio measurement 512 MiB, warm build process \d+ MiB \(ARCHIVE_WARM_BUILDER_MAX_RSS_MB\), other children 256 MiB: \d+ MiB in all\. Raise it, or lower/,
    );
    expect(() => loadConfig({ ARCHIVE_MEMORY_LIMIT_MB: '512' }, PROJECT_ROOT)).toThrow(
      /ARCHIVE_MEMORY_LIMIT_MB must be a whole number of MiB from 1024/,
    );
  });

  it('is reported on /metrics with each part, the limit and the process tree resident memory', async () => {
    const t = await openApp(undefined, {
      ARCHIVE_MEMORY_LIMIT_MB: '6144',
      ARCHIVE_METRICS_KEYS: 'metrics=metrics-secret-0123456789',
    });
    try {
      await t.app.ready();
      const res = await t.app.inject({
        url: '/metrics',
        headers: { authorization: 'Bearer metrics-secret-0123456789' },
      });
      expect(res.statusCode).toBe(200);
      const value = (line: string) => Number(new RegExp(`^${line} (\\S+)$`, 'm').exec(res.body)?.[1]);
      expect(value('archive_memory_bound_bytes\\{part="limit"\\}')).toBe(6144 * MiB);
      const total = value('archive_memory_bound_bytes\\{part="total"\\}');
      expect(total).toBeGreaterThan(value('archive_memory_bound_bytes\\{part="server"\\}'));
      expect(total).toBeLessThanOrEqual(6144 * MiB);
      expect(value('archive_process_tree_rss_bytes')).toBeGreaterThan(32 * MiB);
    } finally {
      await t.close();
    }
  });
});
