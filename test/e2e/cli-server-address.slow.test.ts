/**
 * Every command-line tool finds the server the same way: `--server`, else ARCHIVE_BASE_URL
 * (ARCHIVE_SERVER_URL kept as an alias), else http://localhost:4321; an unreachable address is
 * reported with the address tried, where it came from and how to change it ("fetch failed" before).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp, listenOnLoopback } from '../helpers/app.ts';
import { runScript } from '../helpers/process.ts';

const KEY = 'admin-cli-address-secret';
const LIEDER = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'openscore-lieder');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-cli-address-'));
let t: TestApp;
let server: string;
let closedPort: number;

beforeAll(async () => {
  t = await openApp(undefined, { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: `editor=${KEY}` });
  server = await listenOnLoopback(t.app);
  // A port nobody listens on: taken, then given back.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Run `scripts/<script>` with `env` as its whole environment (and PATH): its exit code and output. */
async function tool(script: string, args: string[], env: Record<string, string>) {
  const r = await runScript(script, args, { PATH: process.env.PATH ?? '', ...env }, { replaceEnv: true });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the server address of the command-line tools', () => {
  it('review reads ARCHIVE_BASE_URL', async () => {
    const r = await tool('review.ts', ['list'], { ARCHIVE_ADMIN_KEY: KEY, ARCHIVE_BASE_URL: server });
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout).toContain('The review queue is empty.');
  });

  it('review against a server that is not there names the address and how to change it', async () => {
    const address = `http://127.0.0.1:${closedPort}`;
    const r = await tool('review.ts', ['list'], { ARCHIVE_ADMIN_KEY: KEY, ARCHIVE_BASE_URL: address });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `could not reach the archive at ${address} (ECONNREFUSED; address from ARCHIVE_BASE_URL)`,
    );
    expect(r.stderr).toContain('Set ARCHIVE_BASE_URL (or pass --server URL)');
    expect(r.stderr).not.toContain('fetch failed');
  });

  it('--server wins over the variable, and is named when it fails', async () => {
    const address = `http://127.0.0.1:${closedPort}`;
    const r = await tool('review.ts', ['list', '--server', address], {
      ARCHIVE_ADMIN_KEY: KEY,
      ARCHIVE_BASE_URL: server,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`at ${address} (ECONNREFUSED; address from --server)`);
  });

  it('the archive CLI takes the same variable, and ARCHIVE_SERVER_URL as an alias', async () => {
    const address = `http://127.0.0.1:${closedPort}`;
    const folder = mkdtempSync(path.join(os.tmpdir(), 'pdma-cli-address-folder-'));
    try {
      for (const name of ['ARCHIVE_BASE_URL', 'ARCHIVE_SERVER_URL']) {
        const r = await tool('archive.ts', ['verify', 'some-package', folder], {
          ARCHIVE_LIBRARY_KEY: 'library-cli-address-secret',
          [name]: address,
        });
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toContain(`could not reach the archive at ${address} (ECONNREFUSED; address from ${name})`);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('the importer reads ARCHIVE_BASE_URL when --server is not given', async () => {
    const r = await tool('import.ts', [LIEDER, '--only', '6050301', '--json'], {
      ARCHIVE_ADMIN_KEY: KEY,
      ARCHIVE_BASE_URL: server,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toMatchObject({ submitted: 1, failed: [] });
  });

  it('the importer against a server that is not there names the address before reading the corpus', async () => {
    const address = `http://127.0.0.1:${closedPort}`;
    const r = await tool('import.ts', [LIEDER, '--only', '6050301'], {
      ARCHIVE_ADMIN_KEY: KEY,
      ARCHIVE_BASE_URL: address,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `could not reach the archive at ${address} (ECONNREFUSED; address from ARCHIVE_BASE_URL)`,
    );
    expect(r.stderr).not.toContain('fetch failed');
    const flagged = await tool('import.ts', [LIEDER, '--only', '6050301', '--server', address], {
      ARCHIVE_ADMIN_KEY: KEY,
      ARCHIVE_BASE_URL: server,
    });
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain(`at ${address} (ECONNREFUSED; address from --server)`);
  });

  it('a malformed address is refused before any request, naming where it came from', async () => {
    const r = await tool('review.ts', ['list'], { ARCHIVE_ADMIN_KEY: KEY, ARCHIVE_BASE_URL: 'localhost:4321' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the server address from ARCHIVE_BASE_URL must be an absolute http(s) URL');
  });
});
