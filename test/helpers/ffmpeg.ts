/**
 * Debian's ffmpeg for the tests that check the archive's own audio measurement against it.
 * When it is missing and the tests run as root with apt-get, it is installed the way
 * scripts/ensure-test-tools.ts (npm pretest) installs it (`apt-get install -y ffmpeg`, after `apt-get update`
 * when the first try fails); otherwise the caller gets an error that says how to install it.
 */
import { spawnSync } from 'node:child_process';

const FFMPEG = process.env.ARCHIVE_FFMPEG_PATH ?? 'ffmpeg';

function present(): boolean {
  return spawnSync(FFMPEG, ['-version'], { stdio: 'ignore' }).status === 0;
}

export function ensureFfmpeg(): string {
  if (present()) return FFMPEG;
  if (process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () =>
      spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'ffmpeg'], { stdio: 'ignore', env }).status ===
      0;
    if (!install()) {
      spawnSync('apt-get', ['update'], { stdio: 'ignore', env });
      install();
    }
    if (present()) return FFMPEG;
  }
  throw new Error(
    `Debian's ffmpeg is needed by the loudness oracle tests and is missing: install it (sudo apt-get install ffmpeg) or point ARCHIVE_FFMPEG_PATH at one.`,
  );
}

/** Run ffmpeg; throws with its error output on failure. */
export function ffmpeg(args: string[]): string {
  const r = spawnSync(ensureFfmpeg(), ['-hide_banner', '-nostdin', ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  return r.stderr;
}

export interface Ebur128Summary {
  integratedLufs: number;
  loudnessRangeLu: number;
  truePeakDbtp: number;
}

/** ffmpeg's ebur128 filter over a file: the summary it prints at the end. */
export function ebur128(file: string): Ebur128Summary {
  const log = ffmpeg(['-nostats', '-i', file, '-af', 'ebur128=peak=true:framelog=verbose', '-f', 'null', '-']);
  const summary = log.slice(log.lastIndexOf('Summary:'));
  const num = (re: RegExp) => {
    const m = re.exec(summary);
    if (!m) throw new Error(`no ${re} in ffmpeg's ebur128 summary:\n${summary}`);
    return Number(m[1]);
  };
  return {
    integratedLufs: num(/I:\s+(-?[\d.]+) LUFS/),
    loudnessRangeLu: num(/LRA:\s+(-?[\d.]+) LU/),
    truePeakDbtp: num(/Peak:\s+(-?[\d.]+|-inf) dBFS/),
  };
}
