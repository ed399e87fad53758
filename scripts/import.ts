/**
 * Bring a folder of scores into the archive through review (docs/imports.md):
 *
 *   npm run import -- <folder> [--batch ID] [--title TEXT] [--source-url URL] [--limit N]
 *                     [--only KEYS] [--dry-run] [--as-of YEAR] [--server URL] [--key-file FILE] [--json]
 *
 * The folder is an OpenScore corpus (scores/ and data/*.tsv) or a plain folder of score files
 * (.musicxml, .xml, .mxl, any depth) with an optional works.csv; both adapters hand their works
 * to the one planning step (src/domain/corpus/plan.ts), and everything after it is this file's,
 * the same for both. Each work becomes one `new-work` contribution with its file (or one file per
 * movement), its facts, the rights per territory decided from them and the source pages,
 * submitted into ONE review batch through the running server's admin API (an admin key:
 * ARCHIVE_ADMIN_KEY or --key-file). Nothing is applied: editors accept, decline and apply in
 * review. Idempotent (each item's key is its source id plus its files' digests) and resumable: a
 * run cut off anywhere submits, when run again, only what the first did not. --dry-run reads and
 * plans everything and sends nothing. Works whose composition the facts show protected in a
 * territory are skipped, with the reason; --as-of decides rights for another year.
 * Exit code 0 when the run finished, 1 when items failed or works.csv rows were refused, 2 on usage errors.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseCatalogNumbers } from '../src/domain/catalog-numbers.ts';
import {
  findDuplicate,
  identityKey,
  type DuplicateFinding,
  type IdentityKey,
} from '../src/domain/corpus/duplicates.ts';
import type { InstrumentTerm } from '../src/domain/corpus/folder.ts';
import { planWork, type ItemPlan } from '../src/domain/corpus/plan.ts';
import { fold } from '../src/domain/text.ts';
import { stagedFileUrl, withoutStagedUrlFindings } from '../api/imports/staged-files.ts';
import { checkPlaceholders } from '../src/domain/contributions/placeholders.ts';
import { BATCH_ID_PATTERN, MusicContributionInput } from '../src/schemas/contribution.ts';
import type { ImportSummary } from '../src/schemas/imports.ts';
import { validate } from '../src/domain/validation.ts';
import { checkContributionSafety } from '../src/domain/contributions/safety.ts';
import { serverAddress, unreachable, type ServerAddress } from './lib/server-address.ts';
import {
  folderSource,
  isOpenScoreFolder,
  openScoreSource,
  type ImportSource,
  type LoadedWork,
  type SourceWork,
} from './lib/import-sources.ts';

const USAGE =
  'usage: npm run import -- <folder> [--batch ID] [--title TEXT] [--source-url URL] [--limit N] [--only KEY,KEY] [--dry-run] [--as-of YEAR] [--server URL] [--key-file FILE] [--json]';
/** Works submitted at once (each is its own durable writes on the server; a few in flight keep it busy). */
const IN_FLIGHT = 16;

