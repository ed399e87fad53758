/**
 * Bring a corpus into the archive through review (docs/imports.md):
 *
 *   npm run import -- <corpus folder> [--limit N] [--only <ids>] [--dry-run] [--as-of YEAR]
 *                     [--server URL] [--key-file FILE] [--json]
 *
 * Each score becomes one `new-work` contribution with its file, the corpus's facts, the rights
 * per territory decided from them and the source pages, submitted into ONE review batch through
 * the running server's admin API (an admin key: ARCHIVE_ADMIN_KEY or --key-file). Nothing is
 * applied: editors accept, decline and apply in review. Idempotent (each item's key is its source
 * id plus its file's digest) and resumable: a run cut off anywhere submits, when run again,
 * only what the first did not. --dry-run reads and plans everything and sends nothing.
 * Works whose composition the facts show protected in a territory are skipped, with the reason;
 * --as-of decides rights for another year (default: this year).
 * Exit code 0 when the run finished, 1 when items failed, 2 on usage errors.
 */
import { createHash } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { musicXmlFromMxl } from '../src/domain/mxl.ts';
import { musicXmlFacts } from '../src/domain/corpus/musicxml-facts.ts';
import { parseTsv } from '../src/domain/corpus/tsv.ts';
import {
  corpusKindOf,
  duplicateKey,
  findDuplicate,
  idOfFileName,
  indexTables,
  planItem,
  type CorpusFile,
  type DuplicateKey,
  type ItemPlan,
} from '../src/domain/corpus/openscore.ts';
import { parseCatalogNumbers } from '../src/domain/catalog-numbers.ts';
import { slugify } from '../src/domain/review/proposal.ts';
import { fold } from '../src/domain/text.ts';
import { stagedFileUrl, withoutStagedUrlFindings } from '../api/imports/staged-files.ts';
import { checkPlaceholders } from '../src/domain/contributions/placeholders.ts';
import type { ImportSummary } from '../src/schemas/imports.ts';
import { MusicContributionInput } from '../src/schemas/contribution.ts';
import { validate } from '../src/domain/validation.ts';
import { checkContributionSafety } from '../src/domain/contributions/safety.ts';
import { serverAddress, unreachable, type ServerAddress } from './lib/server-address.ts';

const USAGE =
  'usage: npm run import -- <corpus folder> [--limit N] [--only ID,ID] [--dry-run] [--as-of YEAR] [--server URL] [--key-file FILE] [--json]';
const MAX_FILES = 200_000;
const MAX_DEPTH = 8;

function usage(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

/** Every .mxl under `dir` (bounded in depth and count), as paths relative to it in NFC. */
async function scoreFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || out.length >= MAX_FILES) return;
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child, depth + 1);
      else if (e.isFile() && e.name.toLowerCase().endsWith('.mxl') && out.length < MAX_FILES) out.push(child);
    }
  };
  await walk('', 0);
  return out;
}

interface Args {
  folder: string;
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
  if (!folder) usage('missing the corpus folder');
  const limit = values.limit === undefined ? null : Number(values.limit);
  if (limit !== null && !(Number.isInteger(limit) && limit >= 1)) usage('--limit must be a whole number of at least 1');
  const asOfYear = values['as-of'] === undefined ? new Date().getUTCFullYear() : Number(values['as-of']);
  if (!(Number.isInteger(asOfYear) && asOfYear >= 1900 && asOfYear <= 2300)) usage('--as-of must be a year');
  const only = values.only
    ? new Set(
        values.only
          .split(',')
          .map((s) => s.trim().replace(/^[a-z]+/i, ''))
          .filter(Boolean),
      )
    : null;
  if (only && [...only].some((id) => !/^[0-9]{1,12}$/.test(id)))
    usage('--only takes score ids (e.g. 5016466 or lc5016466), separated by commas');
  const dryRun = values['dry-run'];
  const key = (
    values['key-file'] ? (awaitRead(values['key-file']) ?? '') : (process.env.ARCHIVE_ADMIN_KEY ?? '')
  ).trim();
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
    limit,
    only,
    dryRun,
    asOfYear,
    server,
    key,
    json: values.json,
  };
}

