/**
 * Hostile input over a real socket: >= 10,000 generated bad requests (deep JSON on every JSON
 * intake, prototype keys, broken percent-encoding, NUL in a header, 431, TRACE/PROPFIND/unknown
 * methods, garbage request lines, malformed JSON, CONNECT, broken chunked framing, HTTP/1.1 without
 * Host), sent with bounded concurrency, one in eight from a client that half-closes after its
 * request. Every answer must be a 4xx `application/problem+json`: no 5xx, no other body type, no
 * dropped connection, no hang.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/domain/json-limits.ts';
import { LIBRARY_SECRET, openLibraryApp, type LibraryTestApp } from '../library/library-helpers.ts';

let t: LibraryTestApp;
let port: number;
beforeAll(async () => {
  t = await openLibraryApp({
    ARCHIVE_CONTRIBUTION_RATE_LIMIT: '1000000/60',
    ARCHIVE_CORRECTION_RATE_LIMIT: '1000000/60',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Send raw bytes on a fresh connection and read the whole answer until the server closes.
 * `halfClose` ends the client's side right after the request (FIN), as some clients and proxies
 * do: the server must still answer.
 */
function send(raw: Buffer | string, halfClose = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const contentType = /\r\ncontent-type:\s*([^\r\n]*)/i.exec(head)?.[1] ?? '';
      resolve({ status, contentType, body: text.slice(head.length + 4) });
    };
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (d) => chunks.push(d));
    socket.on('close', finish);
    socket.on('error', (e) => chunks.length === 0 && reject(e));
    if (halfClose) socket.end(raw);
    else socket.write(raw);
  });
}

const deep = (n: number, kind: 'array' | 'object') =>
  kind === 'array' ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const JSON_ENDPOINTS = ['/api/v1/music/contributions', '/api/v1/correction-reports', '/api/v1/library/imports'];
const auth = `Authorization: Bearer ${LIBRARY_SECRET}\r\n`;

