/** Compressed MusicXML (.mxl) is read through its container; broken or oversized archives are refused with a reason. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MxlError, musicXmlFromMxl } from '../../src/domain/mxl.ts';
import { runTechnicalChecks } from '../../api/review/checks.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const XML = readFileSync(
  path.join(PROJECT_ROOT, 'content', 'works', 'satie-gymnopedie-1', 'gymnopedie-1-ambient-piano.musicxml'),
  'utf8',
);
const container = (p: string) => strToU8(`<container><rootfiles><rootfile full-path="${p}"/></rootfiles></container>`);

describe('compressed MusicXML', () => {
  it('reads the root file the container names, or the only score without a container', () => {
    expect(
      musicXmlFromMxl(
        zipSync({
          'META-INF/container.xml': container('s/score.xml'),
          'other.xml': strToU8('<x/>'),
          's/score.xml': strToU8(XML),
        }),
      ),
    ).toBe(XML);
    expect(musicXmlFromMxl(zipSync({ 'score.musicxml': strToU8(XML) }))).toBe(XML);
  });

  it('refuses what is not an .mxl, a container naming a missing file, and an archive without a score', () => {
    expect(() => musicXmlFromMxl(strToU8(XML))).toThrow(MxlError);
    expect(() => musicXmlFromMxl(zipSync({ 'META-INF/container.xml': container('missing.xml') }))).toThrow(
      /names missing.xml/,
    );
    expect(() => musicXmlFromMxl(zipSync({ 'readme.txt': strToU8('hi') }))).toThrow(/no MusicXML/);
  });

  it('refuses a score larger than the bound instead of inflating it', () => {
    const big = new Uint8Array(21 * 1024 * 1024).fill(32);
    expect(() => musicXmlFromMxl(zipSync({ 'score.xml': big }))).toThrow(/larger than/);
  });

  it('passes the technical checks like the uncompressed file (Verovio loads it)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-mxl-'));
    try {
      writeFileSync(
        path.join(dir, 'a.mxl'),
        zipSync({ 'META-INF/container.xml': container('score.xml'), 'score.xml': strToU8(XML) }),
      );
      const ok = await runTechnicalChecks('mxl', path.join(dir, 'a.mxl'));
      expect(ok).toMatchObject({
        kind: 'mxl',
        passed: true,
        summary: expect.stringMatching(/^Compressed MusicXML loads in Verovio/),
      });
      writeFileSync(path.join(dir, 'b.mxl'), 'not a zip');
      expect(await runTechnicalChecks('mxl', path.join(dir, 'b.mxl'))).toMatchObject({
        passed: false,
        summary: expect.stringContaining('not a zip'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
