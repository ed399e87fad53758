/**
 * Admin imports are not throttled by the public intake's limit (docs/imports.md): with the public
 * limit at two submissions a minute, an admin key still submits every work of a batch at once,
 * while the public contribution route answers 429 to the third; a file staged once answers HEAD
 * 200, so a re-run does not send it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { sha256 } from '../review/harness.ts';

const KEY = 'limits-admin-secret-1';
const SONGS = ['5016466', '5701612', '6050301', '5001925', '5100073', '5092612'];
let w: WritableApp;

beforeAll(async () => {
  w = await openWritableApp({
    prefix: 'pdma-import-limits-',
    env: { ARCHIVE_ADMIN_KEYS: `ops=${KEY}`, ARCHIVE_CONTRIBUTION_RATE_LIMIT: '2/60' },
  });
}, 120_000);
afterAll(() => w?.close());

const auth = { authorization: `Bearer ${KEY}` };

describe('admin imports and the public intake limit', () => {
  it('submits six import items at once with the public limit at two a minute; the public route is limited', async () => {
    for (const id of SONGS) {
      const { body, bytes } = plannedImportItem(LIEDER, `lc${id}.mxl`, `song-${id}`);
      const url = `/api/v1/admin/imports/files/${sha256(bytes)}`;
      expect((await w.app.inject({ method: 'HEAD', url, headers: auth })).statusCode).toBe(404);
      const put = await w.app.inject({
        method: 'PUT',
        url,
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        payload: bytes,
      });
      expect(put.statusCode, put.body).toBe(201);
      // Staged now: a re-run asks before it sends.
      expect((await w.app.inject({ method: 'HEAD', url, headers: auth })).statusCode).toBe(200);
      const res = await w.app.inject({
        method: 'POST',
        url: '/api/v1/admin/imports/items',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: { contribution: body },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await w.app.inject({
        method: 'POST',
        url: '/api/v1/music/contributions',
        headers: { 'content-type': 'application/json' },
        payload: {},
      });
      statuses.push(res.statusCode);
    }
    expect(statuses[2]).toBe(429);
  }, 120_000);
});
