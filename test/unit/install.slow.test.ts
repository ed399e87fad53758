/**
 * What a newcomer's install rests on: `engines` states a minimum that every locked package
 * accepts (so npm prints no EBADENGINE warning there), the README states the same minimum, and
 * `npm test` runs the one script that installs every Debian program the suite needs first.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';

// semver is npm's own range logic; it is in node_modules through the dependencies.
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

const json = (file: string) => JSON.parse(readFileSync(path.join(PROJECT_ROOT, file), 'utf8'));
const pkg = json('package.json') as { engines: { node: string }; scripts: Record<string, string> };
const lock = json('package-lock.json') as {
  packages: Record<
    string,
    { engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] }
  >;
};

/** The lowest version of each alternative of a range ("^22.19.0 || ^24.0.0" -> 22.19.0, 24.0.0). */
function lowestOfEachBranch(range: string): string[] {
  return range.split('||').map((branch) => semver.minVersion(branch.trim())!.version);
}

describe('install', () => {
  it('engines.node is met by every locked package that runs here, at the lowest version of each branch', () => {
    const minimums = lowestOfEachBranch(pkg.engines.node);
    expect(minimums[0]).toBe('22.19.0');
    const refusals: string[] = [];
    for (const [where, entry] of Object.entries(lock.packages)) {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      if (!range || where === '') continue;
      // Native packages for other platforms are never installed here.
      if (entry.os && !entry.os.includes(process.platform)) continue;
      if (entry.cpu && !entry.cpu.includes(process.arch)) continue;
      for (const v of minimums) if (!semver.satisfies(v, range)) refusals.push(`${where} needs ${range}, not ${v}`);
    }
    expect(refusals).toEqual([]);
  });

  it('the lockfile records the same engines as package.json (npm install would rewrite it otherwise)', () => {
    expect((lock.packages[''] as { engines: { node: string } }).engines.node).toBe(pkg.engines.node);
  });

  it('a minimum below 22.19 would be refused by a locked dependency (the check can fail)', () => {
    const refused = Object.values(lock.packages).filter((e) => {
      const range = !Array.isArray(e.engines) ? e.engines?.node : undefined;
      return range !== undefined && !e.os && !semver.satisfies('22.18.0', range);
    });
    expect(refused.length).toBeGreaterThan(0);
  });

  it('the README states the minimum', () => {
    expect(readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8')).toContain('Needs Node.js 22.19 or later');
  });

  it('npm test first runs the script that installs the Debian tools the suite needs, each named in the README', () => {
    expect(pkg.scripts.pretest).toBe('node scripts/ensure-test-tools.ts');
    const list = execFileSync(
      process.execPath,
      [path.join(PROJECT_ROOT, 'scripts', 'ensure-test-tools.ts'), '--list'],
      {
        encoding: 'utf8',
      },
    );
    expect(
      list
        .split('\n')
        .map((l) => l.split('\t')[0])
        .filter(Boolean),
    ).toEqual([
      'chromium',
      'ffmpeg',
      'fluidsynth',
      'fluid-soundfont-gm',
      'nginx',
      'redis-server',
      'libnginx-mod-http-brotli-static',
    ]);
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    for (const p of [
      '`chromium`',
      '`ffmpeg`',
      '`fluidsynth`',
      '`fluid-soundfont-gm`',
      '`nginx`',
      '`redis-server`',
      '`libnginx-mod-http-brotli-static`',
    ])
      expect(readme).toContain(p);
  });
});
