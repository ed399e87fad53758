/**
 * The score manifest an incremental build keeps (build/score-manifest.ts): the base's
 * kept whole, file and all, only when the scope's entries are exactly the base's; the last one
 * written remembered for the next build of the process, and only while the file is the one written.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  forgetScoreManifest,
  manifestOver,
  readScoreManifest,
  writeScoreManifest,
  type ManifestFile,
} from '../../build/score-manifest.ts';
import { SCORES_MANIFEST, serializeScoreManifest } from '../../build/types.ts';
import type { ScoreManifest, ScoreRendering } from '../../src/lib/site/scores.ts';

// Entries told apart by their reason (the manifest's entries are compared as JSON, whatever their status).
const rendered = (n: number): ScoreRendering => ({ status: 'failed', reason: `entry ${n}` });

function baseOf(scores: ScoreManifest['scores']): ManifestFile {
  const manifest = { scores };
  return { manifest, text: serializeScoreManifest(manifest), file: '/nowhere', fromMemory: false };
}

const base = baseOf({ 'a/1': rendered(1), 'a/2': rendered(2), 'ab/1': rendered(3), 'b/1': rendered(4) });

describe('a build’s manifest over its base', () => {
  it('is the base’s own object and text when the scope’s entries are the base’s', () => {
    const got = manifestOver(base, ['a'], { 'a/1': rendered(1), 'a/2': rendered(2) });
    expect(got.unchanged).toBe(true);
    expect(got.manifest).toBe(base.manifest);
    expect(got.text).toBe(base.text);
  });

  it('is made again when an entry of the scope changed, went or came', () => {
    const cases: Array<[string[], ScoreManifest['scores']]> = [
      [['a'], { 'a/1': rendered(1), 'a/2': rendered(9) }],
      [['a'], { 'a/1': rendered(1) }],
      [['a'], { 'a/1': rendered(1), 'a/2': rendered(2), 'a/3': rendered(5) }],
      [['c'], { 'c/1': rendered(1) }],
      [['a', 'b'], { 'a/1': rendered(1), 'a/2': rendered(2) }],
    ];
    for (const [scope, fresh] of cases) {
      const got = manifestOver(base, scope, fresh);
      expect(got.unchanged, JSON.stringify(fresh)).toBe(false);
      const expected: ScoreManifest = { scores: {} };
      for (const [key, value] of Object.entries(base.manifest.scores))
        if (!scope.includes(key.slice(0, key.indexOf('/')))) expected.scores[key] = value;
      Object.assign(expected.scores, fresh);
      expect(got.manifest).toEqual(expected);
      expect(got.text).toBe(serializeScoreManifest(expected));
    }
  });

  it('over a chain of builds, each made from the one before (its kept parts), is the fresh serialization', () => {
    let current = base;
    const expected: ScoreManifest = { scores: { ...base.manifest.scores } };
    const steps: Array<[string[], ScoreManifest['scores']]> = [
      [['a'], { 'a/1': rendered(11), 'a/3': rendered(12) }],
      [['c'], { 'c/1': rendered(13), 'c/0': rendered(14) }],
      [['a'], { 'a/2': rendered(15) }],
      [['ab', 'c'], {}],
      [['a', 'b'], { 'a/1': rendered(16), 'b/2': rendered(17), 'b/1': rendered(18) }],
    ];
    for (const [scope, fresh] of steps) {
      const got = manifestOver(current, scope, fresh);
      for (const key of Object.keys(expected.scores))
        if (scope.includes(key.slice(0, key.indexOf('/')))) delete expected.scores[key];
      Object.assign(expected.scores, fresh);
      expect(got.manifest).toEqual(expected);
      expect(got.text).toBe(serializeScoreManifest(expected));
      // The base is left as it was.
      expect(current.text).toBe(serializeScoreManifest(current.manifest));
      current = { manifest: got.manifest, text: got.text, file: '/nowhere', fromMemory: true };
    }
    // The last scope's entries compare as unchanged against the chain's end.
    expect(manifestOver(current, ['b'], { 'b/1': rendered(18), 'b/2': rendered(17) }).unchanged).toBe(true);
  });

  it('is the base’s for a scope without scores before or now (a new work without one)', () => {
    expect(manifestOver(base, ['new-work'], {}).unchanged).toBe(true);
  });

  it('without a base is the fresh entries', () => {
    const got = manifestOver(null, ['a'], { 'a/1': rendered(1) });
    expect(got.unchanged).toBe(false);
    expect(got.text).toBe(serializeScoreManifest({ scores: { 'a/1': rendered(1) } }));
  });
});

describe('the manifest file', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'score-manifest-'));
    forgetScoreManifest();
  });
  afterEach(() => {
    forgetScoreManifest();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is remembered once written, and read again once the file is another', () => {
    const one = path.join(dir, 'one');
    const manifest = base.manifest;
    mkdirSync(one);
    writeScoreManifest(one, manifest, base.text);
    expect(readFileSync(path.join(one, SCORES_MANIFEST), 'utf8')).toBe(base.text);
    const again = readScoreManifest(one);
    expect(again.fromMemory).toBe(true);
    expect(again.manifest).toBe(manifest);
    // Another file under the name: read from disk.
    const other = serializeScoreManifest({ scores: { 'z/1': rendered(7) } });
    rmSync(path.join(one, SCORES_MANIFEST));
    writeFileSync(path.join(one, SCORES_MANIFEST), other);
    const read = readScoreManifest(one);
    expect(read.fromMemory).toBe(false);
    expect(read.text).toBe(other);
    expect(read.manifest).toEqual({ scores: { 'z/1': rendered(7) } });
  });

  it('is linked from the base’s when it is the base’s, and written as a new inode otherwise', () => {
    const one = path.join(dir, 'one');
    const two = path.join(dir, 'two');
    const three = path.join(dir, 'three');
    for (const d of [one, two, three]) mkdirSync(d);
    writeScoreManifest(one, base.manifest, base.text);
    const baseFile = path.join(one, SCORES_MANIFEST);
    writeScoreManifest(two, base.manifest, base.text, baseFile);
    expect(statSync(path.join(two, SCORES_MANIFEST)).ino).toBe(statSync(baseFile).ino);
    expect(readScoreManifest(two).fromMemory).toBe(true);
    writeScoreManifest(three, base.manifest, base.text);
    expect(statSync(path.join(three, SCORES_MANIFEST)).ino).not.toBe(statSync(baseFile).ino);
    expect(readFileSync(path.join(three, SCORES_MANIFEST), 'utf8')).toBe(base.text);
  });
});
