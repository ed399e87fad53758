/**
 * Timeouts and graceful stop, in process on a real socket: idle, silent and slow sockets are closed
 * within the configured timeouts; a graceful stop is bounded by ARCHIVE_DRAIN_TIMEOUT_MS (a stalled
 * upload is cut, keeping its stored offset); requests that arrive while draining get a 503
 * problem; stale temporary files of a killed process are removed at start, others are kept.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../api/config.ts';
import { prepareDataDir } from '../../api/lifecycle.ts';
import { RecordStore } from '../../api/storage/record-store.ts';
import { honourWritePause } from '../../api/storage/write-pause.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { fileInput, importInput, KEY_ENV, LIB } from '../library/library-helpers.ts';
import { openServed, type Served } from './ops-helpers.ts';

let s: Served | null = null;
afterEach(async () => {
  await s?.close();
  s = null;
});

interface Watched {
  socket: Socket;
  openedAt: number;
  closedAt: Promise<number>;
  received: () => string;
}

function open(port: number): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += String(d)));
    socket.on('error', () => undefined);
    const closedAt = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
    socket.once('connect', () => resolve({ socket, openedAt: Date.now(), closedAt, received: () => data }));
    socket.once('error', reject);
  });
}

/** Resolves when `socket` has received a complete answer to one request (headers + Content-Length body). */
function answered(w: Watched): Promise<number> {
  return new Promise((resolve) => {
    const check = () => {
      const text = w.received();
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(text) >= end + 4 + Number(length)) {
        w.socket.off('data', check);
        resolve(Date.now());
      }
    };
    w.socket.on('data', check);
    check();
  });
}

const TIMEOUTS = {
  ARCHIVE_HEADERS_TIMEOUT_MS: '1000',
  ARCHIVE_REQUEST_TIMEOUT_MS: '2000',
  ARCHIVE_KEEP_ALIVE_TIMEOUT_MS: '500',
  ARCHIVE_IDLE_TIMEOUT_MS: '1500',
};
// Generous for a busy two-core machine, and still far below Node's defaults (which never closed them).
const MARGIN_MS = 2000;

describe('server timeouts', () => {
  it('answers a body that stalls mid-way with a 408 problem at the idle timeout, not a silent close', async () => {
    // The whole-request timeout is far away: only the idle timeout can end this request.
    s = await openServed({ ARCHIVE_IDLE_TIMEOUT_MS: '1500', ARCHIVE_REQUEST_TIMEOUT_MS: '300000' });
    const [w, silent] = await Promise.all([open(s.serving.port), open(s.serving.port)]);
    const answer = answered(w);
    w.socket.write(
      'POST /api/v1/music/contributions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"operation":',
    );
    await answer;
    await w.closedAt;
    const text = w.received();
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(text).toMatch(/content-type: application\/problem\+json/i);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 408, detail: expect.stringContaining('ARCHIVE_IDLE_TIMEOUT_MS') });
    // A silent socket that sent nothing is still just closed.
    await silent.closedAt;
    expect(silent.received()).toBe('');
  });

  it('closes silent, idle keep-alive and slow-header sockets within the configured timeouts', async () => {
    s = await openServed(TIMEOUTS);
    const port = s.serving.port;
    const silent = await Promise.all(Array.from({ length: 30 }, () => open(port)));
    const keepAlive = await Promise.all(Array.from({ length: 30 }, () => open(port)));
    const slow = await Promise.all(Array.from({ length: 30 }, () => open(port)));
    const answeredAt = keepAlive.map((w) => {
      const done = answered(w);
      w.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
      return done;
    });
    // Slowloris: a header line every 200 ms keeps the socket busy, so only the headers timeout ends it.
    const drip = setInterval(() => {
      for (const w of slow)
        if (!w.socket.destroyed)
          w.socket.write(
            w.received() === '' && !w.socket.writableEnded
              ? `X-Drip-${Math.random().toString(36).slice(2)}: 1\r\n`
              : '',
          );
    }, 200);
    for (const w of slow) w.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    try {
      for (const w of silent)
        expect((await w.closedAt) - w.openedAt).toBeLessThanOrEqual(
          Number(TIMEOUTS.ARCHIVE_IDLE_TIMEOUT_MS) + MARGIN_MS,
        );
      for (const [i, w] of keepAlive.entries()) {
        const after = await answeredAt[i]!;
        expect(w.received()).toMatch(/^HTTP\/1\.1 200 /);
        expect((await w.closedAt) - after).toBeLessThanOrEqual(
          Number(TIMEOUTS.ARCHIVE_KEEP_ALIVE_TIMEOUT_MS) + MARGIN_MS,
        );
      }
      for (const w of slow) {
        expect((await w.closedAt) - w.openedAt).toBeLessThanOrEqual(
          Number(TIMEOUTS.ARCHIVE_HEADERS_TIMEOUT_MS) + MARGIN_MS,
        );
        // Whatever the server said before closing is a problem detail (or nothing at all).
        if (w.received() !== '') expect(w.received()).toMatch(/content-type: application\/problem\+json/i);
      }
    } finally {
      clearInterval(drip);
    }
  });

  it('refuses a headers timeout longer than the request timeout, naming both variables', () => {
    expect(() =>
      loadConfig({ ARCHIVE_HEADERS_TIMEOUT_MS: '5000', ARCHIVE_REQUEST_TIMEOUT_MS: '1000' }, PROJECT_ROOT),
    ).toThrow(/ARCHIVE_HEADERS_TIMEOUT_MS.*ARCHIVE_REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ ARCHIVE_IDLE_TIMEOUT_MS: 'soon' }, PROJECT_ROOT)).toThrow(/ARCHIVE_IDLE_TIMEOUT_MS/);
    expect(() => loadConfig({ ARCHIVE_DRAIN_TIMEOUT_MS: '-1' }, PROJECT_ROOT)).toThrow(/ARCHIVE_DRAIN_TIMEOUT_MS/);
    expect(() => loadConfig({ ARCHIVE_METRICS_PORT: '4321', PORT: '4321' }, PROJECT_ROOT)).toThrow(
      /ARCHIVE_METRICS_PORT/,
    );
    expect(() => loadConfig({ ARCHIVE_FAST_PATH_LOG_SAMPLE: '2' }, PROJECT_ROOT)).toThrow(
      /ARCHIVE_FAST_PATH_LOG_SAMPLE/,
    );
  });
});

