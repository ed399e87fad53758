/**
 * The archival client for the private library (spec Part 4.2): import a production folder or a
 * manifest, upload with resume, commit, compare the server's word on every length and SHA-256
 * with the local files, and only then (with --delete-local) delete the local copies.
 *
 *   npm run archive -- import <folder|manifest.json> [--server URL] [--key-file PATH]
 *                            [--stable-key KEY] [--title TEXT] [--collection TEXT] [--delete-local]
 *   npm run archive -- verify <stableKey> <folder> [--server URL] [--key-file PATH]
 *
 * The key comes from ARCHIVE_LIBRARY_KEY or from a file (--key-file, or ARCHIVE_LIBRARY_KEY_FILE),
 * never from an argument: arguments show in `ps`. The server is --server, else ARCHIVE_BASE_URL
 * (ARCHIVE_SERVER_URL is an alias), else http://localhost:4321 (scripts/lib/server-address.ts). Exit codes: 0 all matched, 1 something did not, 2 usage or setup error.
 * Format of folders and manifests: docs/library.md ("Archival CLI").
 */
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs, type Stats } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { serverAddress, unreachable, type ServerAddress } from './lib/server-address.ts';
import { canonicalJson } from '../src/domain/library/import-input.ts';
import { LIBRARY_SOURCE_TYPES } from '../src/domain/library/vocabulary.ts';
import type { MusicLibraryFileInput, MusicLibraryImportInput, MusicLibraryTrackInput } from '../src/schemas/library.ts';
import { SCORE_FILE_EXTENSIONS } from '../src/domain/score-files.ts';
import { unknownTrack } from '../src/domain/library/unknown-track.ts';

class UsageError extends Error {}

// ---------- arguments and key ----------

const USAGE = `usage:
  npm run archive -- import <folder|manifest.json> [--server URL] [--key-file PATH]
                           [--stable-key KEY] [--title TEXT] [--collection TEXT] [--delete-local]
  npm run archive -- verify <stableKey> <folder> [--server URL] [--key-file PATH]

The key comes from ARCHIVE_LIBRARY_KEY or a file (--key-file / ARCHIVE_LIBRARY_KEY_FILE), never
from an argument. The server is --server, else ARCHIVE_BASE_URL (ARCHIVE_SERVER_URL is an alias), else
http://localhost:4321.`;

interface Options {
  server: ServerAddress;
  keyFile: string | undefined;
  stableKey: string | undefined;
  title: string | undefined;
  collection: string | undefined;
  deleteLocal: boolean;
}

function parse(argv: string[]): { command: string; positionals: string[]; options: Options } {
  if (argv.some((a) => /^--(key|api-key|token)(=|$)/.test(a))) {
    throw new UsageError(
      'keys are never taken from arguments (they show in ps): set ARCHIVE_LIBRARY_KEY or use --key-file PATH',
    );
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      server: { type: 'string' },
      'key-file': { type: 'string' },
      'stable-key': { type: 'string' },
      title: { type: 'string' },
      collection: { type: 'string' },
      'delete-local': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || positionals.length === 0) throw new UsageError(USAGE);
  const [command, ...rest] = positionals;
  return {
    command: command!,
    positionals: rest,
    options: {
      server: serverAddress(values.server),
      keyFile: values['key-file'] ?? process.env.ARCHIVE_LIBRARY_KEY_FILE,
      stableKey: values['stable-key'],
      title: values.title,
      collection: values.collection,
      deleteLocal: values['delete-local'] ?? false,
    },
  };
}

