/**
 * The build moves its engraved pages into `client/` (src/lib/site/move-tree.ts): merged with the
 * pages Astro wrote, replacing a file at the same place without writing into it (an incremental
 * build's `client/` is a hard-linked copy of the served build, which must not change).
 */
import { linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { moveTree } from '../../src/lib/site/move-tree.ts';

let root = '';
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'pdma-move-tree-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}
const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');

describe('moveTree', () => {
  it('merges into folders that exist, moves new folders whole, and counts every file', () => {
    write('client/works/a/index.html', 'page a');
    write('scores/works/a/score/page-1.svg', 'svg a1');
    write('scores/works/a/score/page-2.svg', 'svg a2');
    write('scores/works/b/score/page-1.svg', 'svg b1');
    write('scores/works/b/score/deep/x.mid', 'midi b');
    const moved = moveTree(path.join(root, 'scores'), path.join(root, 'client'));
    expect(moved).toBe(4);
    expect(read('client/works/a/index.html')).toBe('page a');
    expect(read('client/works/a/score/page-2.svg')).toBe('svg a2');
    expect(read('client/works/b/score/deep/x.mid')).toBe('midi b');
    const left = readdirSync(path.join(root, 'scores'), { recursive: true, withFileTypes: true });
    expect(left.filter((e) => !e.isDirectory())).toEqual([]);
  });

  it('replaces a hard-linked file with a new inode and leaves the other link as it was', () => {
    write('base/works/a/score/page-1.svg', 'old page');
    mkdirSync(path.join(root, 'client/works/a/score'), { recursive: true });
    linkSync(path.join(root, 'base/works/a/score/page-1.svg'), path.join(root, 'client/works/a/score/page-1.svg'));
    write('scores/works/a/score/page-1.svg', 'new page');
    moveTree(path.join(root, 'scores'), path.join(root, 'client'));
    expect(read('client/works/a/score/page-1.svg')).toBe('new page');
    expect(read('base/works/a/score/page-1.svg')).toBe('old page');
    expect(statSync(path.join(root, 'base/works/a/score/page-1.svg')).nlink).toBe(1);
  });
});
