/**
 * `npm test` runs this first (pretest), so every program the suite needs from Debian is there
 * before the first test starts, rather than installed by a test halfway through the run:
 *
 *   chromium  the site's browser tests (driven by playwright-core; never a downloaded browser)
 *   ffmpeg    the loudness tests compare the archive's own audio measurement with it; rendered audio is encoded with it
 *   fluidsynth, fluid-soundfont-gm   rendered audio (the synthesizer and its General MIDI SoundFont, MIT)
 *   nginx     the download-offload test serves through the build's nginx.conf
 *   redis-server  the shared state of several processes (sessions, limits) is tested against it
 *
 * When some are missing and we run as root with apt-get, one `apt-get install` installs them
 * (after `apt-get update`); otherwise it says how to install them, or how to skip the browser
 * tests knowingly (ARCHIVE_SKIP_BROWSER_TESTS=1). `--list` prints the packages and exits.
 */
import { DEBIAN_BROTLI_STATIC_MODULE } from '../api/site/nginx.ts';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

interface Tool {
  pkg: string;
  why: string;
  /** True when the program is there. */
  present(): boolean;
  /** Its version line, for the log. */
  version(): string;
}

const chromiumPath = process.env.ARCHIVE_CHROMIUM_PATH ?? '/usr/bin/chromium';
const ffmpegPath = process.env.ARCHIVE_FFMPEG_PATH ?? 'ffmpeg';
const fluidsynthPath = process.env.ARCHIVE_FLUIDSYNTH_PATH ?? 'fluidsynth';
const soundFontPath = process.env.ARCHIVE_AUDIO_SOUNDFONT ?? '/usr/share/sounds/sf2/FluidR3_GM.sf2';
const redisServerPath = 'redis-server';
const nginxCandidates = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];
const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';
/** A program found by running `cmd flag`; its version is the first line of that answer. */
const answering = (cmd: string, flag: string): Pick<Tool, 'present' | 'version'> => ({
  present: () => runs(cmd, [flag]),
  version: () => firstLine(execFileSync(cmd, [flag], { encoding: 'utf8' })),
});
/** A file a package installs; the path stands for its version. */
const installedFile = (file: string): Pick<Tool, 'present' | 'version'> => ({
  present: () => existsSync(file),
  version: () => file,
});

const TOOLS: Tool[] = [
  {
    pkg: 'chromium',
    why: "the site's browser tests",
    present: () => existsSync(chromiumPath),
    version: () => execFileSync(chromiumPath, ['--version'], { encoding: 'utf8' }).trim(),
  },
  {
    pkg: 'ffmpeg',
    why: 'the loudness tests (the reference measurement)',
    ...answering(ffmpegPath, '-version'),
  },
  {
    pkg: 'fluidsynth',
    why: 'rendered audio from the scores (the synthesizer)',
    ...answering(fluidsynthPath, '--version'),
  },
  {
    pkg: 'fluid-soundfont-gm',
    why: "rendered audio's General MIDI SoundFont (FluidR3_GM.sf2, MIT)",
    ...installedFile(soundFontPath),
  },
  {
    pkg: 'nginx',
    why: 'the download-offload test',
    present: () => nginxCandidates.some((p) => existsSync(p)) || runs('nginx', ['-v']),
    version: () => {
      const bin = nginxCandidates.find((p) => existsSync(p)) ?? 'nginx';
      const r = spawnSync(bin, ['-v'], { encoding: 'utf8' });
      return firstLine(`${r.stderr}${r.stdout}`);
    },
  },
  {
    pkg: 'redis-server',
    why: 'the shared-state tests (sessions and limits across processes, ARCHIVE_REDIS_URL)',
    ...answering(redisServerPath, '--version'),
  },
  {
    pkg: 'libnginx-mod-http-brotli-static',
    why: "nginx's brotli_static for the precompressed score pages",
    ...installedFile(DEBIAN_BROTLI_STATIC_MODULE),
  },
];

if (process.argv.includes('--list')) {
  for (const t of TOOLS) console.log(`${t.pkg}\t${t.why}`);
  process.exit(0);
}

const skipBrowser = process.env.ARCHIVE_SKIP_BROWSER_TESTS === '1';
if (skipBrowser) console.log('browser tests skipped (ARCHIVE_SKIP_BROWSER_TESTS=1)');
const needed = TOOLS.filter((t) => !(skipBrowser && t.pkg === 'chromium'));
let missing = needed.filter((t) => !t.present());

if (missing.length > 0 && process.getuid?.() === 0 && runs('apt-get', ['--version'])) {
  const pkgs = missing.map((t) => t.pkg);
  console.log(`missing: ${pkgs.join(', ')}; installing Debian's packages ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...pkgs]]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (r.status !== 0) {
      console.error(`apt-get ${args.join(' ')} failed (exit ${r.status}); install ${pkgs.join(' ')} by hand`);
      process.exit(1);
    }
  }
  missing = needed.filter((t) => !t.present());
}

if (missing.length > 0) {
  console.error(
    `The tests need Debian's ${missing.map((t) => `${t.pkg} (${t.why})`).join(', ')}. ` +
      `Install them (sudo apt-get install ${missing.map((t) => t.pkg).join(' ')})` +
      (missing.some((t) => t.pkg === 'chromium')
        ? ', point ARCHIVE_CHROMIUM_PATH at another Chromium, or set ARCHIVE_SKIP_BROWSER_TESTS=1 to skip the browser tests knowingly.'
        : '.'),
  );
  process.exit(1);
}
for (const t of needed) console.log(`${t.pkg}: ${t.version()}`);