async function readKey(options: Options): Promise<string> {
  if (options.keyFile) {
    const text = await fs.readFile(options.keyFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read the key file ${options.keyFile}: ${err.code ?? err.message}`);
    });
    const key = text.split(/\r?\n/)[0]!.trim();
    if (!key) throw new UsageError(`the key file ${options.keyFile} is empty`);
    return key;
  }
  const key = process.env.ARCHIVE_LIBRARY_KEY?.trim();
  if (!key) throw new UsageError('no key: set ARCHIVE_LIBRARY_KEY or pass --key-file PATH (a file holding the key)');
  return key;
}

// ---------- HTTP ----------

interface Answer {
  status: number;
  body: Buffer;
  json: () => any;
}

/** Errors that mean nothing answered at the address (as opposed to a connection lost midway). */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

class Client {
  private readonly server: ServerAddress;
  private readonly key: string;

  constructor(server: ServerAddress, key: string) {
    this.server = server;
    this.key = key;
  }

  /** One request; `body` is JSON, a stream of bytes, or nothing. Only the path is ever printed. */
  request(
    method: string,
    pathOrUrl: string,
    body?: { json: unknown } | { stream: Readable; length: number },
  ): Promise<Answer> {
    // Links in answers are built from the server's PUBLIC_BASE_URL, which may not be the address
    // this client reaches it at: keep their path and query, use our --server origin.
    const relative = /^https?:\/\//.test(pathOrUrl)
      ? `${new URL(pathOrUrl).pathname}${new URL(pathOrUrl).search}`
      : pathOrUrl;
    const url = new URL(relative, this.server.url);
    const headers: Record<string, string> = { 'x-archive-import-key': this.key, accept: 'application/json' };
    let payload: Buffer | undefined;
    if (body && 'json' in body) {
      payload = Buffer.from(JSON.stringify(body.json));
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    } else if (body) {
      headers['content-type'] = 'application/octet-stream';
      headers['content-length'] = String(body.length);
    }
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const buf = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, body: buf, json: () => JSON.parse(buf.toString('utf8')) });
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) =>
        reject(CONNECT_ERRORS.has(err.code ?? '') ? new Error(unreachable(this.server, err)) : err),
      );
      if (payload) req.end(payload);
      else if (body && 'stream' in body) pipeline(body.stream, req).catch(reject);
      else req.end();
    });
  }
}

function problemText(a: Answer): string {
  try {
    const p = a.json();
    return `${a.status} ${p.title ?? ''}: ${p.detail ?? ''}`.trim();
  } catch {
    return `HTTP ${a.status}`;
  }
}

// ---------- local files ----------

interface LocalFile {
  abs: string;
  input: MusicLibraryFileInput;
  size: number;
  mtimeMs: number;
}

const TYPES: Record<string, [kind: string, contentType: string]> = {
  '.wav': ['wav', 'audio/wav'],
  '.mp3': ['mp3', 'audio/mpeg'],
  '.mid': ['midi', 'audio/midi'],
  '.midi': ['midi', 'audio/midi'],
  // Score files: the one definition every tool shares (src/domain/score-files.ts).
  ...Object.fromEntries(SCORE_FILE_EXTENSIONS.map((e) => [e.ext, [e.kind, e.mediaType] as [string, string]])),
  '.pdf': ['score-pdf', 'application/pdf'],
  '.flac': ['master', 'audio/flac'],
  '.aif': ['master', 'audio/aiff'],
  '.aiff': ['master', 'audio/aiff'],
  '.json': ['manifest', 'application/json'],
  '.yaml': ['manifest', 'application/yaml'],
  '.yml': ['manifest', 'application/yaml'],
  '.png': ['artwork', 'image/png'],
  '.jpg': ['artwork', 'image/jpeg'],
  '.jpeg': ['artwork', 'image/jpeg'],
  '.txt': ['other', 'text/plain'],
  '.md': ['other', 'text/markdown'],
};

function typeOf(name: string): [string, string] {
  return TYPES[path.extname(name).toLowerCase()] ?? ['other', 'application/octet-stream'];
}

async function hashFile(abs: string, onBytes: (n: number) => void): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(abs, { highWaterMark: 1024 * 1024 })) {
    hash.update(chunk as Buffer);
    onBytes((chunk as Buffer).length);
  }
  return hash.digest('hex');
}

/** Regular files under `dir`, relative paths with "/", skipping dot-files and symbolic links. */
async function walk(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await fs.readdir(path.join(dir, rel), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    if (entry.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await walk(dir, r)));
    else if (entry.isFile()) out.push(r);
  }
  return out;
}

/** A path from the server (metadata) resolved inside `root`, or null when it would escape it. */
function inside(root: string, relative: string): string | null {
  if (path.isAbsolute(relative) || relative.includes('\0')) return null;
  const abs = path.resolve(root, relative);
  return abs.startsWith(path.resolve(root) + path.sep) ? abs : null;
}

function defaultTrack(name: string): MusicLibraryTrackInput {
  const key =
    name
      .replace(/[^A-Za-z0-9._:-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 200) || 'track';
  return unknownTrack({ stableKey: key, title: name, collection: 'archive', license: 'unknown' });
}

interface Plan {
  root: string;
  idempotencyKey: string | undefined;
  track: MusicLibraryTrackInput;
  files: Array<{ abs: string; input: Omit<MusicLibraryFileInput, 'sha256' | 'byteLength'> }>;
  /** Folders the import may empty (folder mode), removed after --delete-local when empty. */
  folder: string | null;
}

async function planFromFolder(folder: string, options: Options): Promise<Plan> {
  const root = path.resolve(folder);
  let track = defaultTrack(path.basename(root));
  const trackFile = path.join(root, 'track.json');
  const stat = await fs.stat(trackFile).catch(() => null);
  if (stat?.isFile()) {
    const given = JSON.parse(await fs.readFile(trackFile, 'utf8')) as Partial<MusicLibraryTrackInput>;
    track = { ...track, ...given };
  }
  const files = (await walk(root)).map((rel) => {
    const [kind, contentType] = typeOf(rel);
    return {
      abs: path.join(root, rel),
      input: {
        kind,
        fileName: path.posix.basename(rel),
        originalRelativePath: rel,
        contentType,
        downloadPolicy: 'protected' as const,
        metadata: null,
      },
    };
  });
  return { root, idempotencyKey: undefined, track: override(track, options), files, folder: root };
}

async function planFromManifest(file: string, options: Options): Promise<Plan> {
  const root = path.dirname(path.resolve(file));
  const m = JSON.parse(await fs.readFile(file, 'utf8')) as {
    idempotencyKey?: string;
    track?: Partial<MusicLibraryTrackInput>;
    files?: Array<Partial<MusicLibraryFileInput> & { path: string }>;
  };
  if (!Array.isArray(m.files)) throw new UsageError(`${file}: a manifest needs "files": [{ "path": ... }, ...]`);
  const track = { ...defaultTrack(path.basename(root)), ...(m.track ?? {}) };
  const files = m.files.map((f, i) => {
    if (typeof f.path !== 'string') throw new UsageError(`${file}: files[${i}].path is missing`);
    const abs = inside(root, f.path);
    if (!abs) throw new UsageError(`${file}: files[${i}].path "${f.path}" leaves the manifest's folder`);
    const [kind, contentType] = typeOf(f.path);
    const rel = f.path.split(path.sep).join('/');
    return {
      abs,
      input: {
        kind: f.kind ?? kind,
        fileName: f.fileName ?? path.posix.basename(rel),
        originalRelativePath: f.originalRelativePath ?? rel,
        contentType: f.contentType ?? contentType,
        downloadPolicy: f.downloadPolicy ?? 'protected',
        metadata: f.metadata ?? null,
      },
    };
  });
  return { root, idempotencyKey: m.idempotencyKey, track: override(track, options), files, folder: null };
}

