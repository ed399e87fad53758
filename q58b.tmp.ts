import { EngravePool } from './src/lib/site/engrave-pool.ts';
import { findScore, LARGEST_QUARTET, QUARTETS } from './test/helpers/corpus-content.ts';
import { twentyThousandMeasures, twoHundredParts } from './test/helpers/hostile-scores.ts';
const file = findScore(QUARTETS, LARGEST_QUARTET);
for (const [name, src] of [['quartet', { file, compressed: true }], ['200 parts', { xml: twoHundredParts() }], ['20000 measures', { xml: twentyThousandMeasures() }]] as const) {
  const pool = new EngravePool({ size: 1, cpuMs: 120_000, memoryMb: 768 });
  const t0 = performance.now();
  try {
    const r = await pool.check(src as never);
    console.log(name, 'check', ((performance.now() - t0) / 1000).toFixed(1), 's wall', (pool.stats.peakCpuMs / 1000).toFixed(1), 's cpu', JSON.stringify(r.scan), r.load ? JSON.stringify({ pages: r.load.pages, loaded: r.load.loaded, errors: r.load.errors.length }) : '', pool.stats.peakHeapBytes);
  } catch (e) { console.log(name, 'refused', ((performance.now() - t0) / 1000).toFixed(1), (e as Error).message, (pool.stats.peakCpuMs/1000).toFixed(1)); }
  await pool.close();
}
