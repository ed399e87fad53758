/**
 * Several processes, one archive (api/site/read-processes.ts, docs/operations.md "Several
 * processes"): `npm start` with ARCHIVE_READ_PROCESSES=2 and Redis runs a write process and two
 * read processes over one data folder. Through real sockets:
 *   - a desk session made through one read process works on the other and on the writer, and a
 *     sign-out through one ends it everywhere;
 *   - a correction filed, accepted and applied through the read processes (forwarded to the
 *     writer) is visible through every process within 1 s of the apply's answer, and no process
 *     ever goes back to the old value once it showed the new one (never a mix of builds over time);
 *   - kill -9 of a read process: the other and the writer keep answering every request, a
 *     submission made meanwhile lands, the killed one is started again on its port and knows the
 *     session made before (nothing was held by it);
 *   - a credential limit reached through one read process refuses the right key on the other;
 *   - nginx with the generated config balances reads over the read processes (upstream with the
 *     processes' real ports) and sends writes to the writer.
 * Then the same state on one process: with Redis a desk session outlives a restart; with the
 * in-memory default (single process) sessions and limits hold within the process.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, freePort, killTree, spawnStart } from '../helpers/process.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { acceptedCorrection, applyAsync, fetchCaller, fileCorrection } from '../helpers/corrections.ts';
import { startNginx, type TestNginx } from '../helpers/nginx.ts';
import { servedBuildLink } from '../../api/site/builds.ts';

const KEY = 'admin-read-processes-1';
const LABEL = 'editor';
const WORK = 'bach-prelude-in-c-bwv-846';

/** A port p with p+1 .. p+n free too (the read processes listen on PORT+1 ... PORT+N). */
async function freeRun(n: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
  for (;;) {
    const p = await freePort();
    if (p + n > 65535) continue;
    let ok = true;
    for (let i = 1; i <= n && ok; i++) ok = await free(p + i);
    if (ok) return p;
  }
}

interface Archive {
  child: ChildProcess;
  writer: string;
  readers: string[];
  output: () => string;
  stop: () => Promise<void>;
}

