/**
 * In-process exclusion between uploads and commits of one import: two uploads may not append to
 * the same staging file at once, and a commit may not rehash files that are still growing. The
 * service is single-writer per data folder (docs/decisions/0066-scale-path.md), so process memory is the right scope.
 */
export type Release = () => void;

export class LibraryLocks {
  private readonly uploads = new Map<string, Set<string>>();
  private readonly commits = new Set<string>();

  /** Start an upload to one file, or say why not. */
  tryUpload(importId: string, fileId: string): Release | 'file-busy' | 'commit-busy' {
    if (this.commits.has(importId)) return 'commit-busy';
    const files = this.uploads.get(importId) ?? new Set<string>();
    if (files.has(fileId)) return 'file-busy';
    files.add(fileId);
    this.uploads.set(importId, files);
    return () => {
      files.delete(fileId);
      if (files.size === 0 && this.uploads.get(importId) === files) this.uploads.delete(importId);
    };
  }

  /** Start a commit, or say why not. */
  tryCommit(importId: string): Release | 'uploads-busy' | 'commit-busy' {
    if (this.commits.has(importId)) return 'commit-busy';
    if ((this.uploads.get(importId)?.size ?? 0) > 0) return 'uploads-busy';
    this.commits.add(importId);
    return () => {
      this.commits.delete(importId);
    };
  }
}
