/**
 * A review's proposal built on the current main of the content repository (or on a review
 * batch's line, where the works applied before it in the batch are): the pure builder
 * (src/domain/review/proposal-input.ts) over a reader of main's work files, stored-file digests,
 * the served build's composers and the verified contributor files. The caller holds the
 * content-repository lock, so main does not move while the proposal is built.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { git, settleCheckout } from '../site/content-repo.ts';
import { runChecked } from '../process/spawner.ts';
import type { AppContext } from '../context.ts';
import { ProposalLintError } from '../forge/forge-local.ts';
import { ProposalError, peopleSlugsOf } from '../../src/domain/review/proposal.ts';
import { parseFrontMatter, splitWorkFile } from '../../src/domain/work-file.ts';
import { buildProposal, proposalWorkSlug } from '../../src/domain/review/proposal-input.ts';
import type { ProposalInput } from '../forge/types.ts';
import type { StoredContribution } from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';
import type { ReviewRecord } from '../../src/schemas/review.ts';

/** Verified contributor files up to this size are read before a proposal is built (profile definitions). */
const VERIFIED_BYTES_PREFETCH_MAX = 8 * 1024 * 1024;

const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The shared files a proposal may read and change beside its work's folder. */
const SHARED_FILES = ['genres.json', 'instruments.json'] as const;

/**
 * What a proposal reads of `onto` (a review batch's line) where it differs from main: the work's
 * file, the digests of the files stored beside it and the shared files, read from git's objects.
 * Null when none of them differs from main, so the main checkout can be read as for any proposal.
 */
async function differingFromMain(
  repo: string,
  onto: string,
  slug: string | null,
  people: readonly string[],
  always = false,
): Promise<{
  workFile: string | null;
  stored: Map<string, string>;
  shared: Map<string, string | null>;
  people: Map<string, string | null>;
} | null> {
  const folder = slug !== null ? [`works/${slug}`] : [];
  const changed = always
    ? 'read from the commit'
    : await git(repo, [
        'diff-tree',
        '-r',
        '--name-only',
        'refs/heads/main',
        onto,
        '--',
        ...folder,
        ...SHARED_FILES,
        ...people.map((p) => `people/${p}.json`),
      ]);
  if (changed === '') return null;
  // Every file it reads, by `git cat-file --batch` (a few commands for the whole proposal, not two
  // per file: an apply builds one proposal per item, each on a batch's line). The folder's files
  // are listed with their sizes, so the reads are cut into batches of bounded size.
  const listed =
    slug === null
      ? []
      : (await git(repo, ['ls-tree', '-r', '-z', '--long', onto, '--', `works/${slug}/`]))
          .split('\0')
          .filter((entry) => entry !== '')
          .slice(0, MAX_STORED_FILES + 1)
          .map((entry) => {
            const tab = entry.indexOf('\t');
            return { name: entry.slice(tab + 1), size: Number(entry.slice(0, tab).trim().split(/\s+/)[3]) };
          });
  const names = listed
    .map((f) => f.name)
    .filter((n) => n !== `works/${slug}/index.md`)
    .slice(0, MAX_STORED_FILES);
  const wanted = [
    ...(slug !== null ? [`works/${slug}/index.md`] : []),
    ...names,
    ...SHARED_FILES,
    ...people.map((p) => `people/${p}.json`),
  ];
  const sizes = new Map(listed.map((f) => [f.name, Number.isSafeInteger(f.size) ? f.size : 0]));
  const blobs = await readBlobsAt(repo, onto, wanted, sizes);
  const text = (rel: string) => blobs.get(rel)?.toString('utf8') ?? null;
  const stored = new Map<string, string>();
  for (const name of names) {
    const bytes = blobs.get(name);
    if (bytes) stored.set(name.slice(`works/${slug}/`.length), sha256Of(bytes));
  }
  const workFile = slug !== null ? text(`works/${slug}/index.md`) : null;
  const shared = new Map<string, string | null>(SHARED_FILES.map((name) => [name, text(name)]));
  const persons = new Map<string, string | null>(people.map((p) => [p, text(`people/${p}.json`)]));
  return { workFile, stored, shared, people: persons };
}

