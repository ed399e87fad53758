/** The settings table is the one list of variables: README's table is generated from it, and nothing else under api/ reads the environment. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../api/config-table.ts';
import { withSettingsTable } from '../../scripts/docs-settings.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = path.join(dir, name);
    return statSync(abs).isDirectory() ? filesUnder(abs) : [abs];
  });
}

describe('the settings table', () => {
  it("README's configuration table is the one generated from api/config-table.ts (npm run docs:settings)", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(withSettingsTable(readme)).toBe(readme);
  });

  it('names every variable api/config.ts reads, once', () => {
    const names = SETTINGS.flatMap((s) => s.names);
    expect(new Set(names).size).toBe(names.length);
    const source = readFileSync(path.join(ROOT, 'api', 'config.ts'), 'utf8');
    const read = [...source.matchAll(/settingValue\(env, '([A-Z0-9_]+)'\)/g)].map((m) => m[1]);
    expect(read.length).toBeGreaterThan(30);
    for (const name of read) expect(names).toContain(name);
  });

  it('nothing under api/ reads process.env (configuration comes from loadConfig)', () => {
    // Handing the inherited environment on to a child process (`...process.env`) reads no setting;
    // any other use of process.env does.
    const readers = filesUnder(path.join(ROOT, 'api')).filter((f) =>
      readFileSync(f, 'utf8').replaceAll('...process.env,', '').includes('process.env'),
    );
    expect(readers.map((f) => path.relative(ROOT, f))).toEqual([]);
  });
});
