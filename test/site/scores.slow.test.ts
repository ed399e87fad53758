/**
 * Build-time score rendering: a MusicXML file Verovio cannot read does not stop the build; its
 * work page says the preview could not be made and still links the file. The guard that drops
 * an engraved image with active content tells escaped text from real tags.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { looksActive } from '../../src/lib/site/render-scores.ts';

describe('engraved images with active content are refused', () => {
  it('passes escaped text and ordinary Verovio markup', () => {
    expect(
      looksActive(
        '<svg width="840px"><desc>Engraved by Verovio</desc><use xlink:href="#E050-abc" x="1"/><text>&lt;script&gt;alert(1)&lt;/script&gt; onload=x</text></svg>',
      ),
    ).toBe(false);
  });
  it('refuses script elements, handlers and script URLs', () => {
    expect(looksActive('<svg><script>alert(1)</script></svg>')).toBe(true);
    expect(looksActive('<svg><g onclick="alert(1)"></g></svg>')).toBe(true);
    expect(looksActive('<svg><foreignObject><div/></foreignObject></svg>')).toBe(true);
    expect(looksActive('<svg><a xlink:href="javascript:alert(1)">x</a></svg>')).toBe(true);
  });
});

describe('a score that fails to render', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-score-fail-'));
  const out = path.join(root, 'build');
  let t: TestApp;
  let buildOutput = '';

  beforeAll(async () => {
    const content = path.join(root, 'content');
    cpSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'), content, { recursive: true });
    writeFileSync(
      path.join(content, 'works', 'bach-minuet-in-g', 'score.musicxml'),
      'This is not XML, although it mentions <score-partwise> and <note>.',
    );
    const build = spawnSync(
      process.execPath,
      ['scripts/build.ts', '--content', content, '--out', out, '--base-url', 'https://scores.example.test', '--quiet'],
      {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
      },
    );
    buildOutput = `${build.stdout}${build.stderr}`;
    expect(build.status, buildOutput).toBe(0);
    t = await openApp(out);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('leaves the build complete and the page explains, linking the file', async () => {
    expect(existsSync(path.join(out, 'build.json'))).toBe(true);
    const res = await t.request({ url: '/works/bach-minuet-in-g/' });
    expect(res.statusCode).toBe(200);
    const html = res.body;
    expect(html).toContain('data-score-missing="failed"');
    expect(html).toMatch(
      /No score preview for “Opening phrase \(MusicXML 4\.0\)”\.<\/strong> The build could not engrave it: /,
    );
    expect(html).toContain('href="https://scores.example.test/works/bach-minuet-in-g/files/score.musicxml"');
    expect(html).not.toContain('<figure class="score"');
    expect((await t.request({ url: '/works/bach-minuet-in-g/score/1/page-1.svg' })).statusCode).toBe(404);
  });
});
