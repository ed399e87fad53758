/**
 * discardFolder (api/site/builds.ts): the folder a failed or stopped build left is out of the way
 * at once (its name is free) and deleted in the background, never by a synchronous delete in the
 * server's process.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discardFolder } from '../../api/site/builds.ts';

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tree(dir: string, files: number): void {
  for (let i = 0; i < files; i++) {
    mkdirSync(path.join(dir, `d${i % 10}`), { recursive: true });
    writeFileSync(path.join(dir, `d${i % 10}`, `f${i}.txt`), `file ${i}`);
  }
}

describe('discardFolder', () => {
  it('moves a folder of builds/ into builds-trash at once, then deletes it', async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'pdma-discard-'));
    const dir = path.join(root, 'builds', 'abc-inc');
    tree(dir, 200);
    const done = discardFolder(dir);
    // Out of builds/ before anything is deleted: builds/ holds nothing of it.
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(path.join(root, 'builds'))).toEqual([]);
    expect(readdirSync(path.join(root, 'builds-trash'))).toHaveLength(1);
    await done;
    expect(readdirSync(path.join(root, 'builds-trash'))).toEqual([]);
  });

  it('moves any other folder aside in its own parent, then deletes it; a missing folder is nothing to do', async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'pdma-discard-'));
    const dir = path.join(root, 'out');
    tree(dir, 50);
    writeFileSync(path.join(root, 'keep.txt'), 'kept');
    const done = discardFolder(dir);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(root).filter((n) => n.startsWith('.discard-out-'))).toHaveLength(1);
    await done;
    expect(readdirSync(root)).toEqual(['keep.txt']);
    await expect(discardFolder(path.join(root, 'never-made'))).resolves.toBeUndefined();
  });
});
