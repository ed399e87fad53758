/**
 * The warm-up at a server's start (build/warm-up.ts) over a served build it cannot build
 * on: it says why and warms nothing up (the first apply is a full build), instead of failing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { warmUp } from '../../build/warm-up.ts';
import { SCORES_MANIFEST } from '../../build/types.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-warm-up-skip-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('warmUp', () => {
  it('skips a served build made by other site code, saying so, and leaves no scratch folder', async () => {
    const base = path.join(root, 'base');
    mkdirSync(base);
    const baseUrl = 'https://warm.example.test';
    writeFileSync(
      path.join(base, 'build.json'),
      JSON.stringify({ commit: 'a'.repeat(40), baseUrl, readerSignIn: 'none', siteCode: 'other code' }),
    );
    writeFileSync(path.join(base, SCORES_MANIFEST), '{"scores":{}}\n');
    const out = path.join(root, 'scratch');
    const result = await warmUp(
      { contentDir: path.join(PROJECT_ROOT, 'content'), outDir: out, baseUrl, commit: 'b'.repeat(40), quiet: true },
      base,
    );
    expect(result.skipped).toBe('the site code changed since the base build');
    expect(result.renderer).toBeNull();
    expect(result.works).toBe(0);
    expect(() => mkdirSync(out)).not.toThrow(); // nothing was made there
  });
});
