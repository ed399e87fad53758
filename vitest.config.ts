import { configDefaults, defineConfig } from 'vitest/config';
import { fastTierTmpDir } from './test/setup/memory-tmp.ts';

const fastTmp = fastTierTmpDir();

/**
 * Two tiers (docs/architecture.md, "Tests"):
 *   fast  every `*.test.ts` not named `*.slow.test.ts`: pure modules and the app in-process
 *         (Fastify `inject`, loopback sockets in this process, git). No build, no server or CLI
 *         process, no browser. `inject('sampleBuildDir')` is the catalog fixture
 *         (test/setup/catalog-fixture.ts: records, index and OpenAPI written in-process).
 *   slow  `*.slow.test.ts`: real builds, processes, Chromium, Debian tools. `inject('sampleBuildDir')`
 *         is the real sample build, made once per run (test/setup/global-build.ts).
 * `npm run test:fast`, `npm run test:slow`; `npm test` runs both.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores: two workers keep the machine responsive for the server-spawning tests.
    maxWorkers: 2,
    // Builds made by tests (and the servers they start) render no audio unless a test asks for it
    // (`--audio build`, `audio: 'build'`): the sample's audio is rendered once, by the global build.
    env: { ARCHIVE_AUDIO_RENDER: 'off' },
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/**/*.slow.test.ts'],
          globalSetup: ['test/setup/catalog-fixture.ts'],
          setupFiles: ['test/setup/fast-tier-guard.ts'],
          // Files share their worker's module cache: half of this tier's time was importing the
          // same modules once per file. Tests keep their fresh state in their own temporary
          // folders and apps, never in module-level variables.
          isolate: false,
          // Temporary folders in memory where the machine has room (test/setup/memory-tmp.ts).
          env: { ARCHIVE_AUDIO_RENDER: 'off', ...(fastTmp ? { TMPDIR: fastTmp } : {}) },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/**/*.slow.test.ts'],
          globalSetup: ['test/setup/global-build.ts'],
        },
      },
    ],
  },
});
