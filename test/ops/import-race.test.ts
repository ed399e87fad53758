/**
 * 50 concurrent identical library imports (one idempotencyKey) write exactly one import
 * record and one key record, and every request is answered with that import.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileInput, importInput, LIB, openLibraryApp, type LibraryTestApp } from '../library/library-helpers.ts';

let t: LibraryTestApp;
beforeEach(async () => {
  t = await openLibraryApp();
});
afterEach(async () => {
  await t.close();
});

/** Record files of one collection (temporary files excluded). */
function records(dataDir: string, collection: string): string[] {
  const dir = path.join(dataDir, 'state', 'library', collection);
  let shards: string[];
  try {
    shards = readdirSync(dir);
  } catch {
    return [];
  }
  return shards.flatMap((s) =>
    readdirSync(path.join(dir, s))
      .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
      .map((f) => path.join(s, f)),
  );
}

describe('library import idempotency race', () => {
  it('writes exactly one import record for 50 concurrent identical imports', async () => {
    const input = importInput([fileInput(randomBytes(64))]);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.app.inject({ method: 'POST', url: '/api/v1/library/imports', headers: LIB, payload: input as never }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(50).fill(200));
    const ids = new Set(answers.map((a) => a.json().data.id as string));
    expect(ids.size).toBe(1);
    expect(records(t.dataDir, 'imports')).toHaveLength(1);
    expect(records(t.dataDir, 'idempotency')).toHaveLength(1);
    const [only] = records(t.dataDir, 'imports');
    expect(path.basename(only!, '.json')).toBe([...ids][0]);
  });

  it('still refuses the key with different content while the race is on', async () => {
    const input = importInput([fileInput(randomBytes(64))]);
    const changed = { ...input, track: { ...input.track, title: 'Another title' } };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/library/imports',
          headers: LIB,
          payload: (i % 2 ? changed : input) as never,
        }),
      ),
    );
    const ok = answers.filter((a) => a.statusCode === 200);
    const refused = answers.filter((a) => a.statusCode === 422);
    expect(ok.length + refused.length).toBe(20);
    expect(ok.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.json().type).toMatch(/\/problems\/idempotency-conflict$/);
    expect(new Set(ok.map((a) => a.json().data.title ?? a.json().data.track?.title)).size).toBe(1);
    expect(records(t.dataDir, 'imports')).toHaveLength(1);
  });
});
