/**
 * Key authentication: entry parsing and labels, constant-time identification, keys in URLs, and
 * the auth matrix over every library route x {no key, wrong key, key in query, library key,
 * curator key}. Also: no log line holds a key, and a route with no configured key says which
 * variable to set.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { KeyRing, keyInQuery, parseKeyEntry } from '../../api/http/auth.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { inject } from 'vitest';
import {
  ADMIN_SECRET,
  CURATOR_SECRET,
  CUR,
  KEY_ENV,
  LIB,
  LIBRARY_SECRET,
  fileInput,
  importAndCommit,
  importInput,
  openImport,
  openLibraryApp,
  sha256,
  type LibraryTestApp,
} from './library-helpers.ts';

describe('key entries', () => {
  it('reads label=secret, and gives a plain secret a label from its digest', () => {
    expect(parseKeyEntry('ada=curator-secret-1')).toEqual({ label: 'ada', secret: 'curator-secret-1' });
    expect(parseKeyEntry('plain-secret-value')).toEqual({
      label: `key-${sha256('plain-secret-value').slice(0, 6)}`,
      secret: 'plain-secret-value',
    });
  });

  it('keeps base64 keys ending in "=" and short labeled secrets whole', () => {
    expect(parseKeyEntry('c2VjcmV0a2V5MTIzNA==').secret).toBe('c2VjcmV0a2V5MTIzNA==');
    expect(parseKeyEntry('ada=short').secret).toBe('ada=short');
    expect(parseKeyEntry('9lives=long-enough-secret').secret).toBe('9lives=long-enough-secret');
  });

  it('identifies a key with every role it holds, and nothing else', () => {
    const ring = new KeyRing({
      library: ['a=secret-one-1234', 'shared-secret-99'],
      curator: ['shared-secret-99'],
      admin: [],
    });
    expect(ring.identify('secret-one-1234')).toEqual({ label: 'a', roles: ['library'] });
    expect(ring.identify('shared-secret-99')?.roles).toEqual(['library', 'curator']);
    expect(ring.identify('secret-one-123')).toBeNull();
    expect(ring.identify('')).toBeNull();
    expect(ring.configuredFor(['admin'])).toBe(false);
  });

  it('finds keys in a query string by name or by value', () => {
    const ring = new KeyRing({ library: ['secret-one-1234'], curator: [], admin: [] });
    for (const q of [
      'key=x',
      'apiKey=x',
      'api_key=x',
      'API-KEY=x',
      'token=x',
      'access_token=x',
      'importKey=x',
      'page=1&q=secret-one-1234',
    ]) {
      expect(keyInQuery(`/api/v1/library/tracks?${q}`, ring), q).not.toBeNull();
    }
    expect(keyInQuery('/api/v1/library/tracks?query=minuet&page=2', ring)).toBeNull();
    expect(keyInQuery('/api/v1/library/tracks', ring)).toBeNull();
  });
});

describe('the auth matrix over every library route', () => {
  let t: LibraryTestApp;
  let routes: {
    name: string;
    method: string;
    url: string;
    payload?: unknown;
    headers?: Record<string, string>;
    library: number;
    curator: number;
  }[];

  beforeAll(async () => {
    // The matrix sends dozens of wrong keys from one address on purpose; the credential limiter
    // has its own test below.
    t = await openLibraryApp({ ARCHIVE_CREDENTIAL_FAILURE_LIMIT: '1000/60' });
    // Publication reads the content repository; a small one is enough to reach the eligibility check.
    await ensureContentRepo(path.join(t.dataDir, 'content'), path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
    const bytes = randomBytes(64);
    const { imp } = await importAndCommit(
      t,
      importInput([fileInput(bytes)], {}, { stableKey: 'matrix-track', rightsStatus: 'unknown' }),
      [bytes],
    );
    const open = await openImport(t, importInput([fileInput(bytes)], {}, { stableKey: 'matrix-open' }));
    const octet = { 'content-type': 'application/octet-stream' };
    routes = [
      {
        name: 'create import',
        method: 'POST',
        url: '/api/v1/library/imports',
        payload: importInput([fileInput(bytes)], { idempotencyKey: 'matrix-create' }, { stableKey: 'matrix-new' }),
        library: 200,
        curator: 200,
      },
      { name: 'read import', method: 'GET', url: `/api/v1/library/imports/${open.id}`, library: 200, curator: 200 },
      {
        name: 'upload',
        method: 'PUT',
        url: `/api/v1/library/imports/${open.id}/files/${open.files[0].id}`,
        payload: Buffer.alloc(0),
        headers: octet,
        library: 200,
        curator: 200,
      },
      { name: 'commit', method: 'POST', url: `/api/v1/library/imports/${imp.id}/commit`, library: 200, curator: 200 },
      { name: 'list tracks', method: 'GET', url: '/api/v1/library/tracks', library: 200, curator: 200 },
      { name: 'read track', method: 'GET', url: '/api/v1/library/tracks/matrix-track', library: 200, curator: 200 },
      {
        name: 'publish',
        method: 'POST',
        url: '/api/v1/library/tracks/matrix-track/publish',
        library: 403,
        curator: 422,
      },
      { name: 'download', method: 'GET', url: `/api/v1/library/files/${imp.files[0].id}`, library: 200, curator: 200 },
    ];
  });
  afterAll(() => t.close());

  const send = (r: (typeof routes)[number], headers: Record<string, string>, query = '') =>
    t.request({
      method: r.method,
      url: `${r.url}${query}`,
      headers: { ...(r.headers ?? {}), ...headers },
      ...(r.payload !== undefined ? { payload: r.payload } : {}),
    });

  it('answers 401 with WWW-Authenticate: Bearer without a key or with a wrong one', async () => {
    for (const r of routes) {
      const variants: Record<string, string>[] = [
        {},
        { 'x-archive-import-key': 'wrong-key-0000000' },
        { authorization: 'Bearer wrong-key-0000000' },
        { authorization: `Basic ${LIBRARY_SECRET}` },
      ];
      for (const headers of variants) {
        const res = await send(r, headers);
        expect(res.statusCode, `${r.name} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(res.json().type).toMatch(/\/problems\/unauthorized$/);
        expect(res.body).not.toContain(LIBRARY_SECRET);
      }
    }
  });

  it('answers 400 key-in-url for a key in the query, even with a valid header', async () => {
    for (const r of routes) {
      for (const query of [`?key=${LIBRARY_SECRET}`, '?api_key=anything', `?page=1&x=${CURATOR_SECRET}`]) {
        const res = await send(r, CUR, query);
        expect(res.statusCode, `${r.name} ${query}`).toBe(400);
        expect(res.json().type).toMatch(/\/problems\/key-in-url$/);
        expect(res.body).not.toContain(LIBRARY_SECRET);
        expect(res.body).not.toContain(CURATOR_SECRET);
        expect(res.json().instance).toBe(r.url);
      }
    }
  });

  it('admits library and curator keys by role: publication needs a curator', async () => {
    for (const r of routes) {
      expect((await send(r, LIB)).statusCode, `${r.name} with a library key`).toBe(r.library);
      expect((await send(r, CUR)).statusCode, `${r.name} with a curator key`).toBe(r.curator);
    }
  });

  it('refuses an admin key on library routes with 403', async () => {
    const res = await t.request({
      url: '/api/v1/library/tracks',
      headers: { authorization: `Bearer ${ADMIN_SECRET}` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().type).toMatch(/\/problems\/forbidden$/);
  });

  it("takes each role's key only in its own header: the admin key in X-Archive-Import-Key is refused (401) on every route", async () => {
    for (const url of ['/api/v1/library/tracks', '/api/v1/admin/queue']) {
      const res = await t.request({ url, headers: { 'x-archive-import-key': ADMIN_SECRET } });
      expect(res.statusCode, url).toBe(401);
      expect(res.json().type).toMatch(/\/problems\/unauthorized$/);
      expect(res.json().detail).toContain('X-Archive-Import-Key');
      expect(res.body).not.toContain(ADMIN_SECRET);
    }
    // The same key as Bearer reaches the admin route.
    const bearer = await t.request({
      url: '/api/v1/admin/queue',
      headers: { authorization: `Bearer ${ADMIN_SECRET}` },
    });
    expect(bearer.statusCode).toBe(200);
  });
});

describe('without configured keys', () => {
  it('refuses every request and names the variable to set', async () => {
    const t = await openLibraryApp({ ARCHIVE_LIBRARY_KEYS: '', ARCHIVE_CURATOR_KEYS: '' });
    try {
      const res = await t.request({ url: '/api/v1/library/tracks', headers: LIB });
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toContain('ARCHIVE_LIBRARY_KEYS');
      const publish = await t.request({ method: 'POST', url: '/api/v1/library/tracks/x/publish', headers: CUR });
      expect(publish.json().detail).toContain('ARCHIVE_CURATOR_KEYS');
    } finally {
      await t.close();
    }
  });
});

describe('logs', () => {
  it('never hold a key, from headers or from a query', async () => {
    let logged = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        logged += String(chunk);
        done();
      },
    });
    const buildDir = inject('sampleBuildDir');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-library-logs-'));
    const config = loadConfig(
      { PUBLIC_BASE_URL: 'https://logs.example.test', ARCHIVE_DATA_DIR: dataDir, ...KEY_ENV },
      PROJECT_ROOT,
    );
    const logger = { level: 'trace', stream };
    const app = await createApp({ config, handle: await SiteHandle.open(buildDir) }, { logger });
    try {
      await app.inject({ url: '/api/v1/library/tracks', headers: LIB });
      await app.inject({ url: `/api/v1/library/tracks?key=${LIBRARY_SECRET}`, headers: CUR });
      await app.inject({ url: `/api/v1/library/tracks?q=${CURATOR_SECRET}` });
      await app.inject({
        method: 'POST',
        url: '/api/v1/library/imports',
        headers: { ...LIB, 'content-type': 'application/json' },
        payload: '{"broken',
      });
      await app.inject({
        url: '/api/v1/library/files/00000000-0000-4000-8000-000000000000',
        headers: { authorization: `Bearer ${CURATOR_SECRET}` },
      });
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(logged).toContain('/api/v1/library/tracks');
    for (const secret of [LIBRARY_SECRET, CURATOR_SECRET, ADMIN_SECRET]) expect(logged).not.toContain(secret);
  });
});
