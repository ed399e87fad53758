/**
 * Layered builds end to end (src/lib/site/layers.ts): an incremental build that removes a work
 * and retitles another is a layer over the full base build. Debian's nginx running the layer's
 * own nginx.conf serves it as a full build of the same commit would: the retitled page from the
 * delta, unchanged pages from the base, and no page, score page or record of the removed work
 * (the record goes to Node, which answers it). Past ARCHIVE_LAYER_MAX_PATHS the next incremental
 * build compacts: a plain folder holding the whole view, byte-identical to a full build, on which
 * the next layer is made. The layers never form a chain.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNginxConfig } from '../../api/site/nginx.ts';
import { buildInfo, digests, IncrementalBuilds, viewFilesUnder } from '../helpers/build-folders.ts';
import { startNginx, type TestNginx } from '../helpers/nginx.ts';
import { freePort } from '../helpers/process.ts';

const BASE_URL = 'https://layers.example.test';
const builds = new IncrementalBuilds('pdma-layers-', BASE_URL);
// A work with an engraved score whose composer has another work (else: a full build).
const REMOVED = 'mozart-twinkle-variations-k265';
const RETITLED = 'beethoven-fur-elise';
let baseDir = '';
let layerDir = '';
let nginx: TestNginx | null = null;
let node: http.Server | null = null;

beforeAll(async () => {
  baseDir = await builds.buildBase();
}, 300_000);

afterAll(async () => {
  await nginx?.stop();
  node?.close();
  delete process.env.ARCHIVE_LAYER_MAX_PATHS;
  builds.dispose();
});

describe('layered builds', () => {
  it('a removal and a retitle: a layer over the base, served by nginx as the full build would be', async () => {
    const scorePage = viewFilesUnder(baseDir, `works/${REMOVED}/score`).find((f) => f.endsWith('.svg'))!;
    expect(scorePage).toBeDefined();
    rmSync(path.join(builds.repo, 'works', REMOVED), { recursive: true });
    const file = builds.work(RETITLED);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Für Elise (layered)'));
    const commit = await builds.commitAll('Remove the toccata, retitle Für Elise');
    const result = await builds.buildBoth(commit, baseDir, 'layer');
    layerDir = result.incremental;
    expect(result.differences).toEqual([]);
    const info = buildInfo(layerDir);
    expect(info.mode).toBe('incremental');
    expect(info.incremental.layer).toMatchObject({ base: 'base' });
    const layer = JSON.parse(readFileSync(path.join(layerDir, 'layer.json'), 'utf8'));
    expect(layer.deleted).toContain(scorePage);
    expect(layer.deleted).toContain(`api/v1/works/${REMOVED}/index.json`);
    expect(layer.files).toContain(`works/${RETITLED}/index.html`);
    expect(layer.files).not.toContain('works/brahms-wiegenlied-op-49-no-4/index.html');

    // nginx, with a stand-in for Node behind it that says who answered.
    node = http.createServer((req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`node: ${req.url}`);
    });
    await new Promise<void>((resolve) => node!.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    const conf = renderNginxConfig(path.join(layerDir, 'client'), {
      listen: `127.0.0.1:${port}`,
      upstream: `http://127.0.0.1:${(node.address() as AddressInfo).port}`,
    });
    nginx = await startNginx(path.join(builds.root, 'nginx'), port, conf);
    const get = async (url: string) => {
      const r = await fetch(`${nginx!.front}${url}`);
      return { status: r.status, text: await r.text(), server: r.headers.get('server') ?? '' };
    };
    const retitled = await get(`/works/${RETITLED}/`);
    expect(retitled.status).toBe(200);
    expect(retitled.text).toContain('Für Elise (layered)');
    const kept = await get('/works/brahms-wiegenlied-op-49-no-4/');
    expect(kept.status).toBe(200);
    expect(kept.text).toBe(
      readFileSync(path.join(baseDir, 'client/works/brahms-wiegenlied-op-49-no-4/index.html'), 'utf8'),
    );
    expect((await get(`/api/v1/works/${RETITLED}`)).text).toContain('Für Elise (layered)');
    for (const gone of [`/works/${REMOVED}/`, `/works/${REMOVED}`, `/${scorePage}`, `/works/${REMOVED}/index.md`])
      expect((await get(gone)).status, gone).toBe(404);
    // The removed work's record is not the build's: Node is asked (and says it has none).
    const record = await get(`/api/v1/works/${REMOVED}`);
    expect([record.status, record.text]).toEqual([404, `node: /api/v1/works/${REMOVED}`]);
    expect((await get('/')).status).toBe(200);
    // A plain build's base/ is its own client/: nginx's second try, made after a swap from a layer
    // to a plain build, still finds the file.
    expect(readFileSync(path.join(baseDir, 'base', 'index.html'))).toEqual(
      readFileSync(path.join(baseDir, 'client', 'index.html')),
    );
  }, 600_000);

  it('past ARCHIVE_LAYER_MAX_PATHS the next build compacts into a plain folder; the one after is a layer over it', async () => {
    expect(layerDir).not.toBe('');
    const layerBefore = digests(layerDir);
    process.env.ARCHIVE_LAYER_MAX_PATHS = '1';
    const file = builds.work(RETITLED);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Für Elise (compacted)'));
    const compacted = await builds.buildBoth(await builds.commitAll('Retitle again'), layerDir, 'compacted');
    expect(compacted.differences).toEqual([]);
    expect(buildInfo(compacted.incremental).incremental.layer).toEqual({ base: null, compacted: true });
    expect(existsSync(path.join(compacted.incremental, 'layer.json'))).toBe(false);

    delete process.env.ARCHIVE_LAYER_MAX_PATHS;
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Für Elise (after)'));
    const next = await builds.buildBoth(await builds.commitAll('Retitle once more'), compacted.incremental, 'next');
    expect(next.differences).toEqual([]);
    expect(buildInfo(next.incremental).incremental.layer).toMatchObject({ base: 'compacted-inc' });
    // The layer the compaction read is unchanged (its files are linked, never written).
    expect(digests(layerDir)).toEqual(layerBefore);
  }, 900_000);
});
