/**
 * The content lint's rules for facts and conclusions (issue 54): a stored territory or composition
 * status must be what the recorded facts decide; a person's known date needs evidence; a work that
 * names a person with no record, or still embeds one, is refused with what to do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';
import { editFile, fixtureCopies, MINI_WORK, replaceInFile } from '../helpers/fixture-copies.ts';

const copies = fixtureCopies('pdma-rights-lint-');
afterEach(() => copies.removeAll());
const lint = (dir: string) => loadCatalog(dir, { asOfYear: 2026 }).messages.map(formatLintMessage);
const PERSON = 'people/petzold-christian.json';

describe('stored conclusions against the facts', () => {
  it('the mini fixture passes: facts only, conclusions derived', () => {
    expect(lint(copies.copy())).toEqual([]);
  });

  it('refuses a stored US status the facts contradict, naming the rule and what to do', () => {
    const dir = copies.copy();
    // "Published in 1826" in words, but no publication fact: the facts decide "unknown".
    editFile(dir, MINI_WORK, (t) => t.replace(/^firstPublished:\n(?: {2}.*\n)+/m, ''));
    replaceInFile(
      dir,
      MINI_WORK,
      '  edition: { status: original-contribution',
      '  territories:\n    US: { status: public-domain, note: "First published 1826." }\n  edition: { status: original-contribution',
    );
    expect(lint(dir)).toEqual([
      `${MINI_WORK}: /rights/territories/US/status: says "public-domain", but the recorded facts decide "unknown" (Unknown: the first publication year is not known (a published work is free 95 years after publication; the authors' death years alone do not decide it).) Territory statuses are derived from the facts: remove it, or correct the facts.`,
    ]);
  });

  it('refuses a stored composition status the facts contradict; a status that agrees passes', () => {
    const dir = copies.copy();
    replaceInFile(
      dir,
      MINI_WORK,
      '  edition: { status: original-contribution',
      '  composition: { status: unknown }\n  edition: { status: original-contribution',
    );
    expect(lint(dir)).toEqual([
      expect.stringMatching(
        /^works\/bach-minuet-in-g\/index\.md: \/rights\/composition\/status: says "unknown", but the recorded facts decide "public-domain"/,
      ),
    ]);
    replaceInFile(dir, MINI_WORK, 'composition: { status: unknown }', 'composition: { status: public-domain }');
    expect(lint(dir)).toEqual([]);
  });

  it("refuses a person's known date without evidence, and a date that is not a real date", () => {
    const dir = copies.copy();
    editFile(dir, PERSON, (t) => t.replace(/"evidence": \[[\s\S]*\]\n\}/, '"evidence": []\n}'));
    expect(lint(dir)).toEqual([
      `${PERSON}: /born: is recorded without evidence; add an entry to "evidence" (a page an editor can follow, and what it shows) that supports it, or write "unknown"`,
      `${PERSON}: /died: is recorded without evidence; add an entry to "evidence" (a page an editor can follow, and what it shows) that supports it, or write "unknown"`,
    ]);
    const other = copies.copy();
    replaceInFile(other, PERSON, '"died": "1733-07-25"', '"died": "1733-02-30"');
    expect(lint(other)).toEqual([`${PERSON}: /died: is not a real calendar date (got "1733-02-30")`]);
  });

  it('refuses a work naming a person with no record, and one that still embeds a person (with the migration to run)', () => {
    const dir = copies.copy();
    replaceInFile(dir, MINI_WORK, 'composer: petzold-christian', 'composer: petzold-kristian');
    expect(lint(dir)).toEqual([
      `${MINI_WORK}: /composer: names the person "petzold-kristian", who has no record (people/petzold-kristian.json does not exist)`,
    ]);
    const legacy = copies.copy();
    replaceInFile(
      legacy,
      MINI_WORK,
      'composer: petzold-christian',
      'composer:\n  name: Christian Petzold\n  sortName: Petzold, Christian\n  born: "1677"\n  died: "1733-07-25"',
    );
    expect(lint(legacy)).toEqual([
      `${MINI_WORK}: /composer: holds a person's facts in the work file; people are records now (people/<slug>.json) and a work names them by slug: run "npm run migrate:people -- <content folder>" once (docs/rights.md)`,
    ]);
  });

  it("refuses a work's exact first publication later than its composer's bound for every work", () => {
    const dir = copies.copy();
    replaceInFile(
      dir,
      PERSON,
      '"worksPublishedBy": null',
      '"worksPublishedBy": { "year": 1900, "evidence": [{ "url": "https://example.org/edition", "note": "test" }] }',
    );
    editFile(dir, MINI_WORK, (t) => t.replace(/bound: no-later-than\n {2}year: 1930/, 'bound: exact\n  year: 1925'));
    expect(lint(dir)).toEqual([
      `${MINI_WORK}: /firstPublished/year: says first published in 1925, but the composer's record (people/petzold-christian.json) says every work was published by 1900`,
    ]);
  });
});
