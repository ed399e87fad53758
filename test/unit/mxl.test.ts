/** Compressed MusicXML (.mxl) is read through its container; broken or oversized archives are refused with a reason. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MxlError, musicXmlFromMxl } from '../../src/domain/mxl.ts';
import { readZipEntry, zipDirectory } from '../../src/domain/zip-read.ts';
import {
  honestZipBomb,
  lyingZipBomb,
  manyEntriesZip,
  spacesDeflated,
  traversalMxl,
  zipArchive,
} from '../helpers/hostile-scores.ts';
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
    expect(() => musicXmlFromMxl(zipSync({ 'score.xml': big }))).toThrow(
      /score\.xml inflates to more than 20971520 bytes/,
    );
  });

  it('stops a lying archive (1,000 bytes declared, 2 GiB inside) once its output passes the cap, and says so', () => {
    const lying = lyingZipBomb();
    expect(lying.length).toBeLessThan(3 * 1024 * 1024);
    const refusal = () => musicXmlFromMxl(lying);
    expect(refusal).toThrow(MxlError);
    expect(refusal).toThrow(
      'The .mxl archive is refused: the zip entry score.xml inflates to more than 20971520 bytes (it declares 1000); it was stopped when it passed that limit',
    );
    expect(() => musicXmlFromMxl(honestZipBomb())).toThrow(
      /score\.xml inflates to more than 20971520 bytes \(it declares 2147483648\)/,
    );
    // Stopped at the cap, not inflated whole: it costs less CPU than inflating three caps' worth
    // of the same spaces honestly (the anchor, measured in the same run; CPU time, not wall time).
    const anchor = zipArchive([
      { name: 'score.xml', stored: spacesDeflated(60), method: 8, declaredSize: 60 * 1024 * 1024 },
    ]);
    const cpu = (f: () => unknown) => {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const t0 = process.cpuUsage();
        try {
          f();
        } catch {
          // refused: that is what is timed
        }
        const t = process.cpuUsage(t0);
        best = Math.min(best, t.user + t.system);
      }
      return best;
    };
    const full = cpu(() => readZipEntry(anchor, zipDirectory(anchor, 10)[0]!, 64 * 1024 * 1024));
    expect(cpu(refusal)).toBeLessThan(full);
  });

  it('refuses an archive of more entries than the cap, naming the cap, before reading any', () => {
    expect(() => musicXmlFromMxl(manyEntriesZip(1500, XML))).toThrow(
      'The .mxl archive is refused: the zip archive holds 1502 entries; at most 1000 are read, so it is refused unread',
    );
    // Under the cap, the score after the fillers is found.
    expect(musicXmlFromMxl(manyEntriesZip(900, XML))).toBe(XML);
  });

  it('reads an entry named outside the archive as a name only: nothing is written anywhere', () => {
    const escape = `../../../../tmp/pdma-traversal-${process.pid}.xml`;
    expect(musicXmlFromMxl(traversalMxl(XML, escape))).toBe(XML);
    expect(existsSync(`/tmp/pdma-traversal-${process.pid}.xml`)).toBe(false);
  });

  it('refuses damaged directories with a reason instead of reading past the end', () => {
    const good = zipSync({ 'score.xml': strToU8(XML) });
    expect(() => musicXmlFromMxl(good.subarray(0, good.length - 30))).toThrow(/cannot be read/);
    const cut = new Uint8Array(good);
    // The central directory's offset (end record + 16) pointed past the end.
    new DataView(cut.buffer).setUint32(cut.length - 6, 0x7fffffff, true);
    expect(() => musicXmlFromMxl(cut)).toThrow(/runs past the end/);
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
