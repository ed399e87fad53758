/**
 * `npm test` runs this first: the site's browser tests drive Debian's Chromium (never a
 * downloaded browser). When it is missing and we run as root with apt-get, install it from
 * Debian's packages; otherwise say how to get it, or how to skip the browser tests knowingly.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromiumPath = process.env.ARCHIVE_CHROMIUM_PATH ?? '/usr/bin/chromium';

if (process.env.ARCHIVE_SKIP_BROWSER_TESTS === '1') {
  console.log('browser tests skipped (ARCHIVE_SKIP_BROWSER_TESTS=1)');
} else if (existsSync(chromiumPath)) {
  console.log(`browser: ${execFileSync(chromiumPath, ['--version'], { encoding: 'utf8' }).trim()}`);
} else if (process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0) {
  console.log(`${chromiumPath} is missing: installing Debian's chromium package ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (r.status !== 0) {
      console.error(
        `apt-get ${args.join(' ')} failed (exit ${r.status}); install chromium by hand or set ARCHIVE_SKIP_BROWSER_TESTS=1`,
      );
      process.exit(1);
    }
  }
} else {
  console.error(
    `The site's browser tests need Debian's Chromium at ${chromiumPath}. Install it (sudo apt-get install chromium), ` +
      'point ARCHIVE_CHROMIUM_PATH at another Chromium, or set ARCHIVE_SKIP_BROWSER_TESTS=1 to skip those tests knowingly.',
  );
  process.exit(1);
}
