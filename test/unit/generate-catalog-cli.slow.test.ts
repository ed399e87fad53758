/**
 * `npm run generate:catalog`'s command line: --help answers the usage, an unknown option or a bad
 * count is exit code 2 with the usage (no stack trace), and a small catalog is written.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';

const run = promisify(execFile);
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-generate-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (args: string[]) =>
  run(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'generate-catalog.ts'), ...args], {
    cwd: PROJECT_ROOT,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );

describe('the generate:catalog CLI', () => {
  it('answers --help with the usage, and an unknown option or a bad count with exit code 2 and the usage', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run generate:catalog -- --works N --out DIR/);
    const unknown = await cli(['--count', '5']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown option '--count'.*\nusage: npm run generate:catalog/s);
    expect(unknown.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    const bad = await cli(['--works', 'many', '--out', path.join(root, 'never')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^usage: npm run generate:catalog/);
    expect(existsSync(path.join(root, 'never'))).toBe(false);
  });

  it('writes a catalog of the works asked for', async () => {
    const out = path.join(root, 'five');
    const done = await cli(['--works', '5', '--out', out]);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^generated 5 works/);
    expect(readdirSync(path.join(out, 'works'))).toHaveLength(5);
  });
});
