/**
 * The change a review proposes to the content repository, as a bounded unified diff:
 * the review branch `review/<code>` against where it left main (`git diff main...branch`), or,
 * once applied, the merge commit against its first parent. git's output is read up to
 * DIFF_MAX_BYTES and the process is stopped there, so a huge proposal costs a bounded read.
 * Used by the admin item (`review.diff`), the /admin/ desk and `npm run review -- show`.
 */
import { runCommand } from '../process/spawner.ts';
import { git } from '../site/content-repo.ts';
import { boundDiffText, DIFF_MAX_BYTES, parseNumstat, type DiffFile } from '../../src/domain/review/diff.ts';
import type { ReviewDiff } from '../../src/schemas/review.ts';

export type { DiffFile };

/** Read `git diff` output up to `maxBytes` (+1 to know it was cut), then stop git. */
async function boundedGit(repo: string, args: string[], maxBytes: number): Promise<string> {
  const r = await runCommand('git', ['-C', repo, ...args], { stdoutLimit: maxBytes, stderrLimit: 4000 });
  if (r.cut || r.code === 0) return r.stdout.toString('utf8');
  throw new Error(`git ${args[0]} failed (${r.code}): ${r.stderr.trim().split('\n')[0] ?? ''}`);
}

/**
 * The diff of one review, or null when there is nothing to show yet (no branch: the item was
 * never accepted, or its branch is not in this content repository).
 */
export async function reviewDiff(
  repo: string,
  review: { branch: string | null; appliedCommit: string | null },
  maxBytes = DIFF_MAX_BYTES,
): Promise<ReviewDiff | null> {
  const verify = (ref: string) => git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(() => '');
  let base: string;
  let head: string;
  if (review.appliedCommit) {
    head = await verify(review.appliedCommit);
    base = head ? await verify(`${review.appliedCommit}^1`) : '';
  } else if (review.branch) {
    head = await verify(`refs/heads/${review.branch}`);
    base = head ? await git(repo, ['merge-base', 'refs/heads/main', head]).catch(() => '') : '';
  } else {
    return null;
  }
  if (!head || !base) return null;
  const numstat = await git(repo, ['diff', '--numstat', '--no-renames', base, head]);
  const { files, more } = parseNumstat(numstat);
  const raw = await boundedGit(repo, ['diff', '--no-color', '--no-ext-diff', '--no-renames', base, head], maxBytes);
  const { text, truncated } = boundDiffText(raw, maxBytes);
  return { base, head, files, moreFiles: more, text, truncated, maxBytes };
}
