/**
 * `npm run backup` against a busy archive: about 9,000 state records and a steady 20 submissions
 * a second for the whole backup. Without a write pause every pass over the state saw a new record
 * and the backup gave up after 20 passes; with it, new writes wait briefly, the snapshot converges,
 * and a restore holds every submission acknowledged before the backup began and every record of
 * the state, byte for byte; each submission taken during the backup is there whole or absent.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runScript } from '../helpers/process.ts';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp, listenOnLoopback } from '../helpers/app.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { CONTRIBUTIONS } from '../contributions/helpers.ts';
import { fillTemplate } from '../helpers/filled-template.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-backup-busy-'));
const original = path.join(root, 'original');
const restored = path.join(root, 'restored');
const backupDir = path.join(root, 'backup');
const RATE = { ARCHIVE_CONTRIBUTION_RATE_LIMIT: '100000/60' };
const apps: TestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
  rmSync(root, { recursive: true, force: true });
});

/** Every file under `dir`, relative, with its bytes. */
function tree(dir: string, rel = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) for (const [k, v] of tree(dir, r)) out.set(k, v);
    else if (!(e.name.startsWith('.') && e.name.endsWith('.tmp'))) out.set(r, readFileSync(path.join(dir, r), 'utf8'));
  }
  return out;
}

describe('backup under steady writes', () => {
  it('converges with 9,000 records and 20 writes a second, and the restore loses nothing', async () => {
    await ensureContentRepo(path.join(original, 'content'), path.join(PROJECT_ROOT, 'content'));
    // A busy archive's state in size: 9,000 records in 256 shards (a collection the server never reads).
    for (let i = 0; i < 9000; i++) {
      const shard = path.join(original, 'state', 'bulk-fixture', (i % 256).toString(16).padStart(2, '0'));
      if (i < 256) mkdirSync(shard, { recursive: true });
      writeFileSync(path.join(shard, `record-${i}.json`), JSON.stringify({ i, text: 'x'.repeat(400) }));
    }
    const t = await openApp(inject('sampleBuildDir'), { ARCHIVE_DATA_DIR: original, ...RATE });
    apps.push(t);
    const url = await listenOnLoopback(t.app);
    const template = fillTemplate(((await (await fetch(`${url}${CONTRIBUTIONS}/template`)).json()) as object) ?? {});
    const submit = async (key: string) => {
      const res = await fetch(`${url}${CONTRIBUTIONS}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...template, idempotencyKey: key }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { data: { trackingCode: string } }).data.trackingCode;
    };
    const before: string[] = [];
    for (let i = 0; i < 5; i++) before.push(await submit(`busy-before-${i}`));

    // A steady 20 writes a second, started on a clock (not after each answer), for the whole backup.
    let writing = true;
    const during: string[] = [];
    const pending: Array<Promise<void>> = [];
    const started = Date.now();
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        pending.push(submit(`busy-during-${i}`).then((code) => void during.push(code)));
        const next = started + (i + 1) * 50;
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
      }
    })();
    const backup = await runScript('backup.ts', ['--out', backupDir], { ARCHIVE_DATA_DIR: original });
    writing = false;
    await writer;
    await Promise.all(pending);
    const seconds = (Date.now() - started) / 1000;
    expect(backup.status, backup.out).toBe(0);
    // The writes kept their pace: at least 15 a second over the backup, none refused.
    expect(during.length / seconds).toBeGreaterThan(15);
    const manifest = JSON.parse(readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest.state.files).toBeGreaterThanOrEqual(9000 + before.length);
    console.log(
      `backup under writes: ${manifest.state.files} records, ${manifest.state.rounds} passes, writes paused ${manifest.state.pausedMs ?? 0} ms, ${during.length} writes in ${seconds.toFixed(1)} s`,
    );

    // Restore, and the restored state is the backup's, byte for byte.
    const restore = await runScript('restore.ts', ['--from', backupDir], { ARCHIVE_DATA_DIR: restored });
    expect(restore.status, restore.out).toBe(0);
    const fromBackup = tree(path.join(backupDir, 'state'));
    const inRestore = tree(path.join(restored, 'state'));
    expect([...inRestore.keys()].sort()).toEqual([...fromBackup.keys()].sort());
    for (const [k, v] of fromBackup) expect(inRestore.get(k) === v, k).toBe(true);
    expect([...inRestore.keys()].filter((k) => k.startsWith('bulk-fixture')).length).toBe(9000);

    // Served over HTTP by the restored archive: every submission from before the backup, and
    // each one from during it whole (pending) or absent.
    const r = await openApp(inject('sampleBuildDir'), { ARCHIVE_DATA_DIR: restored });
    apps.push(r);
    const rurl = await listenOnLoopback(r.app);
    for (const code of before) expect((await fetch(`${rurl}${CONTRIBUTIONS}/${code}`)).status, code).toBe(200);
    let present = 0;
    for (const code of during) {
      const res = await fetch(`${rurl}${CONTRIBUTIONS}/${code}`);
      expect([200, 404], code).toContain(res.status);
      if (res.status === 200) {
        present++;
        expect(((await res.json()) as { data: { status: string } }).data.status).toBe('pending');
      }
    }
    expect(present).toBeGreaterThan(0);
  }, 300_000);
});