/** One `git cat-file --batch` reads at most about this many bytes (a larger file is read alone). */
const BLOB_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * The blobs at `paths` of `commit` (null for a path it does not hold, or that is not a file), read
 * with `git cat-file --batch`: one command per BLOB_BATCH_BYTES of the `sizes` known (paths of
 * unknown size are small text files). A path git's batch syntax cannot carry (a line feed) is read
 * alone.
 */
async function readBlobsAt(
  repo: string,
  commit: string,
  paths: readonly string[],
  sizes: ReadonlyMap<string, number>,
): Promise<Map<string, Buffer | null>> {
  const out = new Map<string, Buffer | null>();
  for (const rel of paths.filter((p) => p.includes('\n'))) {
    const id = (await git(repo, ['ls-tree', '-z', '--object-only', commit, '--', rel])).split('\0')[0];
    out.set(rel, id ? await runChecked('git', ['-C', repo, 'cat-file', 'blob', id]) : null);
  }
  const batches: string[][] = [];
  let bytes = Infinity;
  for (const rel of paths.filter((p) => !p.includes('\n'))) {
    const size = sizes.get(rel) ?? 0;
    if (bytes + size > BLOB_BATCH_BYTES) {
      batches.push([]);
      bytes = 0;
    }
    batches.at(-1)!.push(rel);
    bytes += size;
  }
  for (const batch of batches) {
    const answer = await runChecked('git', ['-C', repo, 'cat-file', '--batch'], {
      input: batch.map((rel) => `${commit}:${rel}\n`).join(''),
    });
    let pos = 0;
    for (const rel of batch) {
      const eol = answer.indexOf(0x0a, pos);
      if (eol < 0) throw new Error('git cat-file: the output ended early');
      const header = answer.toString('utf8', pos, eol);
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        out.set(rel, null);
        pos = eol + 1;
        continue;
      }
      const [, type, size] = header.split(' ');
      const length = Number(size);
      if (!Number.isSafeInteger(length) || eol + 1 + length > answer.length)
        throw new Error(`git cat-file: unexpected answer for ${rel}`);
      out.set(rel, type === 'blob' ? answer.subarray(eol + 1, eol + 1 + length) : null);
      pos = eol + 1 + length + 1; // the content, then a line feed
    }
  }
  return out;
}

/** Files of one work folder read from git for a batch's proposal (a work stores a few). */
const MAX_STORED_FILES = 1000;

/**
 * The proposal of an item on the content repository's current main, or, with `onto`, on that
 * commit (a review batch's line: apply.ts), so every apply is built against what is there at
 * apply time. The proposal's `base` is the commit it was built on.
 */