function override(track: MusicLibraryTrackInput, options: Options): MusicLibraryTrackInput {
  return {
    ...track,
    ...(options.stableKey ? { stableKey: options.stableKey } : {}),
    ...(options.title ? { title: options.title } : {}),
    ...(options.collection ? { collection: options.collection } : {}),
  };
}

// ---------- progress ----------

const MiB = 1024 * 1024;
const fmt = (n: number) => (n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${n} B`);

class Progress {
  private done = 0;
  private lastPrinted = -1;
  private readonly total: number;
  private readonly label: string;
  private readonly tty = Boolean(process.stderr.isTTY);

  constructor(label: string, total: number) {
    this.label = label;
    this.total = total;
  }

  set(done: number, note = ''): void {
    this.done = done;
    const pct = this.total === 0 ? 100 : Math.floor((this.done / this.total) * 100);
    if (this.tty) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(
        `\r${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}% ${fmt(this.done)}/${fmt(this.total)} ${note}`
          .padEnd(100)
          .slice(0, 120),
      );
    } else if (Math.floor(pct / 25) !== Math.floor(this.lastPrinted / 25)) {
      process.stderr.write(`${this.label} ${pct}% ${fmt(this.done)}/${fmt(this.total)} ${note}\n`);
    }
    this.lastPrinted = pct;
  }

  add(n: number, note = ''): void {
    this.set(this.done + n, note);
  }

  end(): void {
    if (this.tty) process.stderr.write('\n');
  }
}

// ---------- import ----------

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function hashAll(plan: Plan): Promise<LocalFile[]> {
  const stats = await Promise.all(plan.files.map((f) => fs.stat(f.abs)));
  const progress = new Progress(
    'hashing  ',
    stats.reduce((n, s) => n + s.size, 0),
  );
  const out: LocalFile[] = [];
  for (const [i, f] of plan.files.entries()) {
    const s = stats[i] as Stats;
    const sha256 = await hashFile(f.abs, (n) => progress.add(n, f.input.originalRelativePath));
    out.push({ abs: f.abs, size: s.size, mtimeMs: s.mtimeMs, input: { ...f.input, sha256, byteLength: s.size } });
  }
  progress.end();
  return out;
}

/**
 * Upload every file not yet complete, each from the offset the server reports. The import is read
 * once; it is read again only after something went wrong (a dropped connection, a conflict).
 */
async function uploadAll(client: Client, importUrl: string, local: LocalFile[]): Promise<void> {
  let state = (await client.request('GET', importUrl)).json().data;
  const total = local.reduce((n, f) => n + f.size, 0);
  let done: number = state.totals.receivedBytes;
  const progress = new Progress('uploading', total);
  progress.set(done);
  for (const [i, file] of local.entries()) {
    let remote = state.files[i];
    if (remote.status === 'uploaded' || remote.status === 'verified') continue;
    let offset: number = remote.receivedBytes;
    for (let attempt = 0; ; attempt++) {
      if (attempt >= 8) throw new Error(`giving up on ${file.input.originalRelativePath} after ${attempt} attempts`);
      const before = offset;
      const stream = createReadStream(file.abs, { start: offset, highWaterMark: MiB });
      let sent = 0;
      stream.on('data', (c) => {
        sent += (c as Buffer).length;
        progress.set(done + sent, file.input.originalRelativePath);
      });
      let answer: Answer | null = null;
      try {
        answer = await client.request('PUT', `${remote.links.upload}?offset=${offset}`, {
          stream,
          length: file.size - offset,
        });
      } catch (err) {
        // A dropped connection: the server keeps what arrived; resume from what it reports.
        process.stderr.write(
          `\nconnection lost during ${file.input.originalRelativePath} (${(err as Error).message}); resuming\n`,
        );
      }
      if (answer?.status === 200) {
        done += file.size - before;
        break;
      }
      if (answer && answer.status !== 409)
        throw new Error(`upload of ${file.input.originalRelativePath} refused: ${problemText(answer)}`);
      // 409: the offset moved, or an earlier request for this file is still ending on the server.
      await sleep(Math.min(200 * 2 ** attempt, 5000));
      state = (await client.request('GET', importUrl)).json().data;
      remote = state.files[i];
      done = state.totals.receivedBytes;
      if (remote.status === 'uploaded' || remote.status === 'verified') break;
      offset = remote.receivedBytes;
    }
  }
  progress.set(total);
  progress.end();
}

interface Check {
  path: string;
  size: number;
  sha256: string;
  serverSize: number | null;
  serverSha256: string | null;
  ok: boolean;
}

function compare(
  local: LocalFile[],
  server: Array<{ originalRelativePath: string; byteLength: number; sha256: string }>,
): Check[] {
  const byPath = new Map(server.map((s) => [s.originalRelativePath, s]));
  return local.map((l) => {
    const s = byPath.get(l.input.originalRelativePath);
    return {
      path: l.input.originalRelativePath,
      size: l.size,
      sha256: l.input.sha256,
      serverSize: s?.byteLength ?? null,
      serverSha256: s?.sha256 ?? null,
      ok: s !== undefined && s.byteLength === l.size && s.sha256 === l.input.sha256,
    };
  });
}

function printReport(title: string, checks: Check[]): void {
  console.log(title);
  for (const c of checks) {
    const mark = c.ok ? 'matched ' : 'MISMATCH';
    const server = c.ok ? '' : `  (server: ${c.serverSize ?? 'missing'} bytes, ${c.serverSha256 ?? 'no digest'})`;
    console.log(`  ${mark}  ${String(c.size).padStart(12)} B  ${c.sha256}  ${c.path}${server}`);
  }
}

async function runImport(target: string, options: Options, client: Client): Promise<number> {
  const stat = await fs.stat(target).catch(() => null);
  if (!stat) throw new UsageError(`${target} does not exist`);
  const plan = stat.isDirectory() ? await planFromFolder(target, options) : await planFromManifest(target, options);
  if (!(LIBRARY_SOURCE_TYPES as readonly string[]).includes(plan.track.sourceType)) {
    throw new UsageError(
      `track.sourceType "${plan.track.sourceType}" is not one of ${LIBRARY_SOURCE_TYPES.join(', ')}`,
    );
  }
  const local = await hashAll(plan);
  const files = local.map((l) => l.input);
  // Derived from the content: running the same import again finds the same server import and resumes it.
  const idempotencyKey =
    plan.idempotencyKey ??
    `archive-cli:${createHash('sha256')
      .update(canonicalJson({ track: plan.track, files }))
      .digest('hex')
      .slice(0, 48)}`;
  const input: MusicLibraryImportInput = { idempotencyKey, track: plan.track, files };
  const created = await client.request('POST', '/api/v1/library/imports', { json: input });
  if (created.status !== 200) {
    console.error(`import refused: ${problemText(created)}`);
    for (const e of (created.json().errors ?? []) as { pointer?: string; detail: string }[])
      console.error(`  ${e.pointer ?? ''} ${e.detail}`);
    return 1;
  }
  const imp = created.json().data;
  console.error(
    `import ${imp.id} (${imp.status}) for ${plan.track.stableKey}: ${files.length} file(s), ${fmt(local.reduce((n, l) => n + l.size, 0))}`,
  );

  let committed: any = null;
  for (let round = 0; round < 3 && !committed; round++) {
    if (imp.status !== 'committed') await uploadAll(client, imp.links.self, local);
    const answer = await client.request('POST', imp.links.commit);
    if (answer.status === 200) committed = answer.json().data;
    else if (answer.status === 422 && answer.json().type?.endsWith('/digest-mismatch')) {
      const listed = (answer.json().files ?? []) as { originalRelativePath: string }[];
      console.error(
        `the server's copy of ${listed.map((f) => f.originalRelativePath).join(', ')} did not match; uploading again`,
      );
    } else if (answer.status === 409 && Array.isArray(answer.json().files)) {
      console.error('some files are incomplete on the server; resuming');
    } else {
      console.error(`commit refused: ${problemText(answer)}`);
      return 1;
    }
  }
  if (!committed) {
    console.error('the files still did not match after 3 rounds; nothing was deleted');
    return 1;
  }
  const fromCommit = compare(
    local,
    committed.files.map((f: any) => ({
      originalRelativePath: f.originalRelativePath,
      byteLength: f.serverByteLength,
      sha256: f.serverSha256,
    })),
  );
  const pkg = (await client.request('GET', committed.links.track)).json().data;
  const fromRead = compare(local, pkg.files);
  const checks = fromCommit.map((c, i) => ({ ...c, ok: c.ok && fromRead[i]!.ok }));
  const all = checks.every((c) => c.ok) && pkg.files.length === local.length;
  printReport(
    `committed ${committed.stableKey} (import ${committed.importId}) at ${committed.committedAtUtc}; server length and SHA-256 per file:`,
    checks,
  );
  if (!all) {
    console.log('NOT ALL FILES MATCHED: local copies kept.');
    return 1;
  }
  console.log(`all ${checks.length} file(s) matched: lengths and SHA-256 confirmed by the server after commit.`);
  if (options.deleteLocal) await deleteLocal(local, plan.folder);
  return 0;
}

