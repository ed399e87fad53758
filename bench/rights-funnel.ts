/**
 * The rights funnel of whole corpora (issue 54): what `npm run import` would bring in, and how much
 * of it the recorded facts decide.
 *
 *   node bench/rights-funnel.ts [--as-of YEAR] [--json] [corpus folder ...]
 *
 * Default corpora: ../shared/corpora/openscore-lieder and openscore-string-quartets. Each score is
 * planned exactly as the importer plans it (src/domain/corpus/plan.ts), and its rights are
 * derived by the archive's one module (src/domain/territory-rights.ts) at three stages:
 *
 *   1. imported: the corpus's own facts (composers' dates from composers.tsv; no lyricist dates,
 *      no publication years);
 *   2. people recorded: plus the person facts below, each stated by the page cited (the lyricists
 *      and the composer the acceptance run records; nothing else is assumed);
 *   3. publication recorded: plus "first published no later than 1910" for the songs the
 *      acceptance run records it for, from their scans (no other work has a publication fact).
 *
 * For each stage: works planned, skipped (protected), public domain per territory, composition
 * cleared (free in the US, the EU and Canada: its score is released), held, and the held works per
 * missing fact; and the people whose missing dates hold the most works (what to source next).
 * Pure computation: no server, nothing written.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { planWork, type ItemPlan } from '../src/domain/corpus/plan.ts';
import { folderSource, isOpenScoreFolder, openScoreSource } from '../scripts/lib/import-sources.ts';
import { stagedFileUrl } from '../api/imports/staged-files.ts';
import { territoryRights, yearOf, type AuthorFact, type PublicationFact } from '../src/domain/territory-rights.ts';
import type { MusicContributionInput } from '../src/schemas/contribution.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORPORA = ['openscore-lieder', 'openscore-string-quartets'].map((c) =>
  path.join(ROOT, '..', 'shared', 'corpora', c),
);

/** Person facts with the page that states each (the acceptance run records the same). */
export const SOURCED_DEATHS: Record<string, { died: number; url: string }> = {
  'Roger Quilter': { died: 1953, url: 'https://en.wikipedia.org/wiki/Roger_Quilter' },
  'Robert Herrick': { died: 1674, url: 'https://kids.britannica.com/students/article/Robert-Herrick/274861' },
  'August Heinrich Hoffmann von Fallersleben': {
    died: 1874,
    url: 'https://www.wissen-digital.de/August_Heinrich_Hoffmann_von_Fallersleben',
  },
  'Heinrich Heine': { died: 1856, url: 'https://www.schumann-portal.de/heinrich-heine.html' },
  'Nikolaus Lenau': { died: 1850, url: 'https://geschichtewiki.wien.gv.at/Nikolaus_Lenau' },
  'Friedrich Rückert': { died: 1866, url: 'https://www.wissen.de/lexikon/rueckert-friedrich' },
  'Georg Friedrich Daumer': { died: 1875, url: 'https://wuerzburgwiki.de/wiki/Georg_Friedrich_Daumer' },
  'Otto Roquette': { died: 1896, url: 'https://www.darmstadt-stadtlexikon.de/de/r/roquette-otto.html' },
  'Joseph von Eichendorff': { died: 1857, url: 'https://deutschelyrik.de/eichendorff.html' },
  'Johann Wolfgang von Goethe': {
    died: 1832,
    url: 'https://djaco.bildung.hessen.de/termine/gedenktag/maerz/hist_03-22-1832_0073.html',
  },
};

/** The songs the acceptance run records "first published no later than 1910" for (their scans). */
const PUBLISHED_BY_1910 = new Set([
  'lc321919',
  'lc4904021',
  'lc4919798',
  'lc4919879',
  'lc4920211',
  'lc4926375',
  'lc4928153',
  'lc4928198',
  'lc4945676',
]);

interface Planned {
  itemKey: string;
  composer: { name: string; died: string };
  lyricist: string | null;
  hasLyrics: boolean;
}

/** A plain folder is read as `npm run import` reads it without options. */
const FOLDER_OPTIONS = {
  batchId: null,
  title: null,
  sourceUrl: null,
  instruments: [],
  currentYear: new Date().getUTCFullYear(),
};

