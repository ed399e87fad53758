/**
 * A file's identity: device, inode, size, modification and change times. A build folder's files
 * are written once (a later build writes new inodes, never into a base's), so a process that wrote
 * a file and kept what it holds in memory knows it again by this, and reads any other file from
 * disk (build/catalog-snapshot.ts, build/score-manifest.ts, the page keys of
 * src/lib/site/works-index.ts and browse-pages.ts).
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

export function fileIdentity(file: string): string | null {
  const st = statSync(file, { throwIfNoEntry: false, bigint: true });
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : null;
}

/**
 * What the last file written under one name held, kept for the next read of the same file
 * (known by its identity): `remember` after writing, `recall` before reading (or, for JSON,
 * `writeJson` and `readJson`, which do both).
 */
export class RememberedFile<T> {
  #kept: { identity: string; value: T } | null = null;

  remember(file: string, value: T): void {
    const identity = fileIdentity(file);
    this.#kept = identity === null ? null : { identity, value };
  }

  recall(file: string): T | undefined {
    if (this.#kept === null) return undefined;
    return fileIdentity(file) === this.#kept.identity ? this.#kept.value : undefined;
  }

  forget(): void {
    this.#kept = null;
  }

  /** Write `value` as one line of JSON into a new file (never into the one at `file`) and remember it. */
  writeJson(file: string, value: T): void {
    rmSync(file, { force: true });
    writeFileSync(file, `${JSON.stringify(value)}\n`);
    this.remember(file, value);
  }

  /** What `file` holds: as remembered, else read and checked by `check`; null when absent or not valid. */
  readJson(file: string, check: (raw: unknown) => T | null): T | null {
    const kept = this.recall(file);
    if (kept) return kept;
    try {
      return check(JSON.parse(readFileSync(file, 'utf8')) as unknown);
    } catch {
      return null;
    }
  }
}