export async function buildProposalOnMain(
  ctx: AppContext,
  record: StoredContribution | StoredCorrectionReport,
  state: ReviewRecord,
  onto: string | null = null,
  overlay: ReadonlyMap<string, string | Buffer | null> | null = null,
  /**
   * Read everything from `onto`'s objects, never from the main checkout: an accept builds on a
   * snapshot of main (api/review/actions.ts) without the content-repository lock, while an apply
   * may be moving main and its checkout.
   */
  snapshot = false,
): Promise<{ input: ProposalInput; author: string }> {
  const repo = ctx.config.contentRepo;
  const inRepo = (rel: string) => path.join(repo, rel);
  // The files are read from the main checkout: it must hold main, not still follow the merge of
  // an apply before this one in the same batch (api/site/content-repo.ts, deferCheckout).
  if (!snapshot) await settleCheckout(repo);
  const base = onto !== null ? await git(repo, ['rev-parse', '--verify', `${onto}^{commit}`]) : null;
  const slug = proposalWorkSlug(record, state);
  // The people the proposal may read (a new work's composer and lyricist, a corrected work's people).
  const people = await peopleItMayRead(repo, record, slug, base);
  const ahead = base !== null ? await differingFromMain(repo, base, slug, people, snapshot) : null;
  // The reader is synchronous and the blob store may be remote: read the small verified files
  // (a rendering profile's definition is one) before building.
  const small = new Map<string, Buffer>();
  for (const v of state.verification ?? []) {
    if (
      v.status === 'verified' &&
      v.sha256 &&
      (v.byteLength ?? Infinity) <= VERIFIED_BYTES_PREFETCH_MAX &&
      !small.has(v.sha256)
    )
      small.set(v.sha256, await ctx.blobs.readBytes(v.sha256));
  }
  // `overlay`: the files a review batch's earlier items change (api/review/apply.ts, one tree for
  // the whole batch), read before main's checkout, so each item is built on what the batch holds by then.
  const fromCheckout = (rel: string): Buffer | null => {
    if (overlay?.has(rel)) {
      const content = overlay.get(rel) ?? null;
      return content === null ? null : Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    }
    return existsSync(inRepo(rel)) ? readFileSync(inRepo(rel)) : null;
  };
  // Where `onto` differs from main, the proposal reads `onto` (only its own work's folder and the
  // shared files are ever read, and those are what `ahead` holds).
  const outside = (s: string) => {
    throw new Error(`the proposal of ${record.trackingCode} read the work "${s}", not the one it changes`);
  };
  const built = buildProposal(record, state, {
    workFile: (s) =>
      ahead
        ? s === slug
          ? ahead.workFile
          : outside(s)
        : (fromCheckout(`works/${s}/index.md`)?.toString('utf8') ?? null),
    storedFileSha256: (s, file) => {
      if (ahead) return s === slug ? (ahead.stored.get(path.posix.normalize(file)) ?? null) : outside(s);
      const bytes = fromCheckout(path.posix.join('works', s, path.posix.normalize(file)));
      return bytes ? sha256Of(bytes) : null;
    },
    // The served build's index of main (its distinct composers), not a reload of every work file.
    composers: () => ctx.handle.current.catalog.composers,
    sharedFile: (name) => (ahead ? (ahead.shared.get(name) ?? null) : (fromCheckout(name)?.toString('utf8') ?? null)),
    personFile: (p) => {
      if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(p)) return null;
      // A person the line was not read for ahead is read from main (a name matched another way).
      if (ahead && people.includes(p)) return ahead.people.get(p) ?? null;
      return fromCheckout(`people/${p}.json`)?.toString('utf8') ?? null;
    },
    verifiedBytes: (sha256) => {
      const bytes = small.get(sha256);
      if (!bytes) throw new Error(`the verified file ${sha256} is not among the files read for this proposal`);
      return bytes;
    },
  });
  return base !== null ? { ...built, input: { ...built.input, base } } : built;
}

/**
 * The person records a proposal may read, so a batch's line can be read ahead of it: the slugs a
 * new work's composer and lyricist would take (src/domain/review/proposal.ts, `peopleSlugsOf`), or
 * the people a corrected work names (its work file, read from the batch's line or main).
 */
async function peopleItMayRead(
  repo: string,
  record: StoredContribution | StoredCorrectionReport,
  slug: string | null,
  base: string | null,
): Promise<string[]> {
  if (record.kind === 'contribution') return peopleSlugsOf(record.submission);
  if (slug === null) return [];
  const text =
    base !== null
      ? await git(repo, ['cat-file', '-p', `${base}:works/${slug}/index.md`]).catch(() => null)
      : existsSync(path.join(repo, 'works', slug, 'index.md'))
        ? readFileSync(path.join(repo, 'works', slug, 'index.md'), 'utf8')
        : null;
  if (text === null) return [];
  try {
    const data = parseFrontMatter(splitWorkFile(text).frontMatter);
    return [data.composer, data.lyricist].filter((p): p is string => typeof p === 'string');
  } catch {
    return [];
  }
}

/** Why a proposal could not be opened, as blocker lines for the reviewers. */
export function reasonsOf(err: unknown): string[] {
  if (err instanceof ProposalError) return err.reasons;
  if (err instanceof ProposalLintError)
    return [`The proposal does not pass the content lint: ${err.messages.slice(0, 20).join('; ')}`];
  return [`The proposal could not be opened: ${(err as Error).message}`];
}
