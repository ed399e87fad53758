/**
 * Layered builds: the rules (src/domain/site-layers.ts) and a view over real folders
 * (src/lib/site/layers.ts), read through the static server's file lookup as requests read it,
 * and published as `publish:static` publishes a build.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_LAYER_MAX_PATHS,
  LAYER_FORMAT,
  layerMaxPathsFrom,
  nextBuildKind,
  compactionDue,
  layerSize,
  nextDeleted,
  parseLayerManifest,
  sourceOf,
  type LayerManifest,
} from '../../src/domain/site-layers.ts';
import { LAYER_DELETED_DIR, readLayerManifest, SiteView, writeLayerFiles } from '../../src/lib/site/layers.ts';
import { StaticSite } from '../../api/site/static-site.ts';
import { siteObjects } from '../../scripts/publish-static.ts';

describe('layer rules', () => {
  it('a path is the delta’s, deleted, or the base’s', () => {
    const files = new Set(['a.html']);
    const deleted = new Set(['b.html']);
    expect([
      sourceOf('a.html', files, deleted),
      sourceOf('b.html', files, deleted),
      sourceOf('c.html', files, deleted),
    ]).toEqual(['delta', 'deleted', 'base']);
  });

  it('the next deleted list keeps the earlier ones, adds the removed base files, and drops what the delta holds', () => {
    expect(nextDeleted(['x/1', 'y/1'], ['w/1', 'w/2', 'y/1'], new Set(['w/2', 'x/1']))).toEqual(['w/1', 'y/1']);
  });

  it('a new layer while the base layer is under the bound; a copy past it or with layers off', () => {
    const small = { files: ['a'], deleted: ['b'] };
    expect(nextBuildKind(null, 10)).toBe('layer');
    expect(nextBuildKind(small, 3)).toBe('layer');
    expect(nextBuildKind(small, 2)).toBe('copy');
    expect(nextBuildKind(null, 0)).toBe('copy');
  });

  it('a served layer is compacted in the background from half the bound on; never a plain build or with layers off', () => {
    const two = layerSize({ files: ['a'], deleted: ['b'] });
    expect(compactionDue(two, 4)).toBe(true);
    expect(compactionDue(two, 5)).toBe(false);
    expect(compactionDue(two, 2)).toBe(true);
    expect(compactionDue(null, 4)).toBe(false);
    expect(compactionDue(two, 0)).toBe(false);
  });

  it('reads ARCHIVE_LAYER_MAX_PATHS, naming the setting when it is wrong', () => {
    expect(layerMaxPathsFrom(undefined)).toBe(DEFAULT_LAYER_MAX_PATHS);
    expect(layerMaxPathsFrom('0')).toBe(0);
    expect(layerMaxPathsFrom('500')).toBe(500);
    for (const bad of ['-1', '1.5', 'many', '99999999999'])
      expect(() => layerMaxPathsFrom(bad)).toThrow(/ARCHIVE_LAYER_MAX_PATHS/);
  });

  it('refuses a manifest naming a path outside the site or a base outside builds/', () => {
    const ok = { format: 1, base: 'b1', files: ['a/b.html'], deleted: [] };
    expect(parseLayerManifest(JSON.stringify(ok)).base).toBe('b1');
    expect(() => parseLayerManifest(JSON.stringify({ ...ok, base: '../elsewhere' }))).toThrow(/base/);
    expect(() => parseLayerManifest(JSON.stringify({ ...ok, files: ['../etc/passwd'] }))).toThrow(/files/);
    expect(() => parseLayerManifest(JSON.stringify({ ...ok, deleted: ['a//b'] }))).toThrow(/deleted/);
    expect(() => parseLayerManifest(JSON.stringify({ ...ok, format: 2 }))).toThrow(/format/);
  });
});

describe('a layered view over real folders', () => {
  let root = '';
  const put = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'pdma-layers-'));
    // The base: a plain build.
    put(path.join(root, 'b0', 'client', 'index.html'), 'home 0');
    put(path.join(root, 'b0', 'client', 'works', 'kept', 'index.html'), 'kept 0');
    put(path.join(root, 'b0', 'client', 'works', 'gone', 'index.html'), 'gone 0');
    put(path.join(root, 'b0', 'client', 'works', 'gone', 'score', 'page-1.svg'), '<svg/>');
    // The layer: home changed, a new work, one work removed.
    put(path.join(root, 'l1', 'client', 'index.html'), 'home 1');
    put(path.join(root, 'l1', 'client', 'works', 'new', 'index.html'), 'new 1');
    writeLayerFiles(path.join(root, 'l1'), {
      format: 1,
      base: 'b0',
      files: ['index.html', 'works/new/index.html'],
      deleted: ['works/gone/index.html', 'works/gone/score/page-1.svg'],
    });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('resolves each path to the delta, the base or nothing, and lists the view', () => {
    const view = SiteView.open(path.join(root, 'l1'));
    expect(view.layered).toBe(true);
    expect(readFileSync(view.locate('index.html')!, 'utf8')).toBe('home 1');
    expect(readFileSync(view.locate('works/kept/index.html')!, 'utf8')).toBe('kept 0');
    expect(view.locate('works/gone/index.html')).toBeNull();
    expect(view.filesUnder('')).toEqual(['index.html', 'works/kept/index.html', 'works/new/index.html']);
    expect(view.listDirs('works')).toEqual(['gone', 'kept', 'new']);
    // The markers nginx reads, and the manifest read back.
    expect(readFileSync(path.join(root, 'l1', LAYER_DELETED_DIR, 'works', 'gone', 'index.html'), 'utf8')).toBe('');
    expect(readLayerManifest(path.join(root, 'l1'))?.deleted).toHaveLength(2);
    // A plain build is its own view.
    expect(SiteView.open(path.join(root, 'b0')).filesUnder('works/gone')).toEqual([
      'works/gone/index.html',
      'works/gone/score/page-1.svg',
    ]);
  });

  it('the static server answers the delta’s page, the base’s page, and nothing for a deleted one', async () => {
    const site = new StaticSite(SiteView.open(path.join(root, 'l1')));
    const body = async (url: string) => {
      const r = await site.resolve(url);
      return r.kind === 'file' ? (await site.bytesOf(r.file)).toString('utf8') : r.kind;
    };
    expect(await body('/')).toBe('home 1');
    expect(await body('/works/kept/')).toBe('kept 0');
    expect(await body('/works/new/')).toBe('new 1');
    expect(await body('/works/gone/')).toBe('none');
    expect(await body('/works/gone/score/page-1.svg')).toBe('none');
    expect(await body('/works/gone')).toBe('none');
    expect(await body('/works/kept')).toBe('redirect');
    expect(await body('/works/../../b0/client/works/gone/')).toBe('none');
  });

  it('publish:static publishes the view: the delta’s and the base’s files, none of the deleted ones', async () => {
    const objects = await siteObjects(SiteView.open(path.join(root, 'l1')), 'site/');
    const byKey = new Map(objects.map((o) => [o.key, o]));
    expect([...byKey.keys()].filter((k) => k.includes('gone'))).toEqual([]);
    for (const key of ['site/index.html', 'site/works/kept/', 'site/works/new/index.html'])
      expect(byKey.has(key), key).toBe(true);
    expect(readFileSync(byKey.get('site/index.html')!.file!, 'utf8')).toBe('home 1');
    expect(readFileSync(byKey.get('site/works/kept/')!.file!, 'utf8')).toBe('kept 0');
  });
});

describe('writeLayerFiles over the markers of the layer before', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'pdma-markers-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const tree = (dir: string): string[] => {
    const out: string[] = [];
    const walk = (rel: string) => {
      for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
        const child = rel ? `${rel}/${e.name}` : e.name;
        out.push(e.isDirectory() ? `${child}/` : child);
        if (e.isDirectory()) walk(child);
      }
    };
    walk('');
    return out.sort();
  };

  it('leaves the same deleted/ tree as markers written afresh: removed, kept and new markers', () => {
    const before = ['pagefind/shard-3/a.pf', 'works/gone/index.html', 'works/gone/index.json', 'works/kept/old.txt'];
    const after = ['pagefind/shard-4/b.pf', 'works/kept/old.txt', 'works/new-gone/index.html'];
    const manifest: LayerManifest = { format: LAYER_FORMAT, base: 'b0', files: [], deleted: after };
    // The link step's copy of the layer before's markers, then only the difference.
    const linked = path.join(root, 'linked');
    writeLayerFiles(linked, { ...manifest, deleted: before });
    writeLayerFiles(linked, { ...manifest, deleted: [...after] }, before);
    const fresh = path.join(root, 'fresh');
    writeLayerFiles(fresh, { ...manifest, deleted: [...after] });
    expect(tree(path.join(linked, LAYER_DELETED_DIR))).toEqual(tree(path.join(fresh, LAYER_DELETED_DIR)));
    expect(tree(path.join(fresh, LAYER_DELETED_DIR))).toContain('works/new-gone/index.html');
    expect(tree(path.join(linked, LAYER_DELETED_DIR))).not.toContain('works/gone/');
  });
});
