/**
 * The loader's order, known without a walk (`markSlugOrdered` in src/domain/catalog.ts): a catalog
 * loaded from its folders is marked as in slug order only when every work's slug is its folder's
 * name, and `inSlugOrder` (the patch of the profiles' usage lists rests on it) still walks an
 * array nobody vouched for.
 */
import { renameSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { knownSlugOrdered, loadCatalog, markSlugOrdered } from '../../src/domain/catalog.ts';
import { inSlugOrder } from '../../src/domain/records.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { fixtureCopies } from '../helpers/fixture-copies.ts';

const copies = fixtureCopies('pdma-slug-order-', path.join(PROJECT_ROOT, 'content'));
afterEach(() => copies.removeAll());

describe('the loader’s order', () => {
  it('a loaded catalog is marked as in slug order, and is', () => {
    const { catalog, messages } = loadCatalog(copies.copy());
    expect(messages).toEqual([]);
    expect(knownSlugOrdered(catalog.works)).toBe(true);
    const slugs = catalog.works.map((w) => w.content.slug);
    expect(slugs).toEqual([...slugs].sort());
    // A copy of the array is another array: nobody vouched for it.
    expect(knownSlugOrdered([...catalog.works])).toBe(false);
    expect(inSlugOrder([...catalog.works])).toBe(true);
  });

  it('a work whose slug is not its folder’s name leaves the catalog unmarked', () => {
    const dir = copies.copy();
    // The folder renamed so that it sorts first, its slug left: the folder order is no slug order.
    renameSync(path.join(dir, 'works', 'satie-gymnopedie-1'), path.join(dir, 'works', 'aaa-gymnopedie'));
    const { catalog, messages } = loadCatalog(dir);
    expect(messages.some((m) => m.pointer === '/slug' && m.message.includes('aaa-gymnopedie'))).toBe(true);
    expect(knownSlugOrdered(catalog.works)).toBe(false);
    expect(inSlugOrder(catalog.works)).toBe(false);
  });

  it('loading only some folders marks them too, and a mark is what inSlugOrder trusts', () => {
    const dir = copies.copy();
    const file = path.join(dir, 'works', 'satie-gymnopedie-1', 'index.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Gymnopédie No. 1 (edited)'));
    const { catalog } = loadCatalog(dir, { works: new Set(['satie-gymnopedie-1', 'bach-cello-suite-1-prelude']) });
    expect(catalog.works.map((w) => w.content.slug)).toEqual(['bach-cello-suite-1-prelude', 'satie-gymnopedie-1']);
    expect(knownSlugOrdered(catalog.works)).toBe(true);
    // The mark is the maker's word: inSlugOrder does not check it again.
    const reversed = markSlugOrdered([...catalog.works].reverse());
    expect(inSlugOrder(reversed)).toBe(true);
    expect(inSlugOrder([...catalog.works].reverse())).toBe(false);
  });
});
