/**
 * Bench section "library": the private library's byte paths against the tools they replace, all
 * measured in the same run on the same file and disk:
 *
 *   - ingest: PUT of one file (streamed to a staging file, fsynced) plus the commit that rehashes
 *     it and moves it into the blob store, against `openssl dgst -sha256` of the file (SHA
 *     instructions; coreutils `sha256sum` lacks them and is about 4x slower, so it would flatter
 *     us) plus a plain write of it (`dd bs=1M conv=fsync`). Goal ratio >= 0.8.
 *   - upload alone against the plain write; commit rehash alone against `openssl dgst -sha256`.
 *   - downloads of the committed file (the whole file, and a 100 MiB range from its middle) from
 *     GET /api/v1/library/files/{id} against nginx (Debian package) serving the same file (a hard
 *     link to the blob) with sendfile; and the same request through nginx in front of the service
 *     with ARCHIVE_DOWNLOAD_OFFLOAD=nginx (the build's server block; Node checks the key, nginx
 *     sends the bytes). curl is the client (a C client, so the client is not the limit). Goal
 *     ratio >= 0.8. Skipped without nginx.
 *   - server peak RSS while the file uploads and commits. Goal < 200 MB.
 *
 * Sizes: 1 GiB file, ranges of 1 GiB and 100 MiB (quick: 64 MiB, ranges 64 MiB and 16 MiB).
 * Traffic goes to 127.0.0.1 only; every process is killed and the temp folder removed.
 *
 * Run alone: node bench/lib/library.ts [--quick]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, linkSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { LocalBlobStore } from '../../api/blobs/blob-store.ts';
import { renderNginxConfig } from '../../api/site/nginx.ts';
import { unknownTrack } from '../../src/domain/library/unknown-track.ts';
import { figure, type Figure, type Section, type SectionContext, type SectionResult } from './results.ts';
import { memoryOf } from './service.ts';
import { Cleanup, PROJECT_ROOT, TrackedProcess, freePort, round, waitForHttp, spawnService } from './util.ts';

const MiB = 1024 * 1024;
const KEY = 'bench-library-key-0123456789';

interface Timed<T> {
  seconds: number;
  value: T;
}

async function timed<T>(fn: () => Promise<T>): Promise<Timed<T>> {
  const t0 = performance.now();
  const value = await fn();
  return { seconds: (performance.now() - t0) / 1000, value };
}

const mbps = (bytes: number, seconds: number) => round(bytes / MiB / seconds, 1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A file of `size` bytes: one 16 MiB random block repeated (hashing cost does not depend on content). */
async function writeSource(file: string, size: number): Promise<void> {
  const block = randomBytes(16 * MiB);
  const out = createWriteStream(file);
  for (let left = size; left > 0; left -= block.length) {
    if (!out.write(left >= block.length ? block : block.subarray(0, left)))
      await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

function runTool(command: string, args: string[]): Timed<string> {
  const t0 = performance.now();
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 16 * MiB });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr}`);
  return { seconds, value: r.stdout };
}

interface Reply {
  status: number;
  body: Buffer;
}

function request(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer | NodeJS.ReadableStream,
): Promise<Reply> {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing non-loopback URL ${url}`);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body === undefined) req.end();
    else if (Buffer.isBuffer(body)) req.end(body);
    else pipeline(body, req).catch(reject);
  });
}

/** Download a range, counting bytes without keeping them. */
function download(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function nginxConfig(prefix: string, root: string, port: number, server?: string): string {
  const t = (n: string) => path.join(prefix, 'tmp', n);
  return `daemon off;
${process.getuid?.() === 0 ? 'user root;' : ''}
master_process on;
worker_processes auto;
pid ${path.join(prefix, 'nginx.pid')};
error_log ${path.join(prefix, 'error.log')} warn;
events { worker_connections 64; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    client_body_temp_path ${t('body')};
    proxy_temp_path ${t('proxy')};
    fastcgi_temp_path ${t('fastcgi')};
    uwsgi_temp_path ${t('uwsgi')};
    scgi_temp_path ${t('scgi')};
${
  server ??
  `    server {
        listen 127.0.0.1:${port};
        root ${root};
        default_type application/octet-stream;
    }`
}
}
`;
}

function findCurl(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/** One download by curl (a C client, so the client is not what limits the figure); curl's own timing. */
function curlDownload(
  curl: string,
  url: string,
  headers: Record<string, string>,
): Timed<{ status: number; bytes: number }> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_total}'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const r = spawnSync(curl, [...args, url], { encoding: 'utf8' });
  const [status, bytes, seconds] = r.stdout.trim().split(' ').map(Number);
  return { seconds: seconds!, value: { status: status!, bytes: bytes! } };
}

