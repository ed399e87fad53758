/**
 * The one planning step every import adapter goes through (docs/imports.md): an adapter (the
 * OpenScore corpora, src/domain/corpus/openscore.ts; a plain folder of scores with an optional
 * works.csv, src/domain/corpus/folder.ts) says what it knows of one work as `WorkFacts`, and
 * `planWork` turns that into the `new-work` contribution the importer submits, deciding the
 * rights per territory from the facts and skipping a work the facts show protected. Pure.
 *
 * One work may have several score files: the movements of one work (one file each) become one
 * contribution with one asset per movement, in movement order (`work.movements`, each asset's
 * `movement`), never several works or duplicates of each other.
 */
import type { ContributedComposer, MusicContributionInput, ProposedTerms } from '../../schemas/contribution.ts';
import type { FactSource } from '../../schemas/imports.ts';
import { CONTRIBUTION_SCHEMA_VERSION } from '../../schemas/contribution.ts';
import type { ParsedCatalogNumber } from '../catalog-numbers.ts';
import { authorsOf, firstPublishedFact } from '../review/proposal.ts';
import type { ScoreKind } from '../score-files.ts';
import { notPublicDomainReason, territoryRights, type TerritoryRights } from '../territory-rights.ts';
import { identityKey, type IdentityKey } from './duplicates.ts';
import type { MusicXmlFacts } from './musicxml-facts.ts';
import { createHash } from 'node:crypto';

/** A score file an adapter found: where, its digest and size, its kind, and what its header says. */
export interface ImportFile {
  /** Path under the folder the importer was given, "/"-separated, NFC. */
  relPath: string;
  sha256: string;
  byteLength: number;
  kind: ScoreKind;
  facts: MusicXmlFacts;
}

/** One score of a work: its file, the asset's title and source page, and its movement (null: the whole work). */
export interface WorkScore {
  file: ImportFile;
  title: string;
  sourcePageUrl: string;
  movement: number | null;
}

export type { FactSource } from '../../schemas/imports.ts';

/** What an adapter knows of one work. */
export interface WorkFacts {
  batch: { id: string; title: string };
  /** The work's id in its source, unique within the batch (e.g. "lc5016466"). */
  itemKey: string;
  /** The slug the new work takes (decided by the adapter over the whole source, so a run's choice of items never changes it). */
  slug: string;
  title: string;
  originalTitle: string | null;
  composer: ContributedComposer & { sortName: string; wikidataId: string | null };
  /**
   * The lyricist; with `evidenceUrls` (the pages that show who they are and any dates given, and
   * `evidenceNote`, where they were read) the lyricist's person record is proposed from these facts.
   */
  lyricist: {
    name: string;
    born: string;
    died: string;
    wikidataId: string | null;
    sortName?: string;
    evidenceUrls?: string[];
    evidenceNote?: string;
  } | null;
  /** The work sets words (its lyricist counts for the rights even when unnamed). */
  hasLyrics: boolean;
  /** "1826", "no later than 1900", "unpublished", or null when the source does not say. */
  firstPublished: string | null;
  /** Where the first publication was read (a works.csv row, a page): with it the fact is recorded with this evidence. */
  firstPublishedEvidence?: Array<{ url: string; note: string }>;
  year: string;
  catalogNumbers: ParsedCatalogNumber[];
  workNumber: string | null;
  genre: string;
  newTerms?: ProposedTerms;
  instruments: string[];
  instrumentation: string;
  summary: string;
  rights: {
    editionStatus: 'public-domain' | 'licensed' | 'unknown';
    /** The files' rights status: "public-domain", "licensed", or "unknown" (then they land rights-review-required). */
    fileStatus: string;
    license: string | null;
    attribution: string | null;
    evidenceUrls: string[];
  };
  scores: WorkScore[];
  /** The work's movements in order; empty when its one score is the whole work. */
  movements: Array<{ number: number; title: string }>;
  /** Pages about the source (an IMSLP scan), added as source-page assets. */
  sourcePages: Array<{ title: string; url: string }>;
  changeSummary: string;
  factsFrom: FactSource;
  /** Said to the editor in the rationale when the facts were not checked against a table (e.g. read from the file). */
  provenance: string | null;
}

