import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog, prepareContentValidators } from '../../src/domain/catalog.ts';
import { validatorsCompiled } from '../../src/domain/validation.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

describe('prepareContentValidators', () => {
  it('compiles every validator the content loader uses, so loading compiles nothing more', () => {
    const before = validatorsCompiled();
    prepareContentValidators();
    const prepared = validatorsCompiled();
    // Works, profiles, instruments, genres (none compiled before in this file's fresh module state).
    expect(prepared - before).toBe(4);
    // The sample content has a file of every kind: works, profiles, instruments.json, genres.json.
    const { catalog, messages } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
    expect(messages).toEqual([]);
    expect(catalog.works.length).toBeGreaterThan(0);
    expect(catalog.profiles.length).toBeGreaterThan(0);
    expect(validatorsCompiled()).toBe(prepared);
    // A second call compiles nothing.
    prepareContentValidators();
    expect(validatorsCompiled()).toBe(prepared);
  });
});