/** `npm start`'s entry point with these settings; waits for every process to listen and answer. */
async function startArchive(
  dataDir: string,
  env: Record<string, string>,
  readers: number,
  baseUrl?: string,
): Promise<Archive> {
  const port = await freeRun(readers > 1 ? readers : 0);
  const writer = `http://127.0.0.1:${port}`;
  const { child, output } = spawnStart(port, {
    ...(baseUrl ? { PUBLIC_BASE_URL: baseUrl } : {}),
    ARCHIVE_DATA_DIR: dataDir,
    ARCHIVE_ADMIN_KEYS: `${LABEL}=${KEY}`,
    ARCHIVE_READ_PROCESSES: String(readers),
    ...env,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 240_000;
  while (!output().includes(`(listening on 127.0.0.1:${port})`)) {
    if (child.exitCode !== null) throw new Error(`the archive exited early:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`the archive did not start:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const readerUrls = readers > 1 ? Array.from({ length: readers }, (_, i) => `http://127.0.0.1:${port + 1 + i}`) : [];
  for (const url of [writer, ...readerUrls]) expect((await fetch(`${url}/api/v1`)).status).toBe(200);
  return {
    child,
    writer,
    readers: readerUrls,
    output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The read processes' pids (children of the write process running scripts/read-process.ts). */
function readerPids(writerPid: number): Array<{ pid: number; port: number }> {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(writerPid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.includes('read-process.ts'))
    .map((l) => ({ pid: Number(l.trim().split(/\s+/)[0]), port: Number(/--port (\d+)/.exec(l)?.[1]) }));
}

async function signIn(url: string, key = KEY): Promise<Response> {
  return fetch(`${url}/api/v1/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key }),
  });
}

function cookieOf(res: Response): string {
  const line = res.headers.get('set-cookie') ?? '';
  const m = /archive-session=([^;]+)/.exec(line);
  if (!m) throw new Error(`no session cookie in "${line}"`);
  return `archive-session=${m[1]}`;
}

const sessionAt = (url: string, cookie: string) => fetch(`${url}/api/v1/admin/session`, { headers: { cookie } });

async function yearAt(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/works/${WORK}`);
  expect(res.status).toBe(200);
  return String((await dataOf(res)).year);
}

describe('two read processes and a writer over one data folder, with Redis', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-read-processes-'));
  let redis: TestRedis;
  let archive: Archive;
  let nginx: TestNginx | null = null;

  beforeAll(async () => {
    redis = await startRedis();
    archive = await startArchive(
      dataDir,
      { ARCHIVE_REDIS_URL: redis.url, ARCHIVE_CREDENTIAL_FAILURE_LIMIT: '3/60' },
      2,
    );
  }, 300_000);

  afterAll(async () => {
    await nginx?.stop();
    if (archive?.child.exitCode === null) killTree(archive.child.pid!);
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers reads in every process; a read process forwards writes to the writer', async () => {
    const [a, b] = archive.readers as [string, string];
    for (const url of [archive.writer, a, b]) {
      const res = await fetch(`${url}/api/v1/works?query=bach`);
      expect(res.status, url).toBe(200);
      expect(await res.text()).toContain('bach-');
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    }
    // An unknown path is the writer's 404 problem, through a reader too.
    const missing = await fetch(`${a}/api/v1/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('a desk session made through one read process works on the other and on the writer', async () => {
    const [a, b] = archive.readers as [string, string];
    const made = await signIn(a);
    expect(made.status).toBe(201);
    const cookie = cookieOf(made);
    const csrf = (await dataOf(made)).csrfToken as string;
    for (const url of [b, archive.writer]) {
      const res = await sessionAt(url, cookie);
      expect(res.status, url).toBe(200);
      expect((await dataOf(res)).label).toBe(LABEL);
    }
    // The admin API through the other read process (forwarded to the writer) takes the cookie.
    const reconcile = await fetch(`${b}/api/v1/admin/reconcile`, { headers: { cookie } });
    expect(reconcile.status).toBe(200);
    // Signed out through the writer: gone on both read processes.
    const out = await fetch(`${archive.writer}/api/v1/admin/session`, {
      method: 'DELETE',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(out.status).toBe(204);
    for (const url of [a, b]) expect((await sessionAt(url, cookie)).status, url).toBe(401);
  });

  it('an apply is visible through every process within 1 s of its answer, and none ever goes back', async () => {
    const [a, b] = archive.readers as [string, string];
    const all = [archive.writer, a, b];
    for (const url of all) expect(await yearAt(url)).toBe('1722');
    // Filed through one read process, accepted through the other: both forwarded to the writer.
    const code = await acceptedCorrection(fetchCaller(a), KEY, {
      workSlug: WORK,
      fieldName: 'year',
      currentValue: '1722',
      proposedValue: '1722 (autograph)',
    });
    const seen: Record<string, string[]> = Object.fromEntries(all.map((u) => [u, []]));
    let polling = true;
    const failures: string[] = [];
    const pollers = all.map(async (url) => {
      while (polling) {
        try {
          const y = await yearAt(url);
          const list = seen[url]!;
          if (list.at(-1) !== y) list.push(y);
        } catch (err) {
          failures.push(`${url}: ${(err as Error).message}`);
        }
      }
    });
    // Answered at once; the tracking record says when it became visible (after every process swapped).
    const apply = await applyAsync(fetchCaller(b), KEY, code);
    expect(apply.status, apply.text).toBe(202);
    const until = Date.now() + 600_000;
    for (;;) {
      const tracked = await fetch(`${a}/api/v1/admin/correction-reports/${code}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      const state = (await dataOf(tracked)).apply?.state;
      if (state === 'visible') break;
      expect(state).toBe('applying');
      if (Date.now() > until) throw new Error(`the apply did not become visible:\n${archive.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const answered = Date.now();
    const late: string[] = [];
    for (const url of all) {
      for (;;) {
        if ((await yearAt(url)) === '1722 (autograph)') break;
        if (Date.now() - answered > 1000) {
          late.push(url);
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    expect(late).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    polling = false;
    await Promise.all(pollers);
    expect(failures).toEqual([]);
    // Each process went from the old build to the new one once, never back.
    for (const url of all) expect(seen[url], url).toEqual(['1722', '1722 (autograph)']);
  }, 300_000);

  it('kill -9 of a read process loses nothing: the others keep answering, and it comes back', async () => {
    const [a, b] = archive.readers as [string, string];
    const cookie = cookieOf(await signIn(b));
    const before = readerPids(archive.child.pid!);
    expect(before).toHaveLength(2);
    const victim = before.find((r) => `http://127.0.0.1:${r.port}` === a)!;
    let answering = true;
    const bad: string[] = [];
    let reads = 0;
    const reader = (async () => {
      while (answering) {
        for (const url of [archive.writer, b]) {
          const res = await fetch(`${url}/api/v1/works?query=prelude`).catch((e: Error) => e);
          reads++;
          if (res instanceof Error || res.status !== 200)
            bad.push(`${url}: ${res instanceof Error ? res.message : res.status}`);
          else await res.arrayBuffer();
        }
      }
    })();
    process.kill(victim.pid, 'SIGKILL');
    // A submission through the other read process meanwhile lands in the writer.
    const code = await fileCorrection(fetchCaller(b), {
      workSlug: WORK,
      fieldName: 'year',
      currentValue: '1722 (autograph)',
      proposedValue: '1722 (autograph, Köthen)',
    });
    const tracked = await fetch(`${b}/api/v1/correction-reports/${code}`);
    expect(tracked.status).toBe(200);
    // Started again on its port, with the session made before (held in Redis, not by it).
    const until = Date.now() + 60_000;
    for (;;) {
      const res = await sessionAt(a, cookie).catch(() => null);
      if (res?.status === 200) break;
      if (Date.now() > until) throw new Error(`the read process did not come back:\n${archive.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    answering = false;
    await reader;
    expect(bad).toEqual([]);
    expect(reads).toBeGreaterThan(4);
    const after = readerPids(archive.child.pid!);
    expect(after).toHaveLength(2);
    expect(after.map((r) => r.pid)).not.toContain(victim.pid);
    expect(await yearAt(a)).toBe('1722 (autograph)');
  }, 120_000);

  it('nginx with the generated config lists every process, reads over the readers, writes to the writer', async () => {
    const upstreams = readFileSync(path.join(dataDir, 'nginx-upstreams.conf'), 'utf8');
    for (const url of archive.readers) expect(upstreams).toContain(`server ${new URL(url).host} `);
    expect(upstreams).toMatch(new RegExp(`upstream archive_write \\{\\n    server ${new URL(archive.writer).host} `));
    expect(upstreams).toMatch(/keepalive \d+;/);
    const generated = readFileSync(path.join(servedBuildLink(dataDir), 'nginx.conf'), 'utf8');
    expect(generated).toContain(`include ${path.join(dataDir, 'nginx-upstreams.conf')};`);
    expect(generated).toContain('proxy_http_version 1.1;');
    const port = await freePort();
    nginx = await startNginx(
      path.join(dataDir, 'nginx'),
      port,
      generated.replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${port};`),
    );
    const query = await fetch(`${nginx.front}/api/v1/works?query=bach`);
    expect(query.status).toBe(200);
    const resolved = await fetch(`${nginx.front}/api/v1/works/${WORK}`);
    expect(String((await dataOf(resolved)).year)).toBe('1722 (autograph)');
    const filed = await fetch(`${nginx.front}/api/v1/correction-reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        targetType: 'work',
        rationale: 'Checked.',
        evidenceUrl: null,
        reporterName: 'Cleo',
        reporterKind: 'Human',
        workSlug: WORK,
        fieldName: 'year',
        currentValue: '1722 (autograph)',
        proposedValue: '1722 (fair copy)',
      }),
    });
    expect(filed.status, await filed.clone().text()).toBe(202);
  }, 120_000);

  // Last: it leaves this machine's address limited for a minute.
  it('a credential limit reached through one read process refuses the right key on the other', async () => {
    const [a, b] = archive.readers as [string, string];
    for (let i = 0; i < 3; i++) expect((await signIn(a, 'not-the-admin-key-xx')).status).toBe(401);
    const refused = await signIn(b);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const writer = await fetch(`${archive.writer}/api/v1/admin/reconcile`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(writer.status).toBe(429);
  });
});

describe('one process', () => {
  it('with Redis, a desk session outlives a restart, and a start on a moved HEAD serves the last build while it builds; in memory, state lives in the process', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-one-process-'));
    // One base URL for every start (the build is keyed by it), so restarts reuse the build.
    const base = 'http://127.0.0.1:4321';
    const redis = await startRedis();
    try {
      let archive = await startArchive(dataDir, { ARCHIVE_REDIS_URL: redis.url }, 1, base);
      const cookie = cookieOf(await signIn(archive.writer));
      expect((await sessionAt(archive.writer, cookie)).status).toBe(200);
      await archive.stop();
      // The content repository moves on while the server is stopped.
      const repo = path.join(dataDir, 'content');
      const file = path.join(repo, 'works', WORK, 'index.md');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^year: .*$/m, "year: '1722 (moved on)'"));
      execFileSync('git', ['-C', repo, 'commit', '-qam', 'a change while stopped'], {
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@example.org',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@example.org',
        },
      });
      const head = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
      archive = await startArchive(dataDir, { ARCHIVE_REDIS_URL: redis.url }, 1, base);
      // Listening at once on the last complete build, and saying so.
      const ready = await fetch(`${archive.writer}/readyz`);
      expect(ready.status).toBe(200);
      const body = await ready.json();
      expect(body.building?.commit).toBe(head);
      expect(body.checks.build.detail).toMatch(/the last complete build, while the content repository's HEAD/);
      expect(await yearAt(archive.writer)).toBe('1722');
      // A new process, the same Redis: the session is still there.
      expect((await sessionAt(archive.writer, cookie)).status).toBe(200);
      const until = Date.now() + 300_000;
      while ((await yearAt(archive.writer)) !== '1722 (moved on)') {
        if (Date.now() > until) throw new Error(`HEAD was never served:\n${archive.output()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const after = await (await fetch(`${archive.writer}/readyz`)).json();
      expect(after.building).toBeUndefined();
      await archive.stop();
      // The embedded default: the session lives and dies with the process; the limit holds in it.
      archive = await startArchive(dataDir, { ARCHIVE_CREDENTIAL_FAILURE_LIMIT: '2/60' }, 1, base);
      expect((await sessionAt(archive.writer, cookie)).status).toBe(401);
      const mine = cookieOf(await signIn(archive.writer));
      expect((await sessionAt(archive.writer, mine)).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await signIn(archive.writer, 'not-the-admin-key-xx')).status).toBe(401);
      expect((await signIn(archive.writer)).status).toBe(429);
      await archive.stop();
    } finally {
      await redis.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 600_000);

  it('refuses several read processes without Redis, naming the setting', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-no-redis-'));
    try {
      await expect(startArchive(dataDir, {}, 2)).rejects.toThrow(/ARCHIVE_READ_PROCESSES=2 needs ARCHIVE_REDIS_URL/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
