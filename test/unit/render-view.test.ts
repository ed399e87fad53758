/**
 * The render view (src/lib/site/render-view.ts): an unpacked entry opens only for the entry
 * fingerprint it was made from and while each of its files keeps its fingerprint; a replaced
 * view leaves links made from the old one intact; a file is placed as a hard link.
 */
import { linkSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { placeViewedFile, RenderView } from '../../src/lib/site/render-view.ts';
import type { EngraveOutput } from '../../src/lib/site/engrave.ts';

const KEY = 'ab'.padEnd(64, 'c');
let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));
const fresh = () => (root = mkdtempSync(path.join(os.tmpdir(), 'pdma-render-view-')));

const output = (text = '<svg/>'): EngraveOutput => ({
  rendering: { status: 'failed', reason: 'stand-in rendering for the view test' },
  files: [
    { name: 'page-1.svg', bytes: Buffer.from(text) },
    { name: 'score.mid', bytes: Buffer.from([0x4d, 0x54, 0x68, 0x64]) },
  ],
});

describe('render view', () => {
  it('opens what it stored, for the same entry fingerprint only', () => {
    const view = new RenderView(fresh());
    const stored = view.store(KEY, 'engraving', 'entry-1', output());
    expect(stored.files.map((f) => f.name)).toEqual(['page-1.svg', 'score.mid']);
    const opened = view.open(KEY, 'engraving', 'entry-1')!;
    expect(opened.rendering).toEqual(output().rendering);
    expect(opened.files).toEqual(stored.files);
    expect(readFileSync(opened.files[0]!.file, 'utf8')).toBe('<svg/>');
    expect(view.open(KEY, 'engraving', 'entry-2')).toBeNull();
    expect(view.open(KEY, 'pdf', 'entry-1')).toBeNull();
    expect(view.open('cd'.padEnd(64, 'e'), 'engraving', 'entry-1')).toBeNull();
  });

  it('refuses a view whose file was written in place, removed or replaced', () => {
    const view = new RenderView(fresh());
    const file = view.store(KEY, 'engraving', 'e', output()).files[0]!.file;
    writeFileSync(file, '<svg>changed</svg>');
    expect(view.open(KEY, 'engraving', 'e')).toBeNull();

    view.store(KEY, 'engraving', 'e', output());
    unlinkSync(file);
    expect(view.open(KEY, 'engraving', 'e')).toBeNull();

    view.store(KEY, 'engraving', 'e', output());
    const other = path.join(root, 'other.svg');
    writeFileSync(other, '<svg/>');
    unlinkSync(file);
    linkSync(other, file);
    expect(view.open(KEY, 'engraving', 'e')).toBeNull();
  });

  it('refuses a damaged or foreign stamp', () => {
    const view = new RenderView(fresh());
    view.store(KEY, 'engraving', 'e', output());
    const stamp = path.join(view.folder(KEY, 'engraving'), 'view.json');
    writeFileSync(stamp, '{"format":"pdma-render-view/1"');
    expect(view.open(KEY, 'engraving', 'e')).toBeNull();
    const good = JSON.parse(
      JSON.stringify({ format: 'pdma-render-view/1', key: KEY, entry: 'e', rendering: output().rendering }),
    );
    writeFileSync(stamp, JSON.stringify({ ...good, files: [{ name: '../escape', fingerprint: 'x' }] }));
    expect(view.open(KEY, 'engraving', 'e')).toBeNull();
    expect(() =>
      view.store(KEY, 'engraving', 'e', { ...output(), files: [{ name: '../x', bytes: Buffer.from('') }] }),
    ).toThrow(/not a view file name/);
  });

  it('a new view replaces the old one; a link made from the old one keeps its bytes', () => {
    const view = new RenderView(fresh());
    const old = view.store(KEY, 'engraving', 'e1', output('<svg>one</svg>')).files[0]!.file;
    const served = path.join(root, 'served.svg');
    expect(placeViewedFile(old, served)).toBe(true);
    expect(statSync(served).ino).toBe(statSync(old).ino);
    view.store(KEY, 'engraving', 'e2', output('<svg>two</svg>'));
    expect(view.open(KEY, 'engraving', 'e1')).toBeNull();
    expect(readFileSync(view.open(KEY, 'engraving', 'e2')!.files[0]!.file, 'utf8')).toBe('<svg>two</svg>');
    expect(readFileSync(served, 'utf8')).toBe('<svg>one</svg>');
  });

  it('placing replaces what is at the target', () => {
    const view = new RenderView(fresh());
    const file = view.store(KEY, 'engraving', 'e', output()).files[0]!.file;
    const target = path.join(root, 'target.svg');
    writeFileSync(target, 'stale');
    placeViewedFile(file, target);
    expect(readFileSync(target, 'utf8')).toBe('<svg/>');
  });
});