function usage(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

interface Args {
  folder: string;
  batch: string | null;
  title: string | null;
  sourceUrl: string | null;
  limit: number | null;
  only: Set<string> | null;
  dryRun: boolean;
  asOfYear: number;
  server: ServerAddress;
  key: string;
  json: boolean;
}

function parse(): Args {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      batch: { type: 'string' },
      title: { type: 'string' },
      'source-url': { type: 'string' },
      limit: { type: 'string' },
      only: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'as-of': { type: 'string' },
      server: { type: 'string' },
      'key-file': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const folder = positionals[0];
  if (!folder) usage('missing the folder of scores');
  const limit = values.limit === undefined ? null : Number(values.limit);
  if (limit !== null && !(Number.isInteger(limit) && limit >= 1)) usage('--limit must be a whole number of at least 1');
  const asOfYear = values['as-of'] === undefined ? new Date().getUTCFullYear() : Number(values['as-of']);
  if (!(Number.isInteger(asOfYear) && asOfYear >= 1900 && asOfYear <= 2300)) usage('--as-of must be a year');
  const only = values.only
    ? new Set(
        values.only
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
    : null;
  if (values.batch !== undefined && !new RegExp(BATCH_ID_PATTERN).test(values.batch))
    usage('--batch must be 3 to 80 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit');
  if (values.title !== undefined && !(values.title.trim().length > 0 && values.title.length <= 200))
    usage('--title must be 1 to 200 characters');
  const sourceUrl = values['source-url'] ?? null;
  if (sourceUrl !== null && !/^https:\/\/[^\s]+$/.test(sourceUrl)) usage('--source-url must be an HTTPS address');
  const dryRun = values['dry-run'];
  const key = (values['key-file'] ? (readKey(values['key-file']) ?? '') : (process.env.ARCHIVE_ADMIN_KEY ?? '')).trim();
  if (!dryRun && !key)
    usage('no admin key: set ARCHIVE_ADMIN_KEY or pass --key-file <file> (keys are never taken from the command line)');
  let server: ServerAddress;
  try {
    // --server, else ARCHIVE_BASE_URL, as every other command-line tool (scripts/lib/server-address.ts).
    server = serverAddress(values.server);
  } catch (err) {
    usage((err as Error).message);
  }
  return {
    folder: path.resolve(folder),
    batch: values.batch ?? null,
    title: values.title?.trim() ?? null,
    sourceUrl,
    limit,
    only,
    dryRun,
    asOfYear,
    server,
    key,
    json: values.json,
  };
}

function readKey(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private lastLine = 0;
  private readonly total: number;
  constructor(total: number) {
    this.total = total;
  }
  tick(done: number, label: string): void {
    if (this.tty) {
      const width = 30;
      const filled = Math.round((done / Math.max(1, this.total)) * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${this.total} ${label.slice(0, 60).padEnd(60)}`,
      );
      if (done === this.total) process.stderr.write('\n');
    } else if (done === this.total || Date.now() - this.lastLine > 2000) {
      this.lastLine = Date.now();
      process.stderr.write(`${done}/${this.total} ${label}\n`);
    }
  }
}

/** The server could not be reached at all: the run stops (every item would fail the same way). */
class Unreachable extends Error {}

/** At most this long is waited for one Retry-After (the key's own rate limit, ARCHIVE_KEY_RATE_LIMIT). */
const MAX_RETRY_AFTER_S = 60;

async function api(
  args: Args,
  method: string,
  url: string,
  body?: unknown,
  raw?: Buffer,
): Promise<{ status: number; json: any }> {
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${args.server.url}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${args.key}`,
          accept: 'application/json',
          ...(raw
            ? { 'content-type': 'application/octet-stream' }
            : body !== undefined
              ? { 'content-type': 'application/json' }
              : {}),
        },
        ...(raw ? { body: new Uint8Array(raw) } : body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      // A server restarting (or briefly unreachable) is waited for; anything else is the item's failure.
      if (attempt >= 4) throw new Unreachable(unreachable(args.server, err));
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
      continue;
    }
    const text = method === 'HEAD' ? '' : await res.text();
    // The admin key's own limit (not the public intake's): wait as told, then go on.
    if (res.status === 429 && attempt < 10) {
      const wait = Math.min(MAX_RETRY_AFTER_S, Math.max(1, Number(res.headers.get('retry-after')) || 1));
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    return { status: res.status, json: text ? JSON.parse(text) : null };
  }
}

/** The catalog's works by one composer, as identity keys (read from the server's listing, once per composer). */
async function catalogKeys(args: Args, composer: string, cache: Map<string, Promise<IdentityKey[]>>) {
  const k = fold(composer);
  let found = cache.get(k);
  if (!found) {
    found = (async () => {
      const out: IdentityKey[] = [];
      try {
        for (let page = 1; page <= 20; page++) {
          const res = await fetch(
            `${args.server.url}/api/v1/works?composer=${encodeURIComponent(composer)}&pageSize=100&page=${page}`,
          );
          if (!res.ok) break;
          type Summary = { slug: string; title: string; composer: string; workNumber: string | null };
          const body = (await res.json()) as { data?: { items?: Summary[] } };
          const list = body.data?.items ?? [];
          for (const w of list) {
            if (fold(w.composer) !== k) continue;
            out.push(identityKey(w.slug, w.composer, w.title, parseCatalogNumbers(`${w.title} ${w.workNumber ?? ''}`)));
          }
          if (list.length < 100) break;
        }
      } catch {
        // No server (a dry run): catalog duplicates are not checked.
      }
      return out;
    })();
    cache.set(k, found);
  }
  return found;
}

/** The published instruments (names and aliases read as slugs); none when no server answers. */
async function instrumentTerms(args: Args): Promise<InstrumentTerm[]> {
  try {
    const res = await fetch(`${args.server.url}/api/v1/instruments`);
    if (!res.ok) return [];
    const body = (await res.json()) as { data?: { instruments?: InstrumentTerm[] } };
    const items = body.data?.instruments ?? [];
    return items.filter((t) => typeof t?.slug === 'string' && typeof t?.name === 'string');
  } catch {
    return [];
  }
}

/** The works a run takes: those --only names (by item key, score id or file path), the first --limit of them. */
function chosen(source: ImportSource, args: Args): SourceWork[] {
  let works = source.works;
  if (args.only) {
    const named = new Set([...args.only].map((n) => n.normalize('NFC')));
    works = works.filter((w) => w.names.some((n) => named.has(n)));
    const known = new Set(works.flatMap((w) => w.names));
    const missing = [...named].filter((n) => !known.has(n));
    if (missing.length) usage(`--only names what the folder does not hold: ${missing.join(', ')}`);
  }
  return args.limit !== null ? works.slice(0, args.limit) : works;
}

async function loadSource(args: Args): Promise<ImportSource> {
  const openScore = await isOpenScoreFolder(args.folder);
  if (openScore) return openScoreSource(args.folder, openScore);
  const stat = await fs.stat(args.folder).catch(() => null);
  if (!stat?.isDirectory()) usage(`${args.folder} is not a folder`);
  try {
    return await folderSource(args.folder, {
      batchId: args.batch,
      title: args.title,
      sourceUrl: args.sourceUrl,
      instruments: args.dryRun && !args.key ? [] : await instrumentTerms(args),
      currentYear: new Date().getUTCFullYear(),
    });
  } catch (err) {
    usage(`${args.folder} cannot be read: ${(err as Error).message}`);
  }
}

async function main(): Promise<number> {
  const args = parse();
  const started = Date.now();
  if (!args.dryRun) {
    // One look before reading the folder: an address nothing answers at is named at once.
    try {
      await fetch(`${args.server.url}/api/v1/admin/batches`, { headers: { authorization: `Bearer ${args.key}` } });
    } catch (err) {
      throw new Unreachable(unreachable(args.server, err));
    }
  }
  const source = await loadSource(args);
  if (source.kind === 'openscore' && (args.batch || args.title))
    usage('--batch and --title are for a plain folder; an OpenScore corpus has its own batch');
  if (source.works.length === 0 && source.rowErrors.length === 0)
    usage(`${args.folder} holds no score files (.musicxml, .xml, .mxl)`);
  const works = chosen(source, args);
  const considered = works.reduce((n, w) => n + Math.max(1, w.files.length), 0);

  const progress = new Progress(works.length);
  const summary: ImportSummary = {
    batchId: source.batchId,
    title: source.title,
    finishedAtUtc: '',
    considered,
    submitted: 0,
    alreadySubmitted: 0,
    duplicates: 0,
    skipped: source.rowErrors.map((e) => ({
      itemKey: `works.csv:${e.row}`,
      title: `works.csv row ${e.row}`,
      composer: '',
      reason: `works.csv row ${e.row}${e.column ? `, column ${e.column}` : ''}: ${e.detail}`.slice(0, 500),
    })),
  };
  const failures: string[] = [];
  const seen: IdentityKey[] = [];
  const catalogCache = new Map<string, Promise<IdentityKey[]>>();
  const inFlight = new Set<Promise<void>>();
  let planned = 0;
  let bytes = 0;
  let done = 0;

  const submit = async (plan: Extract<ItemPlan, { kind: 'submit' }>, duplicate: DuplicateFinding | null) => {
    try {
      for (const file of plan.files) {
        // Staged by an earlier run: not sent again.
        const staged = await api(args, 'HEAD', `/api/v1/admin/imports/files/${file.sha256}`);
        if (staged.status === 200) continue;
        const data = await fs.readFile(path.join(source.root, file.relPath));
        const put = await api(args, 'PUT', `/api/v1/admin/imports/files/${file.sha256}`, undefined, data);
        if (put.status !== 201)
          throw new Error(`staging ${file.relPath}: HTTP ${put.status} ${put.json?.detail ?? ''}`);
      }
      const res = await api(args, 'POST', '/api/v1/admin/imports/items', {
        contribution: plan.body,
        duplicateOf: duplicate?.of ?? null,
        ...(duplicate ? { duplicateMatch: { matched: duplicate.matched, exact: duplicate.exact } } : {}),
        factsFrom: plan.factsFrom,
      });
      if (res.status === 201) summary.submitted++;
      else if (res.status === 200) summary.alreadySubmitted++;
      else
        throw new Error(
          `HTTP ${res.status} ${res.json?.detail ?? ''} ${JSON.stringify(res.json?.errors ?? [])}`.slice(0, 500),
        );
    } catch (err) {
      if (err instanceof Unreachable) throw err;
      failures.push(`${plan.itemKey}: ${(err as Error).message}`);
    }
    progress.tick(++done, `${plan.itemKey} ${plan.title}`);
  };

  for (const work of works) {
    let loaded: LoadedWork;
    try {
      loaded = await work.load();
    } catch (err) {
      loaded = {
        skip: `the file cannot be read: ${(err as Error).message}`.slice(0, 500),
        itemKey: work.itemKey,
        title: work.files[0] ?? work.itemKey,
        composer: '',
      };
    }
    const plan: ItemPlan =
      'skip' in loaded
        ? { kind: 'skip', itemKey: loaded.itemKey, title: loaded.title, composer: loaded.composer, reason: loaded.skip }
        : planWork(loaded, { asOfYear: args.asOfYear, stagedUrl: stagedFileUrl });
    if (plan.kind === 'skip') {
      summary.skipped.push({ itemKey: plan.itemKey, title: plan.title, composer: plan.composer, reason: plan.reason });
      progress.tick(++done, `${plan.itemKey} skipped`);
      continue;
    }
    planned++;
    bytes += plan.files.reduce((n, f) => n + f.byteLength, 0);
    // The same checks the server makes, so a dry run finds every body it would refuse.
    const invalid = [
      ...validate(MusicContributionInput, plan.body),
      ...withoutStagedUrlFindings([...checkContributionSafety(plan.body), ...checkPlaceholders(plan.body)], plan.body),
    ];
    if (invalid.length > 0) {
      failures.push(
        `${plan.itemKey}: not a valid contribution: ${invalid.map((e) => `${e.pointer ?? ''} ${e.detail}`).join('; ')}`.slice(
          0,
          500,
        ),
      );
      progress.tick(++done, `${plan.itemKey} invalid`);
      continue;
    }
    // Probable duplicates by identity (src/domain/corpus/duplicates.ts): the catalog's works of the
    // composer (not the work this item would create itself), then the items before it in this run.
    const known = args.dryRun && !args.key ? [] : await catalogKeys(args, plan.composer, catalogCache);
    const duplicate =
      findDuplicate(
        plan.identity,
        known.filter((k) => k.label !== plan.body.target?.workSlug),
      ) ?? findDuplicate(plan.identity, seen);
    seen.push(plan.identity);
    if (duplicate) summary.duplicates++;
    if (args.dryRun) {
      progress.tick(++done, `${plan.itemKey} ${plan.title}`);
      continue;
    }
    const p = submit(plan, duplicate).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  summary.finishedAtUtc = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (!args.dryRun && failures.length === 0) {
    const res = await api(args, 'PUT', `/api/v1/admin/imports/batches/${source.batchId}/summary`, summary);
    if (res.status !== 200) failures.push(`storing the summary: HTTP ${res.status} ${res.json?.detail ?? ''}`);
  }
  const seconds = (Date.now() - started) / 1000;
  const reasons = new Map<string, number>();
  for (const s of summary.skipped)
    if (!s.itemKey.startsWith('works.csv:')) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
  const report = {
    ...summary,
    source: source.kind,
    dryRun: args.dryRun,
    asOfYear: args.asOfYear,
    works: works.length,
    corpusFiles: source.fileCount,
    ...source.notes,
    planned,
    refusedRows: source.rowErrors,
    failed: failures,
    seconds,
    bytesRead: bytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    const lines = [
      `${args.dryRun ? 'Dry run' : 'Import'} of ${source.title} (batch ${source.batchId}): ${works.length} works from ${considered} score files considered (${source.fileCount} in the folder) in ${seconds.toFixed(1)} s.`,
      args.dryRun
        ? `Would submit: ${planned}.`
        : `Submitted: ${summary.submitted} new; already submitted before: ${summary.alreadySubmitted}.`,
      `Probable duplicates flagged: ${summary.duplicates}.`,
      `Skipped: ${summary.skipped.length - source.rowErrors.length}${reasons.size ? ':' : '.'}`,
      ...[...reasons].map(([reason, n]) => `  ${n} × ${reason}`),
      ...(source.rowErrors.length
        ? [
            `Refused rows of works.csv: ${source.rowErrors.length} (nothing of them was submitted; fix them and run again):`,
            ...source.rowErrors.map((e) => `  row ${e.row}${e.column ? `, column ${e.column}` : ''}: ${e.detail}`),
          ]
        : []),
      ...(failures.length
        ? [`Failed: ${failures.length} (run again to retry them):`, ...failures.map((f) => `  ${f}`)]
        : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return failures.length > 0 || source.rowErrors.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof Unreachable) {
      process.stderr.write(`import: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`import failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
