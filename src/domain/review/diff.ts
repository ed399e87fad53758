/**
 * The proposed change of a review as a unified diff: pure helpers for the text git
 * prints. `api/review/diff.ts` runs git and reads at most a bounded number of bytes; these cut the
 * text at a line boundary, read `git diff --numstat`, and classify lines for display (the desk and
 * `npm run review -- show` use the same text).
 */

/** At most this many bytes of diff text are kept (a larger change is cut at a line end and marked truncated). */
export const DIFF_MAX_BYTES = 256 * 1024;
/** At most this many changed files are listed. */
export const DIFF_MAX_FILES = 500;

export interface DiffFile {
  path: string;
  /** Lines added and deleted; null for a binary file. */
  added: number | null;
  deleted: number | null;
}

/** Keep at most `maxBytes` of `text` (UTF-8), cut after the last whole line. */
export function boundDiffText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  const head = bytes.subarray(0, maxBytes);
  const cut = head.lastIndexOf(0x0a);
  return { text: head.subarray(0, cut < 0 ? 0 : cut + 1).toString('utf8'), truncated: true };
}

/** Parse `git diff --numstat -z`-less output: `added<TAB>deleted<TAB>path` per line ("-" for binary). */
export function parseNumstat(output: string, maxFiles = DIFF_MAX_FILES): { files: DiffFile[]; more: number } {
  const files: DiffFile[] = [];
  let more = 0;
  for (const line of output.split('\n')) {
    const m = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
    if (!m) continue;
    if (files.length >= maxFiles) {
      more++;
      continue;
    }
    files.push({ path: m[3]!, added: m[1] === '-' ? null : Number(m[1]), deleted: m[2] === '-' ? null : Number(m[2]) });
  }
  return { files, more };
}

export type DiffLineKind = 'file' | 'hunk' | 'add' | 'del' | 'context' | 'meta';

/** What a line of a unified diff is, for display. */
export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith('diff --git ')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+++ ') || line.startsWith('--- ')) return 'meta';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith(' ') || line === '') return 'context';
  return 'meta';
}