describe('graceful stop', () => {
  it('answers a request that arrives while draining with a 503 shutting-down problem that closes the connection', async () => {
    s = await openServed();
    s.app.archive.gate.closing = true;
    for (const [method, url] of [
      ['GET', '/readyz'],
      ['POST', '/api/v1/music/contributions'],
      ['GET', '/api/v1/works'],
    ] as const) {
      const res = await s.app.inject({
        method,
        url,
        headers: { 'content-type': 'application/json' },
        payload: method === 'POST' ? '{}' : undefined,
      });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers.connection).toBe('close');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json().type).toMatch(/\/problems\/shutting-down$/);
    }
    s.app.archive.gate.closing = false;
  });

  it('bounds the drain: a stalled upload is cut after ARCHIVE_DRAIN_TIMEOUT_MS (exit 1) and keeps the bytes it stored', async () => {
    s = await openServed({ ...KEY_ENV, ARCHIVE_DRAIN_TIMEOUT_MS: '1000' });
    const bytes = randomBytes(10_000);
    const created = await fetch(`${s.url}/api/v1/library/imports`, {
      method: 'POST',
      headers: { ...LIB, 'content-type': 'application/json' },
      body: JSON.stringify(importInput([fileInput(bytes)])),
    });
    const imp = ((await created.json()) as { data: { id: string; files: Array<{ id: string }> } }).data;
    const w = await open(s.serving.port);
    w.socket.write(
      `PUT /api/v1/library/imports/${imp.id}/files/${imp.files[0]!.id}?offset=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Archive-Import-Key: ${LIB['x-archive-import-key']}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bytes.length}\r\n\r\n`,
    );
    w.socket.write(bytes.subarray(0, 4000));
    const staging = path.join(s.dataDir, 'blobs', 'staging', 'library', imp.id, imp.files[0]!.id);
    const until = Date.now() + 10_000;
    while (!(
      existsSync(staging) &&
      readdirSync(path.dirname(staging)).length > 0 &&
      (await import('node:fs')).statSync(staging).size === 4000
    )) {
      if (Date.now() > until) throw new Error('the upload never stored its first 4000 bytes');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(s.app.archive.gate.inFlight).toBe(1);
    const started = Date.now();
    const code = await s.serving.stop('test');
    const took = Date.now() - started;
    expect(code).toBe(1);
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThanOrEqual(1000 + MARGIN_MS);
    await w.closedAt;
    // The cut upload resumes from what was stored.
    expect((await import('node:fs')).statSync(staging).size).toBe(4000);
  });

  it('drains and exits 0 when every request in progress finishes in time', async () => {
    s = await openServed({ ARCHIVE_DRAIN_TIMEOUT_MS: '5000' });
    const w = await open(s.serving.port);
    const done = answered(w);
    w.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await done;
    // An idle keep-alive connection does not hold the stop up.
    const started = Date.now();
    expect(await s.serving.stop('test')).toBe(0);
    expect(Date.now() - started).toBeLessThan(1000 + MARGIN_MS);
    await w.closedAt;
  });
});