function post(path: string, body: string, contentType = 'application/json'): string {
  return `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
const get = (path: string, method = 'GET', extra = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}Connection: close\r\n\r\n`;

/** A seeded generator, so a failure names a reproducible case. */
function rng(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** A request body in chunked framing that breaks the framing in one of several ways. */
const brokenChunked = (path: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body}`;
const BROKEN_CHUNKS = [
  'zz\r\n{}\r\n0\r\n\r\n', // not a hexadecimal size
  '2\r\n{}XX0\r\n\r\n', // data not followed by CRLF
  '-1\r\n{}\r\n0\r\n\r\n', // negative size
  'ffffffffffffffffff\r\n{}\r\n', // size overflows
  '2;\x01ext\r\n{}\r\n0\r\n\r\n', // control character in an extension
];

/** Requests the HTTP layer itself refuses (no route ever sees them), each with the case's name. */
const REFUSED_BY_HTTP_LAYER: Array<[string, string, boolean]> = [
  ['CONNECT', 'CONNECT archive.example.test:443 HTTP/1.1\r\nHost: archive.example.test:443\r\n\r\n', false],
  ['CONNECT half-closed', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', true],
  ['HTTP/1.1 without Host', 'GET / HTTP/1.1\r\nConnection: close\r\n\r\n', false],
  ['HTTP/1.1 without Host (API)', 'GET /api/v1/works HTTP/1.1\r\nConnection: close\r\n\r\n', false],
  ...BROKEN_CHUNKS.map((b, i): [string, string, boolean] => [
    `broken chunked framing ${i}`,
    brokenChunked(JSON_ENDPOINTS[i % JSON_ENDPOINTS.length]!, b),
    false,
  ]),
  ['chunked body cut by a half-close', brokenChunked('/api/v1/music/contributions', '10\r\n{"a":'), true],
  ['half-closed GET /nope', 'GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n', true],
  ['half-closed GET /api/v1/works/nope', 'GET /api/v1/works/no-such-work HTTP/1.1\r\nHost: localhost\r\n\r\n', true],
  ['half-closed POST with a bad body', post('/api/v1/music/contributions', '{'), true],
  ['half-closed TRACE', 'TRACE / HTTP/1.1\r\nHost: localhost\r\n\r\n', true],
];

type Case = [string, Buffer | string];
function cases(count: number): Case[] {
  const r = rng(16);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const deepBodies = [3000, 4000, 5000].flatMap((n) => [
    deep(n, 'array'),
    deep(n, 'object'),
    `{"title":${deep(n, 'array')}}`,
  ]);
  const generators: Array<() => Case> = [
    () => {
      const p = pick(JSON_ENDPOINTS);
      return [
        `deep JSON ${p}`,
        post(p, pick(deepBodies), pick(['application/json', 'text/json', 'application/merge-patch+json'])),
      ];
    },
    () => {
      const p = pick(JSON_ENDPOINTS);
      const key = pick(['__proto__', 'constructor', 'prototype']);
      const body = pick([
        `{"${key}":{"isAdmin":true}}`,
        `{"submittedBy":{"${key}":{"polluted":1}}}`,
        `[{"${key}":null}]`,
      ]);
      return [`prototype key ${p}`, post(p, body)];
    },
    () => [
      `bad percent-encoding`,
      get(pick(['/works/%E0%A4%A', '/api/v1/works/%zz', '/%', '/api/v1/music/contributions/%c0%af%', '/works/%ff%fe'])),
    ],
    () => [
      `NUL in Content-Type`,
      Buffer.concat([
        Buffer.from(
          `POST ${pick(JSON_ENDPOINTS)} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\0x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n`,
        ),
        Buffer.from('{}'),
      ]),
    ],
    () => [`431`, get('/', 'GET', `X-Filler: ${'a'.repeat(20_000 + Math.floor(r() * 40_000))}\r\n`)],
    () => [
      `TRACE/PROPFIND`,
      get(
        pick(['/', '/api/v1/works', '/nowhere', '/api/v1/music/contributions']),
        pick(['TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'COPY']),
      ),
    ],
    () => [`unknown method`, get('/', pick(['BREW', 'FOO', 'GETT', 'X', 'P0ST']))],
    () => [
      `garbage request line`,
      pick([
        '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03',
        'GET\r\n\r\n',
        'GET / HTTP/9.9\r\n\r\n',
        'HELLO WORLD\r\n\r\n',
        'GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n',
      ]),
    ],
    () => {
      const p = pick(JSON_ENDPOINTS);
      return [
        `malformed JSON ${p}`,
        post(p, pick(['{', '{"a":}', '[1,,2]', 'nul', '{"a":"\\x"}', '\u0000', '{"a":1}}'])),
      ];
    },
    () => {
      const p = pick(JSON_ENDPOINTS);
      return [`broken chunked framing ${p}`, brokenChunked(p, pick(BROKEN_CHUNKS))];
    },
    () => [`CONNECT`, `CONNECT ${pick(['127.0.0.1:22', 'example.org:443', '[::1]:80'])} HTTP/1.1\r\nHost: x\r\n\r\n`],
    () => [
      `HTTP/1.1 without Host`,
      `GET ${pick(['/', '/api/v1/works', '/nope', '/works/'])} HTTP/1.1\r\nConnection: close\r\n\r\n`,
    ],
    () => [
      `wrong media type`,
      post(pick(JSON_ENDPOINTS), '<x/>', pick(['text/plain', 'application/xml', 'multipart/form-data; boundary=x'])),
    ],
  ];
  return Array.from({ length: count }, (_, i) => generators[i % generators.length]!());
}

async function runBounded<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

describe('hostile input', () => {
  it('answers deep JSON with a 400 naming the depth limit (contributions, correction reports, library imports)', async () => {
    for (const p of JSON_ENDPOINTS) {
      const a = await send(post(p, deep(5000, 'array')));
      expect(a.status, p).toBe(400);
      expect(a.contentType).toMatch(/^application\/problem\+json/);
      const body = JSON.parse(a.body) as { detail: string; errors: Array<{ pointer: string }> };
      expect(body.detail).toContain(String(MAX_JSON_DEPTH));
      expect(body.errors[0]!.pointer).toBe('');
    }
  });

  it('refuses prototype keys with a pointer to the key', async () => {
    const a = await send(post('/api/v1/music/contributions', '{"submittedBy":{"__proto__":{"x":1}}}'));
    expect(a.status).toBe(400);
    expect(JSON.parse(a.body).errors).toEqual([
      { pointer: '/submittedBy/__proto__', detail: expect.stringContaining('reserved') },
    ]);
  });

  it('answers 431 and unknown methods as problem details written on the socket', async () => {
    const big = await send(get('/', 'GET', `X-Filler: ${'a'.repeat(40_000)}\r\n`));
    expect(big.status).toBe(431);
    expect(big.contentType).toBe('application/problem+json');
    const trace = await send(get('/api/v1/works', 'TRACE'));
    expect(trace.status).toBe(405);
    expect(trace.contentType).toMatch(/^application\/problem\+json/);
  });

  it('answers every request the HTTP layer refuses with a 4xx problem: CONNECT, broken chunked framing, no Host, half-closed clients', async () => {
    const answers = await runBounded(REFUSED_BY_HTTP_LAYER, 4, async ([name, raw, halfClose]) => ({
      name,
      ...(await send(raw, halfClose)),
    }));
    const bad = answers
      .filter((a) => a.status < 400 || a.status >= 500 || !a.contentType.startsWith('application/problem+json'))
      .map((a) => `${a.name}: ${a.status} ${a.contentType} ${a.body.slice(0, 120)}`);
    expect(bad).toEqual([]);
    const byName = new Map(answers.map((a) => [a.name, a]));
    expect(byName.get('CONNECT')!.status).toBe(405);
    expect(JSON.parse(byName.get('HTTP/1.1 without Host')!.body)).toMatchObject({
      status: 400,
      errors: [{ parameter: 'Host', detail: expect.any(String) }],
    });
    expect(byName.get('half-closed GET /nope')!.status).toBe(404);
    expect(byName.get('half-closed POST with a bad body')!.status).toBe(400);
  });

  it('answers 10,000 generated bad requests with 4xx problem details only', async () => {
    const all = cases(10_000);
    // Every eighth request half-closes after sending: the answer must come all the same.
    const answers = await runBounded(
      all.map(([name, raw], i) => [name, raw, i % 8 === 7] as const),
      16,
      async ([name, raw, halfClose]) => ({
        name: halfClose ? `${name} (half-closed)` : name,
        ...(await send(raw, halfClose)),
      }),
    );
    const bad = answers.filter(
      (a) => a.status < 400 || a.status >= 500 || !a.contentType.startsWith('application/problem+json'),
    );
    const summary = [
      ...new Set(bad.map((a) => `${a.name}: ${a.status} ${a.contentType} ${a.body.slice(0, 120)}`)),
    ].slice(0, 10);
    expect(summary).toEqual([]);
    expect(answers.length).toBe(10_000);
  }, 120_000);
});
