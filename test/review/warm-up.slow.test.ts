/**
 * The warm build process's warm-up at start (ARCHIVE_WARM_BUILDER_WARM_UP, api/site/builds.ts
 * `prepare`, build/warm-up.ts): a real `npm start` process logs the warm-up, and the first
 * apply after it renders through the compiled pages the warm-up left (the warm renderer) and takes
 * the served build's catalog from memory, as only later applies did before, and hashes only the
 * browse pages its change reaches (the warm-up worked out every value's page keys). With the
 * warm-up off, the same first apply runs Astro, reads the catalog from its file and hashes every
 * page of the browse values it touches: what the warm-up changes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyingCorrection, applyOutcome, fetchCaller } from '../helpers/corrections.ts';
import { dataOf, ServiceRun } from '../helpers/process.ts';

const KEY = 'admin-warm-up-1';
const runs: ServiceRun[] = [];
afterAll(async () => {
  for (const run of runs) await run.dispose();
});

const WARMED = /warm build process warm-up on [^:]+: done in \d+ ms: 26 works/;

async function firstApply(warmUp: '0' | '1'): Promise<{ output: string; incremental: Record<string, any> }> {
  const run = new ServiceRun(`pdma-warm-up-${warmUp}-`);
  runs.push(run);
  const started = await run.start(
    {
      ARCHIVE_ADMIN_KEYS: KEY,
      ARCHIVE_WARM_BUILDER_WARM_UP: warmUp,
      ARCHIVE_RECONCILE_DELAY_MS: 'off',
      LOG_LEVEL: 'info',
      PUBLIC_BASE_URL: 'http://archive.warm-up.example.test',
      // Two works a page: the browse values the correction touches have several pages each.
      ARCHIVE_WORKS_INDEX_PAGE_SIZE: '2',
    },
    240_000,
  );
  if (warmUp === '1') {
    const until = Date.now() + 120_000;
    while (!WARMED.test(started.output())) {
      if (Date.now() > until) throw new Error(`no warm-up line within 120 s:\n${started.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Nothing of it is left on disk.
    expect(existsSync(path.join(run.dataDir, 'warm-up'))).toBe(false);
  }
  const call = fetchCaller(started.url);
  const { code } = await applyingCorrection(call, KEY, {
    workSlug: 'bach-prelude-in-c-bwv-846',
    fieldName: 'title',
    currentValue: 'Prelude in C major (The Well-Tempered Clavier, Book I)',
    proposedValue: 'Prelude in C major (wombat edition)',
    rationale: 'Test.',
  });
  const item = await applyOutcome(call, KEY, code, 180_000, started.output);
  expect(item.apply?.state, `${JSON.stringify(item.apply)}\n${started.output()}`).toBe('visible');
  expect((await dataOf(await fetch(`${started.url}/api/v1/works/bach-prelude-in-c-bwv-846`))).title).toBe(
    'Prelude in C major (wombat edition)',
  );
  const served = readFileSync(path.join(run.dataDir, 'current', 'build.json'), 'utf8');
  const info = JSON.parse(served) as { mode: string; incremental: Record<string, any> };
  expect(info.mode).toBe('incremental');
  expect(readdirSync(run.dataDir)).not.toContain('warm-up');
  await started.stop();
  return { output: started.output(), incremental: info.incremental };
}

describe('the warm-up at start', () => {
  let warmHashed = NaN;
  it('leaves the first apply warm: compiled pages, the catalog and score manifest in memory, the browse page keys', async () => {
    const { output, incremental } = await firstApply('1');
    // Its search ran as an apply's does: one shard indexed again, nothing written but scratch.
    expect(output).toMatch(/warm-up on [^:]+: done in \d+ ms: .*, one search shard indexed again in \d+ ms/);
    expect(incremental.renderer.kind).toBe('warm');
    expect(incremental.snapshot).toBe('memory');
    expect(incremental.scoreManifest).toBe('memory');
    warmHashed = incremental.browseKeysHashed;
    expect(warmHashed).toBeGreaterThan(0);
  }, 600_000);

  it('is what makes it warm: without it the first apply runs Astro, reads the catalog file, hashes every browse page it reaches', async () => {
    const { output, incremental } = await firstApply('0');
    expect(output).not.toMatch(/warm-up on/);
    expect(incremental.renderer.kind).toBe('astro');
    expect(incremental.snapshot).toBe('file');
    expect(incremental.scoreManifest).toBe('file');
    // The same correction: the pages of every browse value it touches, against the few showing the work.
    expect(incremental.browseKeysHashed).toBeGreaterThan(warmHashed);
  }, 600_000);
});
