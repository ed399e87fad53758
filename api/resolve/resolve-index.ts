/**
 * The resolve catalog of the build being served. Prepared at start-up and again on every swap
 * (so an applied contribution resolves as soon as its record is visible), and looked up by the
 * build's own catalog object, so a request never pairs one build's records with another's index.
 */
import type { SiteHandle, ServedBuild } from '../site/site-handle.ts';
import type { CatalogIndex } from '../catalog/catalog-index.ts';
import { buildResolveCatalog, type ResolveCatalog } from '../../src/domain/resolve/catalog.ts';

export class ResolveIndex {
  private readonly prepared = new WeakMap<CatalogIndex, ResolveCatalog>();
  private readonly handle: SiteHandle;

  constructor(handle: SiteHandle) {
    this.handle = handle;
    this.catalogFor(handle.current);
    handle.onSwap((build) => this.catalogFor(build));
  }

  /** The served build and its resolve catalog, consistent with each other. */
  current(): { build: ServedBuild; catalog: ResolveCatalog } {
    const build = this.handle.current;
    return { build, catalog: this.catalogFor(build) };
  }

  private catalogFor(build: ServedBuild): ResolveCatalog {
    let catalog = this.prepared.get(build.catalog);
    if (!catalog) {
      catalog = buildResolveCatalog(build.catalog.records.values(), build.catalog.profiles, build.catalog.instruments);
      this.prepared.set(build.catalog, catalog);
    }
    return catalog;
  }
}
