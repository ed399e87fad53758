/**
 * Crash points for the reliability tests: with ARCHIVE_LIBRARY_FAILPOINTS=<name>[,<name>] (parsed in
 * api/config.ts like every other variable) the process SIGKILLs itself when it reaches that point,
 * so a test can prove that a kill at exactly that moment leaves either the old state or the new
 * one. Empty in production (no effect).
 * Names: commit-after-mark, commit-after-adopt, commit-after-claim, commit-before-flip,
 * publish-before-merge, publish-after-merge.
 */
export type Failpoint = (name: string) => void;

export function failpoints(active: readonly string[]): Failpoint {
  const names = new Set(active);
  return (name) => {
    if (names.has(name)) process.kill(process.pid, 'SIGKILL');
  };
}
