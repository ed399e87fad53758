/**
 * The people of the site (people/<slug>.json), each with the works that name them, grouped once per
 * build from the site's works (src/lib/site-data.ts): person pages, their JSON records, the people
 * listing and llms.txt read here. A person's record is made on first use.
 */
import type { LoadedPerson } from '../../domain/catalog.ts';
import { buildPersonRecord, peopleOfWork } from '../../domain/people.ts';
import type { PersonRecord, PersonRole } from '../../schemas/person.ts';
import { site, type SiteData, type SiteWork } from '../site-data.ts';
import { fold } from '../../domain/text.ts';

export interface SitePerson {
  loaded: LoadedPerson;
  /** The works that name the person, with the role, in title order. */
  works: Array<{ work: SiteWork; role: PersonRole }>;
  readonly record: PersonRecord;
}

export interface SitePeople {
  /** Every person, by folded sort name (then slug). */
  list: SitePerson[];
  bySlug: Map<string, SitePerson>;
}

const PEOPLE = Symbol.for('pdma.build.people');
const shelf = globalThis as { [PEOPLE]?: WeakMap<SiteData, SitePeople> };

function make(data: SiteData): SitePeople {
  const worksOf = new Map<string, Array<{ work: SiteWork; role: PersonRole }>>();
  for (const work of data.works)
    for (const p of peopleOfWork(work.loaded.content)) {
      let list = worksOf.get(p.slug);
      if (list === undefined) worksOf.set(p.slug, (list = []));
      list.push({ work, role: p.role });
    }
  const list = data.catalog.people.map((loaded): SitePerson => {
    const works = (worksOf.get(loaded.content.slug) ?? []).sort(
      (a, b) =>
        fold(a.work.entry.title).localeCompare(fold(b.work.entry.title)) ||
        a.work.entry.slug.localeCompare(b.work.entry.slug),
    );
    let record: PersonRecord | undefined;
    return {
      loaded,
      works,
      get record() {
        return (record ??= buildPersonRecord(
          loaded.content,
          works.map((w) => ({ slug: w.work.entry.slug, title: w.work.entry.title, role: w.role })),
          data.baseUrl,
        ));
      },
    };
  });
  list.sort(
    (a, b) =>
      fold(a.loaded.content.sortName).localeCompare(fold(b.loaded.content.sortName)) ||
      a.loaded.content.slug.localeCompare(b.loaded.content.slug),
  );
  return { list, bySlug: new Map(list.map((p) => [p.loaded.content.slug, p])) };
}

/** The site's people, once per build. */
export function people(): SitePeople {
  const data = site();
  const cache = (shelf[PEOPLE] ??= new WeakMap());
  let kept = cache.get(data);
  if (kept === undefined) cache.set(data, (kept = make(data)));
  return kept;
}

/** A person by slug, for a page whose props carry only the slug. */
export function sitePerson(slug: string): SitePerson {
  const p = people().bySlug.get(slug);
  if (!p) throw new Error(`no person "${slug}" in the site data`);
  return p;
}