export type ItemPlan =
  | {
      kind: 'submit';
      itemKey: string;
      title: string;
      composer: string;
      body: MusicContributionInput;
      rights: TerritoryRights;
      identity: IdentityKey;
      files: ImportFile[];
      factsFrom: FactSource;
    }
  | { kind: 'skip'; itemKey: string; title: string; composer: string; reason: string };

export interface PlanOptions {
  asOfYear: number;
  /** The URL the importer staged a file under (see api/imports/staged-files.ts). */
  stagedUrl: (sha256: string) => string;
}

/** The longest idempotency key the contract takes. */
const MAX_KEY = 120;

/**
 * The idempotency key of a work: its source id plus the content of its files (one file: its own
 * digest, as before movements; several: the digest of their digests in order), so a changed file
 * is a new submission and the same files are never submitted twice.
 */
export function importIdempotencyKey(batchId: string, itemKey: string, files: ImportFile[]): string {
  const content =
    files.length === 1
      ? files[0]!.sha256.slice(0, 16)
      : createHash('sha256')
          .update(files.map((f) => f.sha256).join('\n'))
          .digest('hex')
          .slice(0, 16);
  const key = `import.${batchId}.${itemKey}.${content}`;
  if (key.length <= MAX_KEY) return key;
  const item = createHash('sha256').update(itemKey).digest('hex').slice(0, 16);
  return `import.${batchId.slice(0, 60)}.${item}.${content}`;
}

/** A first publication as a contribution's fact with its evidence, or null (not decided, or no evidence). */
export function publicationFactOf(
  text: string | null,
  evidence: Array<{ url: string; note: string }>,
): NonNullable<NonNullable<MusicContributionInput['work']>['firstPublishedFact']> | null {
  const fact = firstPublishedFact(text);
  if (fact === null || evidence.length === 0) return null;
  const ev = evidence.slice(0, 10).map((e) => ({ url: e.url, note: e.note.slice(0, 500) }));
  if (fact === 'unpublished') return { bound: 'unpublished', year: null, evidence: ev };
  if (typeof fact === 'number') return { bound: 'exact', year: fact, evidence: ev };
  return { bound: 'no-later-than', year: fact.noLaterThan, evidence: ev };
}

