/** Shared setup for the intake HTTP tests: an app with its own data folder and a chosen rate limit. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { openApp, type TestApp, type TestClock } from '../helpers/app.ts';

export interface IntakeApp extends TestApp {
  dataDir: string;
  post(url: string, payload: unknown, contentType?: string): ReturnType<TestApp['request']>;
}

/** An app with its own data folder and the given rate limits (parsed by loadConfig like any setting). */
export async function openIntakeApp(
  limits: { contributions?: string; reports?: string } = {},
  env: Record<string, string> = {},
  clock?: TestClock,
): Promise<IntakeApp> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-intake-http-'));
  const t = await openApp(
    inject('sampleBuildDir'),
    {
      ARCHIVE_DATA_DIR: dataDir,
      ARCHIVE_CONTRIBUTION_RATE_LIMIT: limits.contributions ?? '100000/60',
      ARCHIVE_CORRECTION_RATE_LIMIT: limits.reports ?? '100000/60',
      ...env,
    },
    clock ? { clock } : {},
  );
  return {
    ...t,
    dataDir,
    post: (url, payload, contentType = 'application/json') =>
      t.request({
        method: 'POST',
        url,
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        headers: { 'content-type': contentType },
      }),
    close: async () => {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const CONTRIBUTIONS = '/api/v1/music/contributions';
export const REPORTS = '/api/v1/correction-reports';

export const validReport = () => ({
  workSlug: 'satie-gymnopedie-1',
  targetType: 'work',
  targetId: null,
  fieldName: 'year',
  currentValue: '1888',
  proposedValue: '1888 (published)',
  rationale: 'The first edition is dated 1888.',
  evidenceUrl: 'https://imslp.org/wiki/Gymnop%C3%A9dies_(Satie%2C_Erik)',
  reporterName: 'Test Reader',
  reporterKind: 'Human',
});
