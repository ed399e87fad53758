/**
 * The archival CLI against a fresh server (`npm start`'s entry point): importing a folder of
 * mixed files (WAV, MP3, MIDI, MusicXML, JSON manifest, an empty file) reports every length and
 * sha256 matched and deletes the local copies only with --delete-local; the package lists them;
 * a ranged download returns the exact bytes; `verify` compares a folder with the package. The
 * key travels in the environment or a file, never in the arguments.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { startService, type Started, runScript } from '../helpers/process.ts';
import { KEY_ENV, LIBRARY_SECRET, sha256 } from './library-helpers.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-library-cli-'));
const dataDir = path.join(root, 'data');
let service: Started;

/** A minimal PCM WAV: 44-byte header and random samples. */
function wav(samples: number): Buffer {
  const data = randomBytes(samples * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(44100, 24);
  h.writeUInt32LE(88200, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

const sample = (p: string) => readFileSync(path.join(PROJECT_ROOT, p));
const FILES: Record<string, Buffer> = {
  'masters/minuet-bed.wav': wav(150_000),
  'deliveries/minuet-bed.mp3': sample('content/works/bach-prelude-in-c-bwv-846/bwv846-piano-bed.mp3'),
  'midi/minuet-bed.mid': sample('content/works/bach-prelude-in-c-bwv-846/bwv846-piano-bed.mid'),
  'score/minuet.musicxml': sample('test/fixtures/mini/works/bach-minuet-in-g/score.musicxml'),
  'manifest.json': Buffer.from(JSON.stringify({ delivery: 'minuet-bed', takes: 3 }, null, 2)),
  'qa/notes.txt': Buffer.alloc(0),
  'track.json': Buffer.from(
    JSON.stringify({
      stableKey: 'cli-minuet-bed',
      title: 'Minuet bed (CLI)',
      collection: 'Baroque beds',
      sourceType: 'score-rendering',
      rightsStatus: 'public-domain',
      license: 'CC0-1.0',
      reviewStatus: 'technical-pass',
    }),
  ),
};

function writeFolder(dir: string): void {
  for (const [rel, bytes] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), bytes);
  }
}

async function cli(
  args: string[],
  env: Record<string, string> = { ARCHIVE_LIBRARY_KEY: LIBRARY_SECRET },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = await runScript(
    'archive.ts',
    [...args, '--server', service.url],
    { PATH: process.env.PATH ?? '', ...env },
    {
      replaceEnv: true,
    },
  );
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${url}`, { headers: { 'x-archive-import-key': LIBRARY_SECRET, ...headers } });

beforeAll(async () => {
  await ensureContentRepo(path.join(dataDir, 'content'), path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  service = await startService({ ARCHIVE_DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://cli.example.test', ...KEY_ENV });
});
afterAll(async () => {
  await service?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('npm run archive -- import', () => {
  it('imports a folder of mixed files, reports every match, and deletes local copies only after that', async () => {
    const folder = path.join(root, 'minuet-bed');
    writeFolder(folder);
    const run = await cli(['import', folder, '--delete-local']);
    expect(run.code, run.stderr).toBe(0);
    for (const [rel, bytes] of Object.entries(FILES)) {
      expect(run.stdout).toMatch(
        new RegExp(`matched +${bytes.length} B  ${sha256(bytes)}  ${rel.replace(/\./g, '\\.')}`),
      );
    }
    expect(run.stdout).toContain(`all ${Object.keys(FILES).length} file(s) matched`);
    expect(run.stdout).toContain('deleted 7 local file(s).');
    expect(readdirSync(folder)).toEqual([]);
    expect(`${run.stdout}${run.stderr}`).not.toContain(LIBRARY_SECRET);

    // The package lists every file with its original path, length and digest.
    const pkg = (await (await get('/api/v1/library/tracks/cli-minuet-bed')).json()).data;
    expect(pkg).toMatchObject({ title: 'Minuet bed (CLI)', visibility: 'private', sourceType: 'score-rendering' });
    const byPath = Object.fromEntries(
      pkg.files.map((f: { originalRelativePath: string }) => [f.originalRelativePath, f]),
    );
    for (const [rel, bytes] of Object.entries(FILES))
      expect(byPath[rel]).toMatchObject({ byteLength: bytes.length, sha256: sha256(bytes) });
    expect(byPath['midi/minuet-bed.mid']).toMatchObject({ kind: 'midi', contentType: 'audio/midi' });
    expect(byPath['score/minuet.musicxml'].kind).toBe('musicxml');

    // A ranged download returns the exact bytes.
    const wavFile = byPath['masters/minuet-bed.wav'];
    const ranged = await get(new URL(wavFile.links.download).pathname, { range: 'bytes=44-1067' });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(FILES['masters/minuet-bed.wav']!.subarray(44, 1068))).toBe(
      true,
    );
  });

  it('keeps local copies without --delete-local, and a second run finds the committed import', async () => {
    const folder = path.join(root, 'kept');
    writeFolder(folder);
    writeFileSync(path.join(folder, 'track.json'), JSON.stringify({ stableKey: 'cli-kept', title: 'Kept' }));
    const first = await cli(['import', folder]);
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(path.join(folder, 'masters', 'minuet-bed.wav'))).toBe(true);
    const second = await cli(['import', folder]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('all 7 file(s) matched');
  });

  it('reads the key from a file, and refuses a key argument or no key', async () => {
    const keyFile = path.join(root, 'library.key');
    writeFileSync(keyFile, `${LIBRARY_SECRET}\n`, { mode: 0o600 });
    const fromFile = await cli(['verify', 'cli-kept', path.join(root, 'kept'), '--key-file', keyFile], {});
    expect(fromFile.code, fromFile.stdout + fromFile.stderr).toBe(0);
    const asArgument = await cli(['verify', 'cli-kept', path.join(root, 'kept'), `--key=${LIBRARY_SECRET}`], {});
    expect(asArgument.code).toBe(2);
    expect(asArgument.stderr).toContain('never taken from arguments');
    const none = await cli(['verify', 'cli-kept', path.join(root, 'kept')], {});
    expect(none.code).toBe(2);
  });
});

describe('npm run archive -- verify', () => {
  it('confirms a matching folder and names a file that differs or is missing', async () => {
    const folder = path.join(root, 'verify');
    writeFolder(folder);
    const ok = await cli(['verify', 'cli-minuet-bed', folder]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toContain('all 7 file(s) match the server.');
    const changed = Buffer.from(FILES['midi/minuet-bed.mid']!);
    changed[10] = changed[10]! ^ 0xff;
    writeFileSync(path.join(folder, 'midi', 'minuet-bed.mid'), changed);
    rmSync(path.join(folder, 'manifest.json'));
    const bad = await cli(['verify', 'cli-minuet-bed', folder]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/MISMATCH .*midi\/minuet-bed\.mid/);
    expect(bad.stdout).toMatch(/MISMATCH .*missing locally +manifest\.json/);
  });
});
