/**
 * The OpenAPI document under outside linters, run from devDependencies: Redocly's recommended
 * ruleset and Spectral's `spectral:oas` report no errors (warnings are allowed). A copy with a
 * known error is refused by both, so the check can fail.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/openapi/document.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-openapi-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const document = buildOpenApi('https://archive.example.org');
const file = (name: string, doc: unknown) => {
  const p = path.join(dir, name);
  writeFileSync(p, JSON.stringify(doc, null, 1));
  return p;
};
const good = file('openapi.json', document);
// A reference to a component that does not exist: an error for both linters.
const broken = structuredClone(document) as {
  paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>>;
};
broken.paths['/api/v1/music/resolve']!.post!.requestBody.content['application/json']!.schema = {
  $ref: '#/components/schemas/NoSuchSchema',
};
const bad = file('broken.json', broken);
const ruleset = path.join(dir, '.spectral.yaml');
writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');

/** Exit code and output of a linter (through npx, from the project's devDependencies). */
async function lint(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', ...args], {
      cwd: PROJECT_ROOT,
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

describe('the OpenAPI document under outside linters', () => {
  it("Redocly's recommended ruleset reports no errors", async () => {
    const ok = await lint(['redocly', 'lint', '--extends', 'recommended', '--format', 'stylish', good]);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).not.toMatch(/\berror\b/);
    const refused = await lint(['redocly', 'lint', '--extends', 'recommended', '--format', 'stylish', bad]);
    expect(refused.code, refused.out).not.toBe(0);
  }, 600_000);

  it("Spectral's spectral:oas reports no errors", async () => {
    const ok = await lint(['spectral', 'lint', '--fail-severity', 'error', '-r', ruleset, good]);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/0 errors/);
    const refused = await lint(['spectral', 'lint', '--fail-severity', 'error', '-r', ruleset, bad]);
    expect(refused.code, refused.out).not.toBe(0);
  }, 600_000);

  it('declares security on every operation: [] when public, a named credential otherwise', () => {
    const doc = document as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(Object.keys(doc.components.securitySchemes)).toEqual(
      expect.arrayContaining(['libraryKey', 'curatorKey', 'adminKey', 'deskSession', 'readerSession']),
    );
    for (const [p, ops] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(ops)) expect(Array.isArray(op.security), `${m} ${p}`).toBe(true);
    expect(doc.paths['/api/v1/music/resolve']!.post!.security).toEqual([]);
    expect(doc.paths['/api/v1/library/tracks/{stableKey}/publish']!.post!.security).toEqual([
      { curatorKey: [] },
      { bearerKey: [] },
    ]);
    expect(doc.paths['/api/v1/works/{slug}/assets/{assetId}/download']!.get!.security).toEqual([{ readerSession: [] }]);
    // Named components are referenced, not copied: ResolveResult names ResolveCandidate by $ref.
    expect(
      JSON.stringify(
        (document as { components: { schemas: Record<string, unknown> } }).components.schemas.ResolveResult,
      ),
    ).toContain('"$ref":"#/components/schemas/ResolveCandidate"');
  });
});
