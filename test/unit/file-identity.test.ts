/**
 * A file known again by its identity (src/lib/file-identity.ts): what a process wrote is recalled
 * for that file only, and not once the name holds another file, even with the same bytes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileIdentity, RememberedFile } from '../../src/lib/file-identity.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'file-identity-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a remembered file', () => {
  it('is recalled for the file written, not for another name or a file written again', () => {
    const file = path.join(dir, 'keys.json');
    const other = path.join(dir, 'other.json');
    writeFileSync(file, '{"a":1}\n');
    writeFileSync(other, '{"a":1}\n');
    const kept = new RememberedFile<{ a: number }>();
    const value = { a: 1 };
    expect(kept.recall(file)).toBeUndefined();
    kept.remember(file, value);
    expect(kept.recall(file)).toBe(value);
    expect(kept.recall(other)).toBeUndefined();
    expect(kept.recall(path.join(dir, 'missing.json'))).toBeUndefined();
    // The same bytes written again as a new file under the name: another identity.
    rmSync(file);
    writeFileSync(other + '.x', 'filler'); // the freed inode is not handed straight back
    writeFileSync(file, '{"a":1}\n');
    expect(kept.recall(file)).toBeUndefined();
    kept.remember(file, value);
    kept.forget();
    expect(kept.recall(file)).toBeUndefined();
  });

  it('has no identity when the file is missing', () => {
    expect(fileIdentity(path.join(dir, 'missing'))).toBeNull();
  });
});
