/**
 * Builds the shipped sample catalog once per test run, under a non-default PUBLIC_BASE_URL so
 * every test also checks that links follow the configured base. Build folders are immutable;
 * tests that change content build their own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

export const TEST_BASE_URL = 'https://archive.example.test:8443';

declare module 'vitest' {
  export interface ProvidedContext {
    sampleBuildDir: string;
    testBaseUrl: string;
  }
}

export default function setup(project: TestProject) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-test-build-'));
  const out = path.join(root, 'build');
  const result = spawnSync(
    process.execPath,
    [
      'scripts/build.ts',
      '--content',
      process.env.TEST_CONTENT_DIR ?? 'content',
      '--out',
      out,
      '--base-url',
      TEST_BASE_URL,
      '--quiet',
      // A render cache of this run's own: tests never see scores engraved by an earlier run.
      '--render-cache',
      path.join(root, 'render-cache'),
      // The sample's rendered audio, made once per run (the other test builds render none: vitest.config.ts).
      '--audio',
      'build',
    ],
    { stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error(`building the sample catalog failed (exit ${result.status})`);
  project.provide('sampleBuildDir', out);
  project.provide('testBaseUrl', TEST_BASE_URL);
  return () => rmSync(root, { recursive: true, force: true });
}