function awaitRead(file: string): string | null {
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

async function api(
  args: Args,
  method: string,
  url: string,
  body?: unknown,
  raw?: Buffer,
): Promise<{ status: number; json: any }> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(`${args.server.url}${url}`, {
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
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    } catch (err) {
      // A server restarting (or briefly unreachable) is waited for; anything else is the item's failure.
      if (attempt >= 4) throw new Unreachable(unreachable(args.server, err));
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
    }
  }
}

/** The catalog's works by one composer, as duplicate keys (read from the server's listing, once per composer). */
async function catalogKeys(args: Args, composer: string, cache: Map<string, DuplicateKey[] & { titles?: never }>) {
  const k = fold(composer);
  if (cache.has(k)) return cache.get(k)! as unknown as Array<DuplicateKey & { titles: string[] }>;
  const out: Array<DuplicateKey & { titles: string[] }> = [];
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
        out.push(duplicateKey(w.slug, w.composer, [w.title], parseCatalogNumbers(`${w.title} ${w.workNumber ?? ''}`)));
      }
      if (list.length < 100) break;
    }
  } catch {
    // No server (a dry run): catalog duplicates are not checked, which the summary says.
  }
  cache.set(k, out as never);
  return out;
}

async function main(): Promise<number> {
  const args = parse();
  const started = Date.now();
  if (!args.dryRun) {
    // One look before reading the corpus: an address nothing answers at is named at once.
    try {
      await fetch(`${args.server.url}/api/v1/admin/batches`, { headers: { authorization: `Bearer ${args.key}` } });
    } catch (err) {
      throw new Unreachable(unreachable(args.server, err));
    }
  }
  const scoresDir = path.join(args.folder, 'scores');
  const files = await scoreFiles(scoresDir).catch(() =>
    usage(`${scoresDir} cannot be read; is ${args.folder} a corpus folder?`),
  );
  const kind = corpusKindOf(files.map((f) => path.basename(f)));
  if (!kind) usage(`${args.folder} holds no OpenScore score files (lc<id>.mxl or sq<id>.mxl)`);
  const read = async (name: string) =>
    parseTsv(await fs.readFile(path.join(args.folder, 'data', name), 'utf8').catch(() => ''));
  const tables = {
    composers: await read('composers.tsv'),
    scores: await read('scores.tsv'),
    sets: await read('sets.tsv'),
  };
  const index = indexTables(tables);
  // The SOURCE note names the corpus's repository ("repository: github.com/OpenScore/Lieder").
  const source = await fs.readFile(path.join(args.folder, 'SOURCE'), 'utf8').catch(() => '');
  const repo = /^repository:\s*(?:https:\/\/)?([^\s]+)/m.exec(source)?.[1];
  const corpusUrl = repo ? `https://${repo}` : 'https://github.com/OpenScore';

  // Files by id, in id order; the index's path column is never used to find them.
  const byId = new Map<string, string>();
  for (const rel of files) {
    const id = idOfFileName(kind, path.basename(rel));
    if (id && !byId.has(id)) byId.set(id, rel.normalize('NFC'));
  }
  let ids = [...byId.keys()].sort((a, b) => Number(a) - Number(b));
  const unlisted = ids.filter((id) => !index.scoreById.has(id)).length;
  if (args.only) {
    const missing = [...args.only].filter((id) => !byId.has(id));
    if (missing.length) usage(`--only names ids with no score file in the corpus: ${missing.join(', ')}`);
    ids = ids.filter((id) => args.only!.has(id));
  }
  if (args.limit !== null) ids = ids.slice(0, args.limit);

  // A slug is the composer and title, plus the score id when the corpus holds that pair twice
  // (decided from the whole index, so it never depends on which items a run picked).
  const pairCount = new Map<string, number>();
  for (const row of tables.scores) {
    const set = index.setById.get(row.set_id ?? '');
    const composer = index.composerById.get(set?.composer_id ?? '')?.name ?? '';
    const key = `${fold(composer)}|${fold(row.name ?? '')}`;
    pairCount.set(key, (pairCount.get(key) ?? 0) + 1);
  }

  const progress = new Progress(ids.length);
  const summary: ImportSummary = {
    batchId: kind.batchId,
    title: `Import of the ${kind.credit}`,
    finishedAtUtc: '',
    considered: ids.length,
    submitted: 0,
    alreadySubmitted: 0,
    duplicates: 0,
    skipped: [],
  };
  const failures: string[] = [];
  const seen: Array<DuplicateKey & { titles: string[] }> = [];
  const catalogCache = new Map();
  let planned = 0;
  let bytes = 0;
  let done = 0;
  for (const id of ids) {
    const rel = byId.get(id)!;
    let plan: ItemPlan;
    let data: Buffer;
    try {
      data = await fs.readFile(path.join(scoresDir, rel));
      bytes += data.length;
      const file: CorpusFile = {
        relPath: rel,
        id,
        sha256: createHash('sha256').update(data).digest('hex'),
        byteLength: data.length,
        facts: musicXmlFacts(musicXmlFromMxl(data)),
      };
      plan = planItem(kind, index, file, { asOfYear: args.asOfYear, stagedUrl: stagedFileUrl, corpusUrl });
      if (plan.kind === 'submit') {
        const pair = `${fold(plan.composer)}|${fold(plan.title)}`;
        const listed = index.scoreById.has(id);
        const slug = slugify(
          listed && (pairCount.get(pair) ?? 0) <= 1
            ? `${plan.composer} ${plan.title}`
            : `${plan.composer} ${plan.title} ${plan.itemKey}`,
        );
        plan.body.target = { workSlug: slug };
      }
    } catch (err) {
      summary.skipped.push({
        itemKey: `${kind.prefix}${id}`,
        title: rel,
        composer: '',
        reason: `the file cannot be read: ${(err as Error).message}`.slice(0, 500),
      });
      progress.tick(++done, `${kind.prefix}${id} unreadable`);
      continue;
    }
    if (plan.kind === 'skip') {
      summary.skipped.push({ itemKey: plan.itemKey, title: plan.title, composer: plan.composer, reason: plan.reason });
      progress.tick(++done, `${plan.itemKey} skipped`);
      continue;
    }
    planned++;
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
    const known = args.dryRun && !args.key ? [] : await catalogKeys(args, plan.composer, catalogCache);
    const duplicateOf =
      findDuplicate(
        plan.duplicate,
        known.filter((k) => k.label !== plan.body.target?.workSlug),
      ) ?? findDuplicate(plan.duplicate, seen);
    seen.push(plan.duplicate);
    if (duplicateOf) summary.duplicates++;
    if (!args.dryRun) {
      try {
        const put = await api(
          args,
          'PUT',
          `/api/v1/admin/imports/files/${plan.body.assets[0]!.sha256}`,
          undefined,
          data,
        );
        if (put.status !== 201) throw new Error(`staging the file: HTTP ${put.status} ${put.json?.detail ?? ''}`);
        const res = await api(args, 'POST', '/api/v1/admin/imports/items', { contribution: plan.body, duplicateOf });
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
    }
    progress.tick(++done, `${plan.itemKey} ${plan.title}`);
  }
  summary.finishedAtUtc = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (!args.dryRun && failures.length === 0) {
    const res = await api(args, 'PUT', `/api/v1/admin/imports/batches/${kind.batchId}/summary`, summary);
    if (res.status !== 200) failures.push(`storing the summary: HTTP ${res.status} ${res.json?.detail ?? ''}`);
  }
  const seconds = (Date.now() - started) / 1000;
  const reasons = new Map<string, number>();
  for (const s of summary.skipped) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
  const report = {
    ...summary,
    dryRun: args.dryRun,
    asOfYear: args.asOfYear,
    corpusFiles: byId.size,
    unlistedFiles: unlisted,
    planned,
    failed: failures,
    seconds,
    bytesRead: bytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    const lines = [
      `${args.dryRun ? 'Dry run' : 'Import'} of ${kind.credit} (batch ${kind.batchId}): ${ids.length} score files considered (${byId.size} in the corpus, ${unlisted} not in its index) in ${seconds.toFixed(1)} s.`,
      args.dryRun
        ? `Would submit: ${planned}.`
        : `Submitted: ${summary.submitted} new; already submitted before: ${summary.alreadySubmitted}.`,
      `Probable duplicates flagged: ${summary.duplicates}.`,
      `Skipped: ${summary.skipped.length}${summary.skipped.length ? ':' : '.'}`,
      ...[...reasons].map(([reason, n]) => `  ${n} × ${reason}`),
      ...(failures.length
        ? [`Failed: ${failures.length} (run again to retry them):`, ...failures.map((f) => `  ${f}`)]
        : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return failures.length > 0 ? 1 : 0;
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
