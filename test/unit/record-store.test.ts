import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordExistsError, RecordStore } from '../../api/storage/record-store.ts';
import { expectEach } from '../helpers/expect-each.ts';

const dirs: string[] = [];
function store<T extends object>() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-store-'));
  dirs.push(dir);
  return new RecordStore<T>(dir);
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('RecordStore', () => {
  it('creates, reads and updates a record', async () => {
    const s = store<{ n: number }>();
    await s.create('a1', { n: 1 });
    expect(await s.get('a1')).toEqual({ n: 1 });
    expect(await s.update('a1', (v) => ({ n: v.n + 1 }))).toEqual({ n: 2 });
    expect(await s.get('a1')).toEqual({ n: 2 });
    expect(await s.get('missing')).toBeNull();
    expect(await s.update('missing', (v) => v)).toBeNull();
  });

  it('lets exactly one of many concurrent creates of the same id win', async () => {
    const s = store<{ who: number }>();
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, who) => s.create('same', { who })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expectEach(rejected, (r) => r.reason instanceof RecordExistsError);
    const files = readdirSync(path.dirname(s.pathOf('same')));
    expect(files).toEqual(['same.json']); // no temporary files left behind
  });

  it('serialises concurrent updates of one record', async () => {
    const s = store<{ n: number }>();
    await s.create('c', { n: 0 });
    await Promise.all(Array.from({ length: 40 }, () => s.update('c', async (v) => ({ n: v.n + 1 }))));
    expect(await s.get('c')).toEqual({ n: 40 });
  });

  it('lists every record and refuses unsafe ids', async () => {
    const s = store<{ id: string }>();
    for (const id of ['x1', 'x2', 'x3']) await s.create(id, { id });
    const seen: string[] = [];
    for await (const r of s.all()) seen.push(r.id);
    expect(seen.sort()).toEqual(['x1', 'x2', 'x3']);
    expect(() => s.pathOf('../etc/passwd')).toThrow(/unsafe record id/);
  });
});
