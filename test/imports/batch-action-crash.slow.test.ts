/**
 * "Nothing acknowledged is lost" for batch actions (docs/imports.md, "Batch actions run in the
 * background"): a real `npm start` process acknowledges an accept of a batch of real songs (202),
 * is SIGKILLed with its children once the action has accepted at least one of them, and a restart
 * on the same data folder resumes the action to its end: every song accepted exactly once, the
 * action `completed` with the restart in `resumedAtUtc`, and the service says it resumed it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { dataOf, killTree, ServiceRun, type Started } from '../helpers/process.ts';

const serviceRun = new ServiceRun('pdma-batch-action-crash-');
const dataDir = serviceRun.dataDir;
const KEY = 'alice-batch-crash-secret-1';
const ENV = { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: `alice=${KEY}` };
const BATCH = 'openscore-lieder';
const SONGS = ['5016466', '5701612', '5001925', '5100073'];
const auth = { authorization: `Bearer ${KEY}` };
afterAll(() => serviceRun.dispose());

async function submit(url: string, id: string): Promise<string> {
  const { body, bytes, sha256 } = plannedImportItem(LIEDER, `lc${id}.mxl`, `crash-song-${id}`);
  const put = await fetch(`${url}/api/v1/admin/imports/files/${sha256}`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  });
  expect(put.status, await put.clone().text()).toBe(201);
  const res = await fetch(`${url}/api/v1/admin/imports/items`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ contribution: body }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await dataOf(res)).trackingCode as string;
}

/** The action's record as the killed process left it on disk (state/import-batches/actions/<shard>/<id>.json). */
function storedAction(actionId: string): Record<string, any> {
  const dir = path.join(dataDir, 'state', 'import-batches', 'actions');
  for (const shard of readdirSync(dir)) {
    const file = path.join(dir, shard, `${actionId}.json`);
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
    } catch {
      // not in this shard
    }
  }
  throw new Error(`no record of ${actionId}`);
}

describe('SIGKILL during a batch accept', () => {
  it('the restart resumes the action: every work accepted once, the action completed', async () => {
    let running: Started = await serviceRun.start(ENV, 240_000);
    const codes: string[] = [];
    for (const id of SONGS) codes.push(await submit(running.url, id));

    const res = await fetch(`${running.url}/api/v1/admin/batches/${BATCH}/accept`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ reviewer: 'Alice' }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const location = new URL(res.headers.get('location')!).pathname;
    const actionId = (await dataOf(res)).actionId as string;

    // Kill once at least one work is accepted and some are not (a power cut mid-action).
    const deadline = Date.now() + 180_000;
    for (;;) {
      const a = await dataOf(await fetch(`${running.url}${location}`, { headers: auth }));
      if (a.done >= 1) {
        expect(a.state, JSON.stringify(a)).toBe('running');
        break;
      }
      if (Date.now() > deadline) throw new Error(`nothing accepted within 180 s:\n${running.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    killTree(running.child.pid!);
    await running.stop('SIGKILL');
    const left = storedAction(actionId);
    expect(left.state).toBe('running');
    expect(left.items.filter((i: { outcome: string }) => i.outcome === 'waiting').length).toBeGreaterThan(0);

    running = await serviceRun.start(ENV, 240_000);
    let a: Record<string, any> = {};
    const until = Date.now() + 300_000;
    for (;;) {
      a = await dataOf(await fetch(`${running.url}${location}`, { headers: auth }));
      if (a.state !== 'running') break;
      if (Date.now() > until) throw new Error(`still running after the restart:\n${running.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(a, JSON.stringify(a)).toMatchObject({ state: 'completed', total: SONGS.length, actedOn: SONGS.length });
    expect(a.resumedAtUtc).toHaveLength(1);
    expect(running.output()).toContain(`resuming the accept of batch ${BATCH} (${actionId})`);
    for (const code of codes) {
      const item = await dataOf(await fetch(`${running.url}/api/v1/admin/contributions/${code}`, { headers: auth }));
      expect(item.status).toBe('accepted');
      const accepts = item.review.actions.filter((x: { action: string }) => x.action === 'accept');
      expect(accepts, JSON.stringify(item.review.actions)).toHaveLength(1);
      expect(accepts[0]).toMatchObject({ actor: 'alice', reviewer: 'Alice' });
    }
  }, 900_000);
});
