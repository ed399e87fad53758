/**
 * The content lint: each rule broken alone in a copy of a small valid repository, with the exact
 * message a contributor will read. The CLI and the build report the same lines.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editFile, fixtureCopies, MINI_FIXTURE, MINI_WORK } from '../helpers/fixture-copies.ts';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';

const FIXTURE = MINI_FIXTURE;
const WORK = MINI_WORK;
const copies = fixtureCopies('pdma-lint-');
const copyFixture = copies.copy;
const edit = editFile;

function lint(dir: string): string[] {
  return loadCatalog(dir).messages.map(formatLintMessage);
}

afterEach(() => copies.removeAll());

const PERSON = 'people/petzold-christian.json';

describe('content lint', () => {
  it('accepts the valid fixture', () => {
    expect(lint(copyFixture())).toEqual([]);
  });

  it('reports an unknown field with its path', () => {
    const dir = copyFixture();
    edit(dir, WORK, (t) => t.replace('period: Baroque', 'period: Baroque\ncolour: blue'));
    expect(lint(dir)).toEqual([`${WORK}: /colour: is not an allowed field here`]);
  });

  it('reports a bad date in words, in the person record that holds it', () => {
    const dir = copyFixture();
    edit(dir, PERSON, (t) => t.replace('"died": "1733-07-25"', '"died": "1733-02-30"'));
    expect(lint(dir)).toEqual([`${PERSON}: /died: is not a real calendar date (got "1733-02-30")`]);
  });

  it('accepts "unknown" life dates (a composer a corpus gives no dates for) and still checks a real one', () => {
    const dir = copyFixture();
    edit(dir, PERSON, (t) => t.replace('"born": "1677"', '"born": "unknown"').replace('"died": "1733-07-25"', '"died": "unknown"'));
    expect(lint(dir)).toEqual([]);
    edit(dir, PERSON, (t) => t.replace('"died": "unknown"', '"died": "unknwn"'));
    expect(lint(dir)).toEqual([`${PERSON}: /died: must be text matching ^([0-9]{4}(-[0-9]{2}-[0-9]{2})?|unknown)$ (got "unknwn")`]);
  });

  it('reports a timestamp that is not UTC', () => {
    const dir = copyFixture();
    edit(dir, WORK, (t) => t.replace('checkedAtUtc: "2026-11-01T00:00:00Z"', 'checkedAtUtc: "2026-11-01T00:00:00+02:00"'));
    expect(lint(dir)).toEqual([`${WORK}: /rights/checkedAtUtc: must be a UTC timestamp ending in "Z" (got "2026-11-01T00:00:00+02:00")`]);
  });

  it('reports duplicate slugs across works', () => {
    const dir = copyFixture();
    cpSync(path.join(dir, 'works/bach-minuet-in-g'), path.join(dir, 'works/copy-of-minuet'), { recursive: true });
    expect(lint(dir)).toEqual([
      'works/copy-of-minuet/index.md: /slug: duplicate slug "bach-minuet-in-g" (also in works/bach-minuet-in-g/index.md)',
      'works/copy-of-minuet/index.md: /slug: must equal the folder name "copy-of-minuet" (got "bach-minuet-in-g")',
    ]);
  });

  it('reports asset ids that are not unique within a work', () => {
    const dir = copyFixture();
    edit(dir, WORK, (t) => t.replace('      - id: 2\n', '      - id: 1\n'));
    expect(lint(dir)).toEqual([
      `${WORK}: /arrangements/0/assets/0/id: duplicate asset id 1 (also at /sourceAssets/0/id); asset ids must be unique within a work`,
    ]);
  });

  it('reports a profile definition that is not JSON', () => {
    const dir = copyFixture();
    writeFileSync(path.join(dir, 'profiles/calm-piano.json'), '{ "slug": "calm-piano", }');
    const messages = lint(dir);
    expect(messages[0]).toMatch(/^profiles\/calm-piano\.json: is not valid JSON: /);
    // The arrangement that used it now names an unknown profile.
    expect(messages[1]).toBe(`${WORK}: /arrangements/0/renderingProfileSlugs/0: names unknown profile "calm-piano" (no profiles/calm-piano.json)`);
    expect(messages).toHaveLength(2);
  });

  it('reports missing files, unknown instruments and a duration that disagrees', () => {
    const dir = copyFixture();
    edit(dir, WORK, (t) => t.replace('file: score.musicxml', 'file: missing.musicxml').replace('instruments: [piano]', 'instruments: [theremin]').replace('durationSeconds: 90', 'durationSeconds: 95'));
    expect(lint(dir)).toEqual([
      `${WORK}: /instruments/0: names unknown instrument "theremin" (not in instruments.json)`,
      `${WORK}: /sourceAssets/0/file: names a file that does not exist: works/bach-minuet-in-g/missing.musicxml`,
      `${WORK}: /arrangements/0/durationSeconds: disagrees with duration "1:30" (90 s)`,
    ]);
  });

  it('reports an enum violation with the allowed values', () => {
    const dir = copyFixture();
    edit(dir, WORK, (t) => t.replace('reviewState: technical-pass', 'reviewState: approved'));
    expect(lint(dir)).toEqual([
      `${WORK}: /sourceAssets/0/reviewState: must be one of: pending, technical-pass, manual-review-pending, human-reviewed, human-listening-approved, rights-review-required (got "approved")`,
    ]);
  });

  it('reports broken YAML front matter', () => {
    const dir = copyFixture();
    edit(dir, WORK, (t) => t.replace('title: Minuet in G major', 'title: [unclosed'));
    expect(lint(dir)[0]).toMatch(/^works\/bach-minuet-in-g\/index\.md: has front matter that is not valid YAML: /);
  });

  it('the CLI prints the same lines and exits 1, and the build refuses the content', () => {
    const dir = copyFixture();
    mkdirSync(path.join(dir, 'works', 'empty-folder'));
    const cli = spawnSync(process.execPath, ['scripts/lint-content.ts', dir], { encoding: 'utf8' });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('works/empty-folder: has no index.md');
    const build = spawnSync(process.execPath, ['scripts/build.ts', '--content', dir, '--out', path.join(dir, '..', `${path.basename(dir)}-out`), '--quiet'], {
      encoding: 'utf8',
    });
    expect(build.status).toBe(1);
    expect(build.stderr).toContain('works/empty-folder: has no index.md');
  });

  it('the CLI exits 0 on valid content', () => {
    const cli = spawnSync(process.execPath, ['scripts/lint-content.ts', FIXTURE], { encoding: 'utf8' });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain('content OK: 1 works, 1 profiles, 2 instruments');
  });
});