async function planCorpus(folder: string, asOfYear: number) {
  // Read and planned exactly as `npm run import` reads and plans it (scripts/lib/import-sources.ts,
  // src/domain/corpus/plan.ts).
  const walk = await isOpenScoreFolder(folder);
  const source = walk ? await openScoreSource(folder, walk) : await folderSource(folder, FOLDER_OPTIONS);
  const planned: Planned[] = [];
  const skipped: string[] = [];
  for (const w of source.works) {
    const work = await w.load();
    const plan: ItemPlan =
      'skip' in work
        ? { kind: 'skip', itemKey: work.itemKey, title: work.title, composer: work.composer, reason: work.skip }
        : planWork(work, { asOfYear, stagedUrl: stagedFileUrl });
    if (plan.kind !== 'submit') {
      skipped.push(`${plan.itemKey}: ${plan.reason}`);
      continue;
    }
    const body = (plan.body as MusicContributionInput).work!;
    planned.push({
      itemKey: plan.itemKey,
      composer: { name: body.composerFacts?.name ?? plan.composer, died: body.composerFacts?.died ?? 'unknown' },
      lyricist: body.lyricist?.name ?? null,
      hasLyrics: body.hasLyrics === true || body.lyricist != null,
    });
  }
  return { corpus: path.basename(folder), planned, skipped };
}

type Stage = 'imported' | 'people recorded' | 'publication recorded';

function derive(p: Planned, stage: Stage, asOfYear: number) {
  const died = (name: string | null, recorded: string): number | null => {
    const own = yearOf(recorded);
    if (own !== null) return own;
    return stage !== 'imported' && name && SOURCED_DEATHS[name] ? SOURCED_DEATHS[name].died : null;
  };
  const authors: AuthorFact[] = [
    { role: 'composer', name: p.composer.name, died: died(p.composer.name, p.composer.died) },
  ];
  if (p.hasLyrics) authors.push({ role: 'lyricist', name: p.lyricist, died: died(p.lyricist, 'unknown') });
  const firstPublished: PublicationFact =
    stage === 'publication recorded' && PUBLISHED_BY_1910.has(p.itemKey) ? { noLaterThan: 1910 } : null;
  return territoryRights({ authors, firstPublished, asOfYear });
}

/** "the lyricist's death year (Heinrich Heine)" -> "the lyricist's death year". */
const factKind = (f: string) => f.replace(/\s*\(.*\)$/, '');
/** The person a missing fact names: everything inside its first parenthesis. */
const personOf = (f: string) => /^[^(]*\((.*)\)$/.exec(f)?.[1] ?? null;

function funnel(planned: Planned[], stage: Stage, asOfYear: number) {
  const pd = { US: 0, EU: 0, CA: 0 };
  let cleared = 0;
  const heldBy = new Map<string, number>();
  const byPerson = new Map<string, number>();
  for (const p of planned) {
    const r = derive(p, stage, asOfYear);
    for (const t of ['US', 'EU', 'CA'] as const) if (r[t].status === 'public-domain') pd[t]++;
    if (r.composition === 'public-domain') {
      cleared++;
      continue;
    }
    for (const f of r.missingFacts) {
      heldBy.set(factKind(f), (heldBy.get(factKind(f)) ?? 0) + 1);
      const who = personOf(f);
      if (who && factKind(f) !== 'the lyricist') byPerson.set(who, (byPerson.get(who) ?? 0) + 1);
    }
  }
  return {
    stage,
    planned: planned.length,
    publicDomain: pd,
    cleared,
    held: planned.length - cleared,
    heldByMissingFact: Object.fromEntries([...heldBy].sort((a, b) => b[1] - a[1])),
    peopleHoldingMost: [...byPerson]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([name, works]) => ({ name, works })),
  };
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'as-of': { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const asOfYear = values['as-of'] ? Number(values['as-of']) : new Date().getUTCFullYear();
  const folders = positionals.length > 0 ? positionals.map((p) => path.resolve(p)) : CORPORA;
  const t0 = Date.now();
  const out = [];
  for (const folder of folders) {
    const { corpus, planned, skipped } = await planCorpus(folder, asOfYear);
    const stages = (['imported', 'people recorded', 'publication recorded'] as const).map((s) =>
      funnel(planned, s, asOfYear),
    );
    out.push({ corpus, works: planned.length + skipped.length, skipped: skipped.length, stages });
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ asOfYear, seconds: (Date.now() - t0) / 1000, corpora: out }, null, 2)}\n`);
    return;
  }
  for (const c of out) {
    process.stdout.write(`\n${c.corpus}: ${c.works} works, ${c.skipped} skipped (as of ${asOfYear})\n`);
    for (const s of c.stages) {
      process.stdout.write(
        `  ${s.stage.padEnd(21)} planned ${s.planned}; PD US ${s.publicDomain.US}, EU ${s.publicDomain.EU}, CA ${s.publicDomain.CA}; cleared ${s.cleared}; held ${s.held}\n`,
      );
      for (const [fact, n] of Object.entries(s.heldByMissingFact))
        process.stdout.write(`      held for ${fact}: ${n}\n`);
    }
    const last = c.stages.at(-1)!;
    if (last.peopleHoldingMost.length > 0)
      process.stdout.write(
        `  people whose dates would release the most: ${last.peopleHoldingMost.map((p) => `${p.name} (${p.works})`).join(', ')}\n`,
      );
  }
  process.stdout.write(`\n${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

await main();