function findNginx(): string | null {
  for (const p of ['/usr/sbin/nginx', '/usr/local/sbin/nginx']) {
    try {
      statSync(p);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

export async function runLibraryBench(options: {
  quick: boolean;
  log?: (m: string) => void;
  cleanup?: Cleanup;
}): Promise<Record<string, unknown>> {
  const log = options.log ?? ((m: string) => console.error(`[library] ${m}`));
  const cleanup = options.cleanup ?? new Cleanup();
  const size = options.quick ? 64 * MiB : 1024 * MiB;
  const ranges = options.quick ? [64 * MiB, 16 * MiB] : [1024 * MiB, 100 * MiB];
  const repeats = options.quick ? 3 : 3;
  const figures: Figure[] = [];
  const details: Record<string, unknown> = { fileBytes: size, rangeBytes: ranges };
  try {
    const work = cleanup.tempDir('library');
    const source = path.join(work, 'source.bin');
    log(`writing a ${size / MiB} MiB source file ...`);
    await writeSource(source, size);

    // Baselines on the same file and disk.
    // The hashing anchor is OpenSSL's SHA-256, which uses the CPU's SHA instructions (about 4x
    // coreutils sha256sum on this machine); sha256sum is kept in the details for comparison.
    const coreutils = runTool('sha256sum', [source]);
    const sha = runTool('openssl', ['dgst', '-sha256', '-r', source]);
    const digest = sha.value.split(/\s+/)[0]!;
    if (digest !== coreutils.value.split(/\s+/)[0]) throw new Error('openssl and sha256sum disagree on the digest');
    const copy = path.join(work, 'copy.bin');
    const write = runTool('dd', [`if=${source}`, `of=${copy}`, 'bs=1M', 'conv=fsync', 'status=none']);
    rmSync(copy);
    details.baselines = {
      opensslSha256Seconds: round(sha.seconds, 3),
      sha256sumSeconds: round(coreutils.seconds, 3),
      plainWriteSeconds: round(write.seconds, 3),
      plainWrite: 'dd bs=1M conv=fsync',
    };

    // The service, as npm start runs it, on a small content repository.
    const dataDir = path.join(work, 'data');
    await ensureContentRepo(path.join(dataDir, 'content'), path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = spawnService({
      cleanup,
      port,
      env: { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_LIBRARY_KEYS: KEY, ARCHIVE_DOWNLOAD_OFFLOAD: 'nginx' },
    });
    log('starting the service ...');
    await waitForHttp(`${base}/api/v1`, proc, 240_000);
    const key = { 'x-archive-import-key': KEY };
    const idle = memoryOf(proc.pid).rssBytes;

    const importBody = {
      idempotencyKey: `bench-${Date.now()}`,
      track: unknownTrack({ stableKey: `bench-${Date.now()}`, title: 'Bench', collection: 'bench', license: 'none' }),
      files: [
        {
          kind: 'master',
          fileName: 'bench.wav',
          originalRelativePath: 'bench.wav',
          contentType: 'audio/wav',
          sha256: digest,
          downloadPolicy: 'protected',
          byteLength: size,
          metadata: null,
        },
      ],
    };
    const created = await request(
      `${base}/api/v1/library/imports`,
      'POST',
      { ...key, 'content-type': 'application/json' },
      Buffer.from(JSON.stringify(importBody)),
    );
    if (created.status !== 200) throw new Error(`import answered ${created.status}: ${created.body.toString()}`);
    const imp = JSON.parse(created.body.toString()).data;

    const peaks = { upload: idle ?? 0, commit: idle ?? 0 };
    let phase: keyof typeof peaks = 'upload';
    const poll = setInterval(() => {
      const m = memoryOf(proc.pid).rssBytes;
      if (m !== null && m > peaks[phase]) peaks[phase] = m;
    }, 50);
    log('uploading ...');
    const put = await timed(() =>
      request(
        `${base}/api/v1/library/imports/${imp.id}/files/${imp.files[0].id}?offset=0`,
        'PUT',
        { ...key, 'content-type': 'application/octet-stream', 'content-length': String(size) },
        createReadStream(source, { highWaterMark: MiB }),
      ),
    );
    if (put.value.status !== 200) throw new Error(`upload answered ${put.value.status}: ${put.value.body.toString()}`);
    log('committing ...');
    phase = 'commit';
    const commit = await timed(() => request(`${base}/api/v1/library/imports/${imp.id}/commit`, 'POST', key));
    clearInterval(poll);
    if (commit.value.status !== 200)
      throw new Error(`commit answered ${commit.value.status}: ${commit.value.body.toString()}`);
    const committed = JSON.parse(commit.value.body.toString()).data;
    if (committed.files[0].serverSha256 !== digest)
      throw new Error('the server digest differs from openssl dgst -sha256');

    const ingestSeconds = put.seconds + commit.seconds;
    const peakRss = Math.max(peaks.upload, peaks.commit);
    figures.push(
      figure(
        'ingest (upload + commit rehash)',
        'MB/s',
        mbps(size, ingestSeconds),
        mbps(size, sha.seconds + write.seconds),
        'openssl dgst -sha256 + dd conv=fsync of the same file',
        'higher',
        { ratio: 0.8, op: '>=' },
      ),
      figure(
        'upload (stream to staging, fsync)',
        'MB/s',
        mbps(size, put.seconds),
        mbps(size, write.seconds),
        'dd bs=1M conv=fsync',
        'higher',
      ),
      figure(
        'commit rehash (and move into the store)',
        'MB/s',
        mbps(size, commit.seconds),
        mbps(size, sha.seconds),
        'openssl dgst -sha256',
        'higher',
      ),
      figure(
        'server peak RSS during upload and commit',
        'MB',
        round(peakRss / 1e6, 1),
        200,
        'goal ceiling 200 MB (idle RSS in details)',
        'lower',
        { ratio: 1, op: '<=' },
      ),
    );
    details.service = {
      idleRssMB: idle === null ? null : round(idle / 1e6, 1),
      peakRssDuringUploadMB: round(peaks.upload / 1e6, 1),
      peakRssDuringCommitMB: round(peaks.commit / 1e6, 1),
      uploadSeconds: round(put.seconds, 3),
      commitSeconds: round(commit.seconds, 3),
    };

    // Range downloads: the service against nginx on the same file.
    const bin = findNginx();
    if (!bin) {
      details.nginx = 'skipped: /usr/sbin/nginx is not installed';
    } else {
      const prefix = path.join(work, 'nginx');
      const root = path.join(prefix, 'root');
      mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
      mkdirSync(root, { recursive: true });
      linkSync(new LocalBlobStore(path.join(dataDir, 'blobs')).pathFor(digest), path.join(root, 'file.bin'));
      writeFileSync(path.join(root, 'probe.txt'), 'ok');
      const nginxPort = await freePort();
      writeFileSync(path.join(prefix, 'nginx.conf'), nginxConfig(prefix, root, nginxPort));
      const nginx = new TrackedProcess('nginx', bin, [
        '-p',
        prefix,
        '-e',
        path.join(prefix, 'error.log'),
        '-c',
        path.join(prefix, 'nginx.conf'),
      ]);
      cleanup.track(nginx);
      await waitForHttp(`http://127.0.0.1:${nginxPort}/probe.txt`, nginx, 20_000);
      details.nginx = { binary: bin, version: spawnSync(bin, ['-v'], { encoding: 'utf8' }).stderr.trim() };
      const serviceUrl = `${base}/api/v1/library/files/${imp.files[0].id}`;
      const nginxUrl = `http://127.0.0.1:${nginxPort}/file.bin`;
      // The same service behind nginx with the build's own server block: ARCHIVE_DOWNLOAD_OFFLOAD=nginx
      // (set on the service above) answers the key check and nginx sends the blob (X-Accel-Redirect).
      const frontPort = await freePort();
      const frontPrefix = path.join(work, 'nginx-front');
      mkdirSync(path.join(frontPrefix, 'tmp'), { recursive: true });
      mkdirSync(path.join(work, 'no-client', 'api', 'v1'), { recursive: true });
      writeFileSync(path.join(work, 'no-client', 'api', 'v1', 'index.json'), '{}'); // the readiness probe
      writeFileSync(
        path.join(frontPrefix, 'nginx.conf'),
        nginxConfig(
          frontPrefix,
          root,
          frontPort,
          renderNginxConfig(path.join(work, 'no-client'), {
            listen: `127.0.0.1:${frontPort}`,
            upstream: base,
            blobsDir: path.join(dataDir, 'blobs'),
          }),
        ),
      );
      const front = new TrackedProcess('nginx (front, offload)', bin, [
        '-p',
        frontPrefix,
        '-e',
        path.join(frontPrefix, 'error.log'),
        '-c',
        path.join(frontPrefix, 'nginx.conf'),
      ]);
      cleanup.track(front);
      await waitForHttp(`http://127.0.0.1:${frontPort}/api/v1`, front, 20_000);
      const frontUrl = `http://127.0.0.1:${frontPort}/api/v1/library/files/${imp.files[0].id}`;
      const curl = findCurl();
      details.client = curl ? `curl (${curl}), output to /dev/null` : 'Node http client (curl not found)';
      const downloads: Record<string, unknown> = {};
      // Full GET of the 1 GiB file (200), and a range from its middle (206).
      for (const length of [size, ranges[1]!]) {
        const full = length === size;
        const start = full ? 0 : Math.floor((size - length) / 2);
        const range: Record<string, string> = full ? {} : { range: `bytes=${start}-${start + length - 1}` };
        const one = async (url: string, headers: Record<string, string>) => {
          const r = curl
            ? curlDownload(curl, url, { ...headers, ...range })
            : await timed(() => download(url, { ...headers, ...range }));
          if (r.value.status !== (full ? 200 : 206) || r.value.bytes !== length)
            throw new Error(
              `${url} answered ${r.value.status} with ${r.value.bytes} bytes for ${range.range ?? 'the whole file'}`,
            );
          return mbps(length, r.seconds);
        };
        const svc: number[] = [];
        const ngx: number[] = [];
        const off: number[] = [];
        await one(serviceUrl, key); // warm every path once
        await one(nginxUrl, {});
        await one(frontUrl, key);
        for (let i = 0; i < repeats; i++) {
          svc.push(await one(serviceUrl, key));
          ngx.push(await one(nginxUrl, {}));
          off.push(await one(frontUrl, key));
        }
        const label = full ? `${Math.round(length / MiB)} MiB full` : `${Math.round(length / MiB)} MiB range`;
        downloads[label] = { serviceMBps: svc, nginxMBps: ngx, offloadMBps: off };
        const anchor = `nginx ${String((details.nginx as { version: string }).version).replace('nginx version: ', '')} sendfile, same file`;
        figures.push(
          figure(`download ${label}`, 'MB/s', median(svc), median(ngx), anchor, 'higher', { ratio: 0.8, op: '>=' }),
        );
        figures.push(
          figure(
            `download ${label}, nginx in front (ARCHIVE_DOWNLOAD_OFFLOAD=nginx)`,
            'MB/s',
            median(off),
            median(ngx),
            anchor,
            'higher',
            { ratio: 0.8, op: '>=' },
          ),
        );
      }
      details.downloads = downloads;
    }
    return { status: 'ok', figures, details };
  } finally {
    if (!options.cleanup) await cleanup.run();
  }
}

/** The section for bench/run.ts (append `librarySection()` to SECTIONS). */
export function librarySection(): Section {
  return {
    name: 'library',
    description:
      'library ingest (upload + commit) vs openssl sha256 + dd, commit rehash vs openssl dgst -sha256, range downloads vs nginx, RSS during upload',
    run: async (ctx: SectionContext): Promise<Omit<SectionResult, 'durationMs'>> => {
      const r = await runLibraryBench({ quick: ctx.quick, log: ctx.log, cleanup: ctx.cleanup });
      return { status: 'ok', figures: r.figures as Figure[], details: r.details as Record<string, unknown> };
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const result = await runLibraryBench({ quick });
  console.log(JSON.stringify(result, null, 2));
}
