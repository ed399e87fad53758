import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';

describe('prepareContentValidators', () => {
  it('compiles every validator the content loader uses, so loading compiles nothing more', async () => {
    // Fresh module instances: another test file in this process may have compiled some already.
    vi.resetModules();
    const { loadCatalog, prepareContentValidators } = await import('../../src/domain/catalog.ts');
    const { validatorsCompiled } = await import('../../src/domain/validation.ts');
    const before = validatorsCompiled();
    expect(before).toBe(0);
    prepareContentValidators();
    const prepared = validatorsCompiled();
    // Works, people, profiles, instruments, genres.
    expect(prepared - before).toBe(5);
    // The sample content has a file of every kind: works, people, profiles, instruments.json, genres.json.
    const { catalog, messages } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
    expect(messages).toEqual([]);
    expect(catalog.works.length).toBeGreaterThan(0);
    expect(catalog.profiles.length).toBeGreaterThan(0);
    expect(catalog.people.length).toBeGreaterThan(0);
    expect(validatorsCompiled()).toBe(prepared);
    // A second call compiles nothing.
    prepareContentValidators();
    expect(validatorsCompiled()).toBe(prepared);
  });
});
