/**
 * A content repository made from real scores of ../shared/corpora (read where they are, copied
 * only into the temporary content folder): the shipped sample plus one work per score, each with
 * the score as its stored `.mxl` source asset (public), modeled on the sample's Satie work.
 * Used by the render cache tests and the engraving benches.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { newWorkFile, parseWorkFile } from '../../src/domain/work-file.ts';
import { musicXmlFromMxl } from '../../src/domain/mxl.ts';
import { musicXmlFacts } from '../../src/domain/corpus/musicxml-facts.ts';
import { parseTsv } from '../../src/domain/corpus/tsv.ts';
import {
  corpusKindOf,
  corpusWork,
  idOfFileName,
  indexTables,
  titlePairCounts,
} from '../../src/domain/corpus/openscore.ts';
import { planWork } from '../../src/domain/corpus/plan.ts';
import { stagedFileUrl } from '../../api/imports/staged-files.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPORA = path.resolve(PROJECT_ROOT, '../shared/corpora');
export const QUARTETS = path.join(CORPORA, 'openscore-string-quartets', 'scores');
export const LIEDER = path.join(CORPORA, 'openscore-lieder', 'scores');

/** Every `.mxl` under a corpus folder, sorted by path (a bounded walk: the corpus is a few levels deep). */
export function corpusScores(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 6) return;
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p, depth + 1);
      else if (name.endsWith('.mxl')) out.push(p);
    }
  };
  walk(dir, 0);
  return out;
}

/** A spread sample of `n` items (every k-th), so a subset is not one composer's. */
export function spread<T>(items: T[], n: number): T[] {
  if (n >= items.length) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

/** The quartet with the most engraved pages in the corpus (96). */
export const LARGEST_QUARTET = 'sq8823783.mxl';

export function findScore(dir: string, fileName: string): string {
  const found = corpusScores(dir).find((p) => path.basename(p) === fileName);
  if (!found) throw new Error(`${fileName} is not in ${dir}`);
  return found;
}

/**
 * Copy the sample content to `dir` (or only its shared files with `sampleWorks: false`) and add
 * a work `corpus-<i>` for each score. Returns the new works' slugs in order.
 */
export function makeCorpusContent(dir: string, scores: string[], options: { sampleWorks?: boolean } = {}): string[] {
  const sample = path.join(PROJECT_ROOT, 'content');
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(sample)) {
    if (name === 'works' && options.sampleWorks === false) continue;
    cpSync(path.join(sample, name), path.join(dir, name), { recursive: true });
  }
  const template = parseWorkFile(readFileSync(path.join(sample, 'works', 'satie-gymnopedie-1', 'index.md'), 'utf8'));
  const slugs: string[] = [];
  scores.forEach((score, i) => {
    const slug = `corpus-${String(i + 1).padStart(4, '0')}`;
    const front = structuredClone(template.data) as Record<string, unknown>;
    const asset = (front.sourceAssets as Record<string, unknown>[])[0]!;
    const id = path.basename(score, '.mxl');
    front.slug = slug;
    front.title = `Corpus score ${id}`;
    front.originalTitle = front.title;
    delete front.comments;
    delete front.videos;
    front.arrangements = [];
    front.sourceAssets = [
      {
        ...asset,
        kind: 'mxl',
        title: `${id} (OpenScore, CC0)`,
        file: 'score.mxl',
        mediaType: 'application/vnd.recordare.musicxml',
        excerpt: undefined,
        technicalChecks: 'Compressed MusicXML from the OpenScore corpora.',
      },
    ];
    const work = path.join(dir, 'works', slug);
    mkdirSync(work, { recursive: true });
    cpSync(score, path.join(work, 'score.mxl'));
    writeFileSync(path.join(work, 'index.md'), newWorkFile(JSON.parse(JSON.stringify(front)), template.body));
    slugs.push(slug);
  });
  return slugs;
}

/**
 * One corpus score as the importer plans it (src/domain/corpus/openscore.ts and plan.ts: the same body
 * `npm run import` submits), with its bytes, for tests that submit import items over HTTP.
 */
