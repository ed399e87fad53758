/**
 * The typed client as a real package: `npm pack` in client/ builds it (prepack: tsc) into a
 * tarball of compiled JavaScript and type declarations; a fresh folder installs that tarball
 * (its one dependency from npm's cache), runs it against a real archive on Node 24 (this
 * process's Node) and Node 20 (the `node@20` package from npm, run by npx), and type-checks a
 * consumer under `tsc --strict` with TypeScript 5 (the workspace's).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { listenArchive, type ListeningArchive } from '../mcp/helpers.ts';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let archive: ListeningArchive;
let dir: string;
let tarball: string;
beforeAll(async () => {
  archive = await listenArchive();
  dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-client-package-'));
  const packed = path.join(dir, 'packed');
  mkdirSync(packed);
  await run(npm, ['pack', '--pack-destination', packed], { cwd: path.join(PROJECT_ROOT, 'client'), timeout: 300_000 });
  tarball = path.join(
    packed,
    readdirSync(packed).find((f) => f.endsWith('.tgz'))!,
  );
}, 400_000);
afterAll(async () => {
  await archive?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed client', () => {
  it('holds compiled JavaScript and declarations, and installs in a fresh folder', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/schema.d.ts',
        'package/README.md',
        'package/LICENSE',
      ]),
    );
    // Every file the package's exports name is in the tarball (the archive-source condition's TypeScript source too).
    const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'client', 'package.json'), 'utf8')) as {
      main: string;
      types: string;
      exports: Record<string, Record<string, string>>;
    };
    const targets = [
      manifest.main,
      manifest.types,
      ...Object.values(manifest.exports).flatMap((e) => Object.values(e)),
    ];
    for (const target of targets) expect(files, target).toContain(`package/${target.replace(/^\.\//, '')}`);
    const app = path.join(dir, 'app');
    mkdirSync(app);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: app, timeout: 300_000 });
    writeFileSync(
      path.join(app, 'main.js'),
      `import { createArchiveClient } from '@pdma/client';
const archive = createArchiveClient(process.argv[2]);
const { data, response } = await archive.GET('/api/v1/works', { params: { query: { composer: 'satie', pageSize: 2 } } });
const resolved = await archive.POST('/api/v1/music/resolve', {
  body: { channel: { channelKey: 'pkg', intendedRole: 'music-bed' }, requirements: { requiredFormats: ['mp3'], mood: 'restful' } },
  headers: { Prefer: 'return=minimal' },
});
console.log(JSON.stringify({ node: process.version, status: response.status, slugs: data.data.items.map((w) => w.slug), verdict: resolved.data.data.verdict }));
`,
    );
    const check = (stdout: string, major: string) => {
      const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(out.node).toMatch(new RegExp(`^v${major}\\.`));
      expect(out.status).toBe(200);
      expect(out.slugs).toContain('satie-gymnopedie-1');
      expect(out.verdict).toBe('reuse');
    };
    check((await run(process.execPath, ['main.js', archive.url], { cwd: app })).stdout, '24');
    const node20 = await run(npm, ['exec', '--yes', '--package=node@20', '--', 'node', 'main.js', archive.url], {
      cwd: app,
      timeout: 300_000,
    });
    check(node20.stdout, '20');

    // A strict TypeScript consumer: the declarations carry the API's types.
    writeFileSync(
      path.join(app, 'consumer.ts'),
      `import { createArchiveClient, isFullResolve, type MusicResolveInput } from '@pdma/client';
const body: MusicResolveInput = { channel: { channelKey: 'pkg', intendedRole: 'music-bed' }, requirements: { requiredFormats: ['mp3'] } };
export async function first(url: string): Promise<string | undefined> {
  const { data } = await createArchiveClient(url).POST('/api/v1/music/resolve', { body });
  if (!data || !isFullResolve(data.data)) return undefined;
  return data.data.candidates[0]?.workSlug;
}
`,
    );
    const tsc = path.join(PROJECT_ROOT, 'client', 'node_modules', 'typescript', 'bin', 'tsc');
    const typed = await run(
      process.execPath,
      [
        tsc,
        '--strict',
        '--noEmit',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--lib',
        'es2022,dom',
        'consumer.ts',
      ],
      { cwd: app, timeout: 120_000 },
    ).catch((e: { stdout: string; stderr: string }) => ({ stdout: e.stdout, stderr: e.stderr, failed: true }));
    expect(typed, JSON.stringify(typed)).not.toHaveProperty('failed');
    // And it does fail on a wrong type (the check can fail).
    writeFileSync(
      path.join(app, 'wrong.ts'),
      `import type { MusicResolveInput } from '@pdma/client';\nexport const x: MusicResolveInput = { channel: { channelKey: 1 } };\n`,
    );
    await expect(
      run(
        process.execPath,
        [tsc, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'wrong.ts'],
        { cwd: app },
      ),
    ).rejects.toThrow();
  }, 900_000);
});
