/**
 * Reading the library: the package listing with its filters, one package, and the lookup behind a
 * protected download. A package exists for readers only once its import is committed, so nothing
 * uncommitted is ever listed or served.
 */
import type { TracksQuery } from '../../src/schemas/library.ts';
import { TRACKS_DEFAULT_PAGE_SIZE } from '../../src/schemas/library.ts';
import type { StoredFile, StoredImport, StoredTrack } from '../../src/domain/library/model.ts';
import { compareTracks, trackMatches } from '../../src/domain/library/track-query.ts';
import { paginate, type PageSlice } from '../../src/domain/works-query.ts';
import type { LibraryStore } from './store.ts';
import type { LibraryImports } from './imports.ts';
import type { LibraryPublisher } from './publish.ts';

export interface Package {
  track: StoredTrack;
  rec: StoredImport;
}

export class LibraryTracks {
  private readonly store: LibraryStore;
  private readonly imports: LibraryImports;
  private readonly publisher: LibraryPublisher;

  constructor(store: LibraryStore, imports: LibraryImports, publisher: LibraryPublisher) {
    this.store = store;
    this.imports = imports;
    this.publisher = publisher;
  }

  /** One committed package, with any interrupted publication settled first. */
  async get(stableKey: string): Promise<Package | null> {
    const found = await this.imports.committedTrack(stableKey);
    if (!found) return null;
    return { track: await this.publisher.settle(found.track), rec: found.rec };
  }

  /**
   * Every committed package matching the query, sorted, one page of it. Reads every track
   * record: fine for the thousands of packages a production library holds; an index is the
   * scale path (docs/library.md).
   */
  async list(q: TracksQuery): Promise<PageSlice<Package>> {
    const matches: Package[] = [];
    for await (const track of this.store.tracks.all()) {
      const rec = await this.store.imports.get(track.importId);
      if (!rec || rec.status !== 'committed' || !trackMatches(rec.track, q)) continue;
      matches.push({ track, rec });
    }
    matches.sort((a, b) => compareTracks(a.rec.track, b.rec.track));
    return paginate(matches, q.page ?? 1, q.pageSize ?? TRACKS_DEFAULT_PAGE_SIZE);
  }

  /** A committed file and its package, for download. */
  async file(fileId: string): Promise<{ file: StoredFile; rec: StoredImport } | null> {
    const index = await this.store.files.get(fileId);
    if (!index) return null;
    const rec = await this.store.imports.get(index.importId);
    const file = rec?.files.find((f) => f.id === fileId);
    if (!rec || rec.status !== 'committed' || !file?.verified) return null;
    return { file, rec };
  }
}