export function plannedImportItem(
  scoresDir: string,
  fileName: string,
  slug: string,
): { body: MusicContributionInput; bytes: Buffer; sha256: string } {
  const corpus = path.dirname(scoresDir);
  const read = (name: string) => parseTsv(readFileSync(path.join(corpus, 'data', name), 'utf8'));
  const index = indexTables({ composers: read('composers.tsv'), scores: read('scores.tsv'), sets: read('sets.tsv') });
  const file = findScore(scoresDir, fileName);
  const bytes = readFileSync(file);
  const kind = corpusKindOf([fileName])!;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const id = idOfFileName(kind, fileName)!;
  const work = corpusWork(
    kind,
    index,
    { itemKey: `${kind.prefix}${id}`, ids: [id], setId: null },
    [
      {
        relPath: path.relative(scoresDir, file),
        id,
        sha256,
        byteLength: bytes.length,
        kind: 'mxl',
        facts: musicXmlFacts(musicXmlFromMxl(bytes)),
      },
    ],
    { corpusUrl: 'https://github.com/OpenScore', pairs: titlePairCounts(index) },
  );
  if ('skip' in work) throw new Error(`${fileName} was not planned: ${work.skip}`);
  const plan = planWork(work, { asOfYear: 2026, stagedUrl: stagedFileUrl });
  if (plan.kind !== 'submit') throw new Error(`${fileName} was not planned: ${plan.reason}`);
  plan.body.target = { workSlug: slug };
  return { body: plan.body, bytes, sha256 };
}

/**
 * A song's MusicXML with its first part (the voice) taken out: the piano part alone. The tempo
 * marks the voice part carried (`<direction>` with `<sound tempo>`, e.g. "Moderato", 100) move to
 * the start of the same measure of the piano part, so the piano part plays at the song's tempi;
 * a tempo mark after a measure's first note would need its offset, and is refused. With
 * `{ tempi: 'drop' }` the voice's tempo marks go with it and the piano part plays at the default
 * tempo (for a song whose marks fall inside measures: lc5004701's measure 12).
 */
export function pianoPart(xml: string, options: { tempi?: 'move' | 'drop' } = {}): string {
  const voice = /<score-part id="(P1)">[\s\S]*?<\/score-part>/.exec(xml);
  if (!voice) throw new Error('the song has no part P1');
  const voicePart = /<part id="P1">[\s\S]*?<\/part>/.exec(xml);
  if (!voicePart) throw new Error('the song has no part P1');
  const tempi = new Map<string, string[]>();
  for (const m of options.tempi === 'drop'
    ? []
    : voicePart[0].matchAll(/<measure\b[^>]*\bnumber="([^"]+)"[^>]*>([\s\S]*?)<\/measure>/g)) {
    const marks = [...m[2]!.matchAll(/<direction\b(?:(?!<\/direction>)[\s\S])*?<\/direction>/g)].filter((d) =>
      /<sound\b[^>]*\btempo="/.test(d[0]),
    );
    const firstNote = m[2]!.indexOf('<note');
    if (marks.some((d) => firstNote >= 0 && d.index! > firstNote))
      throw new Error(`measure ${m[1]}: a tempo mark after the first note`);
    if (marks.length)
      tempi.set(
        m[1]!,
        marks.map((d) => d[0]),
      );
  }
  let out = xml.replace(voice[0], '').replace(voicePart[0], '');
  if (out.includes('<part id="P1">') || !out.includes('<part id="P2">'))
    throw new Error('the voice part was not removed');
  out = out.replace(/<part id="P2">[\s\S]*?<\/part>/, (piano) =>
    piano.replace(/<measure\b[^>]*\bnumber="([^"]+)"[^>]*>/g, (open, n: string) => {
      const marks = tempi.get(n);
      tempi.delete(n);
      return marks ? `${open}${marks.join('')}` : open;
    }),
  );
  if (tempi.size) throw new Error(`tempo marks in measures the piano part lacks: ${[...tempi.keys()].join(', ')}`);
  return out;
}
