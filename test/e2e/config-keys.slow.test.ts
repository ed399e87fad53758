/**
 * A key that breaks the rules stops the start, naming the variable: `alice=secret` (a secret
 * under 8 characters) used to be taken silently as one whole key. Checked as an operator meets
 * it (`npm start`'s process) and through loadConfig for the accepted forms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../api/config.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { startService } from '../helpers/process.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-keys-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('key variables at start', () => {
  it('refuses ARCHIVE_ADMIN_KEYS=alice=secret, naming the variable and the rule', async () => {
    await expect(
      startService({ ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: 'alice=secret' }, 20_000),
    ).rejects.toThrow(
      /ARCHIVE_ADMIN_KEYS: entry 1 \(label "alice"\) has a secret of 6 characters; a secret needs at least 8/,
    );
  });

  it.each([
    ['ARCHIVE_LIBRARY_KEYS', 'lib=a-long-enough-secret,short'],
    ['ARCHIVE_CURATOR_KEYS', 'abc'],
    ['ARCHIVE_METRICS_KEYS', 'prometheus=1234567'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value }, PROJECT_ROOT)).toThrow(new RegExp(`^${name}: entry`));
  });

  it('accepts labeled keys, plain keys and base64 keys ending in "="', () => {
    const config = loadConfig(
      {
        ARCHIVE_ADMIN_KEYS: 'alice=a-long-secret, 0123456789abcdef, YWJjZGVmZ2hpams=, YWJjZGVmZ2g==',
      },
      PROJECT_ROOT,
    );
    expect(config.adminKeys).toEqual(['alice=a-long-secret', '0123456789abcdef', 'YWJjZGVmZ2hpams=', 'YWJjZGVmZ2g==']);
  });
});
