/**
 * One MIME table (mime-db) for the front server and the generated nginx.conf. Every file
 * of the sample build is typed the same by both: by the parsed types of nginx.conf, and, where
 * nginx is installed, by a real nginx serving the build; contributed files are never HTML/SVG.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/process.ts';
import { contentTypeFor, safeDeclaredType, storedFileType } from '../../api/http/media-types.ts';
import { standaloneConfig } from '../../bench/lib/nginx.ts';

let t: TestApp;
beforeAll(async () => {
  t = await openApp();
});
afterAll(async () => {
  await t?.close();
});

function walk(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(dir, path.posix.join(rel, e.name)) : [path.posix.join(rel, e.name)],
  );
}

interface TypesBlock {
  byExt: Map<string, string>;
  charsetTypes: Set<string>;
}

/** The `charset_types` + `types { }` block that follows `marker` in nginx.conf. */
function typesAfter(conf: string, marker: string): TypesBlock {
  const from = conf.indexOf(marker);
  expect(from, marker).toBeGreaterThanOrEqual(0);
  const charsetLine = /charset_types ([^;]+);/.exec(conf.slice(from))!;
  const start = conf.indexOf('types {', from);
  const body = conf.slice(start + 'types {'.length, conf.indexOf('}', start));
  const byExt = new Map<string, string>();
  for (const line of body.split(';')) {
    const [type, ...exts] = line.trim().split(/\s+/);
    if (type) for (const e of exts) byExt.set(e, type);
  }
  // nginx always adds the charset to text/html.
  return { byExt, charsetTypes: new Set([...charsetLine[1]!.trim().split(/\s+/), 'text/html']) };
}

function nginxType(block: TypesBlock, rel: string, fallback: string): string {
  const ext = /\.([^./]+)$/.exec(rel)?.[1]?.toLowerCase();
  const type = (ext && block.byExt.get(ext)) || fallback;
  return block.charsetTypes.has(type) ? `${type}; charset=utf-8` : type;
}

describe('one MIME table', () => {
  it('types every file of the build as the generated nginx.conf does', async () => {
    const conf = readFileSync(path.join(t.buildDir, 'nginx.conf'), 'utf8');
    const main = typesAfter(conf, 'server {');
    const stored = typesAfter(conf, 'location ~ ^/works/[^/]+/files/');
    const files = walk(path.join(t.buildDir, 'client'));
    expect(files.length).toBeGreaterThan(100);
    const exts = new Set<string>();
    for (const rel of files) {
      const res = await t.app.inject({ method: 'HEAD', url: `/${rel}` });
      expect(res.statusCode, rel).toBe(200);
      const isStored = /^works\/[^/]+\/files\//.test(rel);
      expect(res.headers['content-type'], rel).toBe(
        nginxType(isStored ? stored : main, rel, 'application/octet-stream'),
      );
      expect(res.headers['x-content-type-options'], rel).toBe('nosniff');
      exts.add(path.extname(rel));
    }
    // The build's own kinds of files are all there (so the comparison covers them).
    for (const e of ['.html', '.json', '.md', '.musicxml', '.mid', '.mp3', '.svg', '.pdf', '.zip', '.js', '.css'])
      expect(exts).toContain(e);
  });

  it('a real nginx serving the build answers the same Content-Type and Cache-Control for every file', async () => {
    const bin = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
    // npm test installs nginx (scripts/ensure-test-tools.ts): a missing one fails, never passes quietly.
    expect(bin, 'nginx is not installed: run `node scripts/ensure-test-tools.ts` (npm test does)').not.toBe('');
    const prefix = mkdtempSync(path.join(os.tmpdir(), 'pdma-mime-nginx-'));
    mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
    const port = await freePort();
    const confPath = path.join(prefix, 'nginx.conf');
    const conf = standaloneConfig(prefix, path.join(t.buildDir, 'client'), `127.0.0.1:${port}`, 'http://127.0.0.1:9');
    // As root, nginx's workers would drop to "nobody", who cannot read the private temp build.
    writeFileSync(confPath, process.getuid?.() === 0 ? conf.replace('daemon off;', 'daemon off;\nuser root;') : conf);
    const check = spawnSync(bin, ['-t', '-p', prefix, '-e', path.join(prefix, 'error.log'), '-c', confPath], {
      encoding: 'utf8',
    });
    expect(check.status, check.stderr).toBe(0);
    // Not even a warning (duplicate types, an undersized types hash).
    expect(check.stderr).not.toMatch(/\[warn\]|\[emerg\]/);
    const nginx = spawn(bin, ['-p', prefix, '-e', path.join(prefix, 'error.log'), '-c', confPath], { stdio: 'ignore' });
    try {
      const origin = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 100; i++) {
        if (
          await fetch(`${origin}/`).then(
            () => true,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const files = walk(path.join(t.buildDir, 'client')).filter((rel) => !rel.endsWith('/index.html'));
      for (const rel of files) {
        const fromNginx = await fetch(`${origin}/${rel}`, { method: 'HEAD' });
        expect(fromNginx.status, rel).toBe(200);
        const fromNode = await t.app.inject({ method: 'HEAD', url: `/${rel}` });
        // nginx writes "charset=utf-8" as "charset=utf-8" too; compare case-insensitively.
        expect(fromNginx.headers.get('content-type')?.toLowerCase(), rel).toBe(
          String(fromNode.headers['content-type']).toLowerCase(),
        );
        expect(fromNginx.headers.get('x-content-type-options'), rel).toBe('nosniff');
        // One cache policy, the front server's, said once.
        expect(fromNginx.headers.get('cache-control'), rel).toBe(fromNode.headers['cache-control']);
      }
    } finally {
      nginx.kill('SIGTERM');
      await new Promise((r) => nginx.once('exit', r));
      rmSync(prefix, { recursive: true, force: true });
    }
  });
});

describe('declared and contributed types', () => {
  it('serves declared HTML, SVG, XML and script types as application/octet-stream', () => {
    for (const declared of [
      'text/html',
      'TEXT/HTML; charset=utf-8',
      'image/svg+xml',
      'application/xhtml+xml',
      'application/xml',
      'text/xml',
      'text/javascript',
      'application/javascript',
      'audio/x+xml',
      'nonsense',
      '',
      'text/html\u0000',
    ]) {
      expect(safeDeclaredType(declared), declared).toBe('application/octet-stream');
    }
    expect(safeDeclaredType('audio/wav')).toBe('audio/wav');
    expect(safeDeclaredType('Audio/MPEG; rate=44100')).toBe('audio/mpeg');
    expect(safeDeclaredType('application/vnd.recordare.musicxml+xml')).toBe('application/vnd.recordare.musicxml+xml');
    expect(safeDeclaredType('text/plain')).toBe('text/plain; charset=utf-8');
  });

  it('types stored work files by extension, but never as active content', () => {
    expect(storedFileType('a.mp3')).toBe('audio/mpeg');
    expect(storedFileType('a.musicxml')).toBe('application/vnd.recordare.musicxml+xml');
    for (const f of ['a.html', 'a.svg', 'a.xml', 'a.js', 'a.xhtml'])
      expect(storedFileType(f), f).toBe('application/octet-stream');
    expect(contentTypeFor('a.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('a.unknown-ext')).toBe('application/octet-stream');
  });
});
