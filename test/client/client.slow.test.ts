/**
 * The typed client (client/): its generated types match the served OpenAPI document, and
 * examples/agent.ts runs as a real process against a real server (resolve -> template ->
 * submit -> track), its submission visible over HTTP afterwards.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientTypes, SCHEMA_FILE } from '../../client/scripts/generate.ts';
import { createArchiveClient } from '../../client/src/index.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { listenArchive, type ListeningArchive } from '../mcp/helpers.ts';

const run = promisify(execFile);

let archive: ListeningArchive;
beforeAll(async () => {
  archive = await listenArchive();
});
afterAll(() => archive?.close());

describe('typed client', () => {
  it('is generated from the served OpenAPI document (stale types fail: run npm run generate:client)', async () => {
    const served = (await archive.request({ url: '/api/v1/openapi.json' })).json();
    const fresh = await generateClientTypes(served);
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    expect(
      committed === fresh,
      'client/src/schema.ts is stale: run `npm run generate:client` and commit the result',
    ).toBe(true);
  });

  it('calls the API through openapi-fetch and returns problems as errors', async () => {
    const client = createArchiveClient(archive.url);
    const works = await client.GET('/api/v1/works', { params: { query: { composer: 'satie', pageSize: 2 } } });
    expect(works.response.status).toBe(200);
    expect(works.data?.data.items.map((w) => w.slug)).toContain('satie-gymnopedie-1');
    const bad = await client.GET('/api/v1/works', { params: { query: { pageSize: 1000 } } });
    expect(bad.data).toBeUndefined();
    expect(bad.error).toMatchObject({ status: 400, errors: [expect.objectContaining({ parameter: 'pageSize' })] });
  });

  it("examples/agent.ts runs by the README's own command, on the oldest Node the README names, against a real server", async () => {
    // The README's quick start names the minimum Node and the command that runs the example on it.
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const quickStart = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
    );
    const minimum = /Needs Node\.js (\d+\.\d+) or later/.exec(quickStart)?.[1];
    const command = /`(node [^`]*examples\/agent\.ts)`/.exec(quickStart)?.[1];
    expect(minimum, 'the quick start names the minimum Node').toBeDefined();
    expect(command, 'the quick start names the command that runs examples/agent.ts').toBeDefined();
    // That Node from the npm registry (the package `node` at that version), as a user on it would have.
    const onMinimum = ['exec', '--yes', `--package=node@${minimum}.0`, '--'];
    const env = { ...process.env, ARCHIVE_BASE_URL: archive.url, npm_config_update_notifier: 'false' };
    const version = await run('npm', [...onMinimum, 'node', '--version'], { cwd: PROJECT_ROOT, env, timeout: 300_000 });
    expect(version.stdout.trim()).toBe(`v${minimum}.0`);
    const { stdout } = await run('npm', [...onMinimum, ...command!.split(/\s+/)], {
      cwd: PROJECT_ROOT,
      env,
      timeout: 120_000,
    });
    const lines = stdout.trim().split('\n');
    const result = JSON.parse(lines.at(-1)!) as { verdict: string; trackingCode: string; status: string };
    expect(lines[0]).toBe('resolve satie-gymnopedie-1: prepare');
    expect(result).toMatchObject({
      verdict: 'prepare',
      trackingCode: expect.stringMatching(/^C(-[2-9A-HJKMNP-Z]{4}){4}$/),
      status: 'pending',
    });
    const tracked = await archive.request({ url: `/api/v1/music/contributions/${result.trackingCode}` });
    expect(tracked.statusCode).toBe(200);
    expect(tracked.json().data.status).toBe('pending');
  }, 600_000);
});