/** The contribution for one work, or the reason it is skipped. */
export function planWork(w: WorkFacts, options: PlanOptions): ItemPlan {
  const skip = (reason: string): ItemPlan => ({
    kind: 'skip',
    itemKey: w.itemKey,
    title: w.title || w.scores[0]?.file.relPath || w.itemKey,
    composer: w.composer.name,
    reason,
  });
  if (!w.title) return skip('the file names no title and no table gives one');
  if (!w.composer.name) return skip('no composer: no table and no file names one');
  if (w.scores.length === 0) return skip('no score file');
  const facts = {
    authors: authorsOf(w.composer, w.lyricist, w.hasLyrics),
    firstPublished: firstPublishedFact(w.firstPublished),
    asOfYear: options.asOfYear,
  };
  const rights = territoryRights(facts);
  const notFree = notPublicDomainReason(rights, facts);
  if (notFree) return skip(notFree);
  const publication = publicationFactOf(w.firstPublished, w.firstPublishedEvidence ?? []);

  const scores = [...w.scores].sort((a, b) => (a.movement ?? 0) - (b.movement ?? 0));
  const files = scores.map((s) => s.file);
  const body: MusicContributionInput = {
    schemaVersion: CONTRIBUTION_SCHEMA_VERSION,
    operation: 'new-work',
    idempotencyKey: importIdempotencyKey(w.batch.id, w.itemKey, files),
    submittedBy: { name: `Archive import (${w.batch.id})`, kind: 'AutomatedAgent', agentName: 'npm run import' },
    work: {
      title: w.title.slice(0, 200),
      originalTitle: w.originalTitle?.slice(0, 200) ?? null,
      composer: w.composer.name,
      genre: w.genre,
      ...(w.newTerms ? { newTerms: w.newTerms } : {}),
      year: w.year,
      workNumber: w.workNumber,
      catalogNumbers: w.catalogNumbers,
      summary: w.summary.slice(0, 300),
      instrumentation: w.instrumentation.slice(0, 220),
      instruments: w.instruments,
      ...(w.hasLyrics ? { hasLyrics: true } : {}),
      ...(w.lyricist
        ? {
            lyricist: {
              name: w.lyricist.name,
              born: w.lyricist.born,
              died: w.lyricist.died,
              wikidataId: w.lyricist.wikidataId,
            },
          }
        : {}),
      // The lyricist's person record, with the evidence the source gives (src/domain/review/proposal.ts).
      ...(w.lyricist?.evidenceUrls?.length
        ? {
            lyricistFacts: {
              name: w.lyricist.name,
              ...(w.lyricist.sortName ? { sortName: w.lyricist.sortName } : {}),
              born: w.lyricist.born,
              died: w.lyricist.died,
              wikidataId: w.lyricist.wikidataId,
              evidenceUrls: w.lyricist.evidenceUrls.slice(0, 10),
              ...(w.lyricist.evidenceNote ? { evidenceNote: w.lyricist.evidenceNote.slice(0, 500) } : {}),
            },
          }
        : {}),
      // The first publication: a fact with its evidence when the source says where it was read,
      // else the declared year (recorded with the declaration's evidence).
      ...(publication
        ? { firstPublishedFact: publication }
        : w.firstPublished
          ? { firstPublished: w.firstPublished }
          : {}),
      ...(w.movements.length > 0 ? { movements: w.movements } : {}),
      // Always the composer's facts: the archive adds a composer it does not know yet only with
      // them; one it knows is used as the catalog has it (src/domain/review/proposal.ts).
      composerFacts: w.composer,
    },
    rights: {
      // Never more than the facts show: public domain only when every territory is decided.
      compositionStatus: rights.composition === 'public-domain' ? 'public-domain' : 'unknown',
      editionStatus: w.rights.editionStatus,
      recordingStatus: 'not-applicable',
      territory: 'US, EU, CA',
      license: w.rights.license,
      attribution: w.rights.attribution?.slice(0, 500) ?? null,
      evidenceUrls: w.rights.evidenceUrls.slice(0, 10),
    },
    assets: [
      ...scores.map((s) => ({
        kind: s.file.kind,
        title: s.title.slice(0, 180),
        downloadUrl: options.stagedUrl(s.file.sha256),
        sourcePageUrl: s.sourcePageUrl,
        sha256: s.file.sha256,
        mediaType:
          s.file.kind === 'mxl' ? 'application/vnd.recordare.musicxml' : 'application/vnd.recordare.musicxml+xml',
        rightsStatus: w.rights.fileStatus,
        license: w.rights.license,
        attribution: w.rights.attribution?.slice(0, 500) ?? null,
        reviewState: 'pending' as const,
        ...(s.movement !== null && w.movements.length > 0 ? { movement: s.movement } : {}),
      })),
      ...w.sourcePages.map((p) => ({
        kind: 'source-page' as const,
        title: p.title,
        sourcePageUrl: p.url,
        rightsStatus: 'catalog-page',
        reviewState: 'pending' as const,
      })),
    ],
    quality: {},
    changeSummary: w.changeSummary.slice(0, 2000),
    rationale: [
      `Imported by the archive's importer. Rights by territory: US ${rights.US.status}, EU ${rights.EU.status}, CA ${rights.CA.status}${rights.missingFacts.length ? `; missing: ${rights.missingFacts.join('; ')}` : ''}.`,
      w.provenance,
    ]
      .filter(Boolean)
      .join(' ')
      .slice(0, 2000),
    batch: { id: w.batch.id, title: w.batch.title, itemKey: w.itemKey },
    target: { workSlug: w.slug },
  };
  return {
    kind: 'submit',
    itemKey: w.itemKey,
    title: w.title,
    composer: w.composer.name,
    body,
    rights,
    identity: identityKey(`batch item ${w.itemKey}`, w.composer.name, w.title, w.catalogNumbers),
    files,
    factsFrom: w.factsFrom,
  };
}
