/**
 * The review CLI against a listening server, and an apply whose build fails: main is reset, the
 * old site keeps serving, the item stays `accepted` with the error recorded. The build is a
 * stand-in that fails (no real rebuild is needed to show the rollback); seeded from the mini fixture.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { Rebuilder, type SwapResult } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const run = promisify(execFile);
const KEY = 'admin-cli-secret-1';
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-review-cli-'));
let app: FastifyInstance;
let server: string;
let config: ReturnType<typeof loadConfig>;
let handle: SiteHandle;

class FailingRebuilder extends Rebuilder {
  override rebuildAndSwap(): Promise<SwapResult> {
    return Promise.reject(new Error('build failed (exit 1): works/bach-minuet-in-g/index.md: simulated build failure'));
  }
}

beforeAll(async () => {
  const sampleBuild = inject('sampleBuildDir');
  config = loadConfig(
    { ARCHIVE_DATA_DIR: root, PUBLIC_BASE_URL: 'http://127.0.0.1:4321', ARCHIVE_ADMIN_KEYS: KEY },
    PROJECT_ROOT,
  );
  await ensureContentRepo(config.contentRepo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  handle = await SiteHandle.open(sampleBuild);
  const rebuilder = new FailingRebuilder(config, handle);
  app = await createApp({ config, handle, rebuilder, review: {} });
  await app.listen({ port: 0, host: '127.0.0.1' });
  server = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = { ARCHIVE_ADMIN_KEY: KEY }) {
  return run(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'review.ts'), ...args, '--server', server], {
    env: { PATH: process.env.PATH ?? '', ...env },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('review CLI and a failed apply', () => {
  it('lists, accepts and tries to apply; a failed build leaves main, the site and the status as they were', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/correction-reports',
      payload: {
        workSlug: 'bach-minuet-in-g',
        targetType: 'work',
        fieldName: 'composer.died',
        currentValue: '1733-07-25',
        proposedValue: '1733-07-26',
        rationale: 'Burial register.',
        evidenceUrl: null,
        reporterName: 'Cleo',
        reporterKind: 'Human',
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    const code = (res.json().data ?? res.json()).trackingCode as string;

    expect((await cli(['list'], {})).code).toBe(2); // no key: usage error, nothing sent
    const list = await cli(['list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(code);
    expect(list.stdout).toContain('correct composer.died of bach-minuet-in-g');

    const keyFile = path.join(root, 'key.txt');
    writeFileSync(keyFile, `${KEY}\n`);
    const accept = await cli(
      ['accept', code, '--reviewer', 'Dana Editor', '--note', 'Evidence checked.', '--key-file', keyFile],
      {},
    );
    expect(accept.code, accept.stderr).toBe(0);
    expect(accept.stdout).toContain(`${code}: accepted`);
    expect(accept.stdout).toContain(`review/${code}`);

    const before = await git(config.contentRepo, ['rev-parse', 'main']);
    const served = handle.current.dir;
    const apply = await cli(['apply', code, '--reviewer', 'Dana Editor']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('409');
    expect(apply.stderr).toContain('simulated build failure');
    expect(await git(config.contentRepo, ['rev-parse', 'main'])).toBe(before);
    expect(readFileSync(path.join(config.contentRepo, 'works', 'bach-minuet-in-g', 'index.md'), 'utf8')).toContain(
      'died: "1733-07-25"',
    );
    expect(handle.current.dir).toBe(served);
    expect(await git(config.contentRepo, ['status', '--porcelain'])).toBe('');

    const show = await cli(['show', code]);
    expect(show.stdout).toContain('accepted');
    expect(show.stdout).toContain('last error');
    const tracking = (await app.inject({ url: `/api/v1/correction-reports/${code}` })).json();
    expect((tracking.data ?? tracking).status).toBe('accepted');
    expect((tracking.data ?? tracking).changedCanonicalData).toBe(false);

    const decline = await cli(['decline', code, '--reviewer', 'Dana Editor', '--note', 'Superseded.']);
    expect(decline.code, decline.stderr).toBe(0);
    const again = await cli(['accept', code, '--reviewer', 'Dana Editor']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('"declined"');
  });
});