async function deleteLocal(local: LocalFile[], folder: string | null): Promise<void> {
  let deleted = 0;
  for (const l of local) {
    const now = await fs.stat(l.abs).catch(() => null);
    // A file that changed after hashing is not the file the server confirmed.
    if (!now || now.size !== l.size || now.mtimeMs !== l.mtimeMs) {
      console.log(`  kept ${l.input.originalRelativePath}: it changed after it was hashed`);
      continue;
    }
    await fs.unlink(l.abs);
    deleted++;
  }
  if (folder) await removeEmptyDirs(folder);
  console.log(`deleted ${deleted} local file(s).`);
}

async function removeEmptyDirs(dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const sub = path.join(dir, entry.name);
      await removeEmptyDirs(sub);
      if ((await fs.readdir(sub)).length === 0) await fs.rmdir(sub);
    }
  }
}

// ---------- verify ----------

async function runVerify(stableKey: string, folder: string, client: Client): Promise<number> {
  const answer = await client.request('GET', `/api/v1/library/tracks/${encodeURIComponent(stableKey)}`);
  if (answer.status !== 200) {
    console.error(`cannot read ${stableKey}: ${problemText(answer)}`);
    return 1;
  }
  const pkg = answer.json().data as {
    files: Array<{ originalRelativePath: string; byteLength: number; sha256: string }>;
  };
  const root = path.resolve(folder);
  const checks: Check[] = [];
  for (const f of pkg.files) {
    const abs = inside(root, f.originalRelativePath);
    const stat = abs ? await fs.stat(abs).catch(() => null) : null;
    if (!abs || !stat?.isFile()) {
      checks.push({
        path: f.originalRelativePath,
        size: 0,
        sha256: abs ? 'missing locally' : 'path leaves the folder',
        serverSize: f.byteLength,
        serverSha256: f.sha256,
        ok: false,
      });
      continue;
    }
    const sha256 = await hashFile(abs, () => undefined);
    checks.push({
      path: f.originalRelativePath,
      size: stat.size,
      sha256,
      serverSize: f.byteLength,
      serverSha256: f.sha256,
      ok: stat.size === f.byteLength && sha256 === f.sha256,
    });
  }
  printReport(`${stableKey}: ${pkg.files.length} file(s) on the server, compared with ${root}:`, checks);
  const known = new Set(pkg.files.map((f) => f.originalRelativePath));
  const extra = (await walk(root).catch(() => [] as string[])).filter((r) => !known.has(r));
  for (const r of extra) console.log(`  not in the package: ${r}`);
  const ok = checks.every((c) => c.ok);
  console.log(ok ? `all ${checks.length} file(s) match the server.` : 'NOT ALL FILES MATCH.');
  return ok ? 0 : 1;
}

// ---------- main ----------

async function main(): Promise<number> {
  const { command, positionals, options } = parse(process.argv.slice(2));
  if (command === 'import' && positionals.length === 1)
    return runImport(positionals[0]!, options, new Client(options.server, await readKey(options)));
  if (command === 'verify' && positionals.length === 2)
    return runVerify(positionals[0]!, positionals[1]!, new Client(options.server, await readKey(options)));
  throw new UsageError(USAGE);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    console.error(`archive: ${(err as Error).message}`);
    process.exit(1);
  },
);
