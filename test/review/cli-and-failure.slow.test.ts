/**
 * The review CLI against a listening server, and an apply whose build fails: main is reset, the
 * old site keeps serving, the item stays `accepted` with the error recorded. The build is a
 * stand-in that fails (no real rebuild is needed to show the rollback); seeded from the mini fixture.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../api/config.ts';
import { git } from '../../api/site/content-repo.ts';
import type { SiteHandle } from '../../api/site/site-handle.ts';
import { runScript } from '../helpers/process.ts';
import { fileCorrection, injectCaller } from '../helpers/corrections.ts';
import { GatedRebuilder } from '../helpers/gated-rebuilder.ts';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';

const KEY = 'admin-cli-secret-1';
let writable: WritableApp<GatedRebuilder>;
let app: FastifyInstance;
let server: string;
let config: Config;
let handle: SiteHandle;

beforeAll(async () => {
  // A build that fails at once: no real rebuild is needed to show the rollback.
  writable = await openWritableApp({
    prefix: 'pdma-review-cli-',
    env: { PUBLIC_BASE_URL: 'http://127.0.0.1:4321', ARCHIVE_ADMIN_KEYS: KEY },
    seed: 'test/fixtures/mini',
    rebuilder: (real) => Object.assign(new GatedRebuilder(real), { fail: true }),
    listen: true,
  });
  writable.rebuilder.open();
  ({ app, config, handle } = writable);
  server = writable.url!;
});
afterAll(async () => {
  await writable?.close();
});

/** The review CLI against the app, with `env` as its whole environment (and PATH): its exit code and output. */
async function cli(args: string[], env: Record<string, string> = { ARCHIVE_ADMIN_KEY: KEY }) {
  const r = await runScript(
    'review.ts',
    [...args, '--server', server],
    { PATH: process.env.PATH ?? '', ...env },
    {
      replaceEnv: true,
    },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('review CLI and a failed apply', () => {
  it('lists, accepts and tries to apply; a failed build leaves main, the site and the status as they were', async () => {
    const code = await fileCorrection(injectCaller(app), {
      workSlug: 'bach-minuet-in-g',
      fieldName: 'composer.died',
      currentValue: '1733-07-25',
      proposedValue: '1733-07-26',
      rationale: 'Burial register.',
    });

    expect((await cli(['list'], {})).code).toBe(2); // no key: usage error, nothing sent
    const list = await cli(['list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(code);
    expect(list.stdout).toContain('correct composer.died of bach-minuet-in-g');

    const keyFile = path.join(writable.root, 'key.txt');
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
    expect(readFileSync(path.join(config.contentRepo, 'people', 'petzold-christian.json'), 'utf8')).toContain(
      '"died": "1733-07-25"',
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