describe('stale temporary files', () => {
  it("removes temporary record files of dead processes at start and keeps records and live writers' files", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-tmp-sweep-'));
    try {
      const shard = path.join(dataDir, 'state', 'contributions', 'ab');
      mkdirSync(shard, { recursive: true });
      // A pid that is not running: the largest pid Linux hands out is below 2^22.
      const dead = 4_194_303;
      const stale = Array.from({ length: 25 }, (_, i) =>
        path.join(shard, `.C-${i}.json.${dead}.${randomBytes(6).toString('hex')}.tmp`),
      );
      for (const f of stale) writeFileSync(f, '{"half":');
      const ownStale = path.join(shard, `.C-own.json.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
      writeFileSync(ownStale, '{');
      const live = path.join(shard, `.C-live.json.${process.ppid}.${randomBytes(6).toString('hex')}.tmp`);
      writeFileSync(live, '{');
      const record = path.join(shard, 'C-keep.json');
      writeFileSync(record, '{"trackingCode":"C-keep"}\n');
      const lookalike = path.join(shard, 'notes.tmp');
      writeFileSync(lookalike, 'not ours');
      const config = loadConfig({ ARCHIVE_DATA_DIR: dataDir }, PROJECT_ROOT);
      const logged: string[] = [];
      expect(await prepareDataDir(config, { info: (_o, msg) => logged.push(msg) })).toEqual({ removedTempFiles: 26 });
      for (const f of [...stale, ownStale]) expect(existsSync(f), f).toBe(false);
      for (const f of [live, record, lookalike]) expect(existsSync(f), f).toBe(true);
      expect(logged.join('\n')).toContain('removed 26 stale temporary file(s)');
      expect(await prepareDataDir(config)).toEqual({ removedTempFiles: 0 });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("removes a killed backup's write-pause file at start, and a write that finds one goes on at once and removes it", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-pause-sweep-'));
    try {
      const state = path.join(dataDir, 'state');
      mkdirSync(state, { recursive: true });
      const pauseFile = path.join(state, '.write-pause.tmp');
      // A backup (a pid that is not running) killed during a pause that would last 50 s more.
      const killed = () => writeFileSync(pauseFile, JSON.stringify({ untilMs: Date.now() + 50_000, pid: 4_194_303 }));
      killed();
      const config = loadConfig({ ARCHIVE_DATA_DIR: dataDir }, PROJECT_ROOT);
      expect(await prepareDataDir(config)).toEqual({ removedTempFiles: 1 });
      expect(existsSync(pauseFile)).toBe(false);
      // A live backup's pause is kept (this process stands in for it) ...
      writeFileSync(pauseFile, JSON.stringify({ untilMs: Date.now() + 50_000, pid: process.ppid }));
      expect(await prepareDataDir(config)).toEqual({ removedTempFiles: 0 });
      expect(existsSync(pauseFile)).toBe(true);
      // ... and a dead one's, found by a record write while the server runs, holds nothing.
      killed();
      honourWritePause(state);
      const store = new RecordStore<{ n: number }>(path.join(state, 'pause-test'));
      await store.create('a', { n: 1 });
      expect(existsSync(pauseFile)).toBe(false);
      // A pause whose time has passed is removed the same way, even with its writer alive.
      writeFileSync(pauseFile, JSON.stringify({ untilMs: Date.now() - 1, pid: process.ppid }));
      await store.update('a', (v) => ({ n: v.n + 1 }));
      expect(existsSync(pauseFile)).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
