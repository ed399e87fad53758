/**
 * Crash points for the reliability tests: with ARCHIVE_LIBRARY_FAILPOINTS=<name>[,<name>] the
 * process SIGKILLs itself when it reaches that point, so a test can prove that a kill at exactly
 * that moment leaves either the old state or the new one. Unset in production (no effect).
 * Names: commit-after-mark, commit-after-adopt, commit-after-claim, commit-before-flip,
 * publish-before-merge, publish-after-merge.
 */
const active = new Set(
  (process.env.ARCHIVE_LIBRARY_FAILPOINTS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

export function failpoint(name: string): void {
  if (active.has(name)) process.kill(process.pid, 'SIGKILL');
}
