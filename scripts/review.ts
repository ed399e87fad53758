/**
 * Review contributions and correction reports from the command line, against a running server:
 *
 *   npm run review -- list [--status pending,accepted] [--kind contribution|correction-report] [--page N]
 *   npm run review -- show <code>       the submission, checks, history and the proposed change as a diff
 *   npm run review -- accept|request-information|apply|decline <code> [--note "..."] [--reviewer "Name"]
 *                     [--assert <assetIndex>=<reviewState>]... [--assert arrangement=<reviewState>]
 *
 * Options: --server URL (else ARCHIVE_BASE_URL, else http://localhost:4321), --key-file <file>, --json (raw answers).
 * The admin key comes from ARCHIVE_ADMIN_KEY or --key-file, never from the command line.
 * The reviewer defaults to ARCHIVE_REVIEWER. Exit code 0 on success, 1 on a refused action, 2 on usage errors.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { serverAddress, unreachable } from './lib/server-address.ts';

const ACTIONS = ['accept', 'request-information', 'apply', 'decline'] as const;
const USAGE = `usage: npm run review -- list [--status S,S] [--kind K] [--page N] | show <code> | ${ACTIONS.join('|')} <code> [--note TEXT] [--reviewer NAME] [--assert INDEX=STATE]... [--server URL] [--key-file FILE] [--json]`;

function usage(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      server: { type: 'string' },
      'key-file': { type: 'string' },
      note: { type: 'string' },
      reviewer: { type: 'string' },
      assert: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      status: { type: 'string' },
      kind: { type: 'string' },
      page: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [command, code] = positionals;
  if (!command) usage('missing command');
  const key = (
    values['key-file'] ? readFileSync(values['key-file'], 'utf8') : (process.env.ARCHIVE_ADMIN_KEY ?? '')
  ).trim();
  if (!key)
    usage('no admin key: set ARCHIVE_ADMIN_KEY or pass --key-file <file> (keys are never taken from the command line)');
  const address = serverAddress(values.server);
  const server = address.url;
  const fetch = (url: string, init?: RequestInit) =>
    globalThis.fetch(url, init).catch((err: unknown) => {
      throw new Error(unreachable(address, err));
    });
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
  const segment = (c: string) => (/^r/i.test(c) ? 'correction-reports' : 'contributions');

  let res: Response;
  if (command === 'list') {
    const query = new URLSearchParams();
    for (const name of ['status', 'kind', 'page'] as const)
      if (values[name] !== undefined) query.set(name, values[name]);
    res = await fetch(`${server}/api/v1/admin/queue${query.size > 0 ? `?${query}` : ''}`, { headers });
  } else if (command === 'show') {
    if (!code) usage('show needs a tracking code');
    res = await fetch(`${server}/api/v1/admin/${segment(code)}/${encodeURIComponent(code)}`, { headers });
  } else if ((ACTIONS as readonly string[]).includes(command)) {
    if (!code) usage(`${command} needs a tracking code`);
    const reviewer = values.reviewer ?? process.env.ARCHIVE_REVIEWER;
    if (!reviewer) usage('name the accountable reviewer with --reviewer or ARCHIVE_REVIEWER');
    const assets: Array<{ index: number; reviewState: string }> = [];
    let arrangement: string | undefined;
    for (const a of values.assert ?? []) {
      const m = /^(\d+|arrangement)=([a-z-]+)$/.exec(a);
      if (!m) usage(`--assert must be INDEX=STATE or arrangement=STATE (got "${a}")`);
      if (m[1] === 'arrangement') arrangement = m[2];
      else assets.push({ index: Number(m[1]), reviewState: m[2]! });
    }
    const body = {
      reviewer,
      ...(values.note !== undefined ? { note: values.note } : {}),
      ...(assets.length > 0 || arrangement
        ? { assert: { ...(assets.length > 0 ? { assets } : {}), ...(arrangement ? { arrangement } : {}) } }
        : {}),
    };
    const itemUrl = `${server}/api/v1/admin/${segment(code)}/${encodeURIComponent(code)}`;
    res = await fetch(`${itemUrl}/${command}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    // A long action answers 202: follow it (its progress on stderr) until it has an outcome.
    if (res.status === 202) res = await follow(res, itemUrl);
  } else {
    usage(`unknown command "${command}"`);
  }

  /** Poll a running action (or an apply in progress) until it finishes; the answer is then the item, or the action's problem. */
  async function follow(first: Response, itemUrl: string): Promise<Response> {
    const started = ((await first.json()) as { data: Record<string, unknown> }).data;
    const actionUrl =
      typeof started.actionId === 'string' ? String((started.links as Record<string, unknown>).self) : null;
    let last = '';
    // Bounded: a day of polls once a second.
    for (let n = 0; n < 86_400; n++) {
      await new Promise((r) => setTimeout(r, 1000));
      if (actionUrl) {
        const a = ((await (await fetch(actionUrl, { headers })).json()) as { data: Record<string, any> }).data;
        const line = `${String(a.action)} ${code}: ${String(a.progress.step)} (${String(a.progress.done)} of ${String(a.progress.total)} steps)`;
        if (line !== last) process.stderr.write(`${line}\n`);
        last = line;
        if (a.state === 'failed')
          return new Response(JSON.stringify(a.error), { status: Number(a.error?.status) || 409 });
        if (a.state === 'completed') return fetch(itemUrl, { headers });
      } else {
        const item = await fetch(itemUrl, { headers });
        const data = ((await item.clone().json()) as { data: Record<string, any> }).data;
        if (data.apply?.state !== 'applying') return item;
        if (last === '') process.stderr.write(`applying ${code}: merging and rebuilding...\n`);
        last = 'applying';
      }
    }
    return fetch(itemUrl, { headers });
  }

  const text = await res.text();
  const answer = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!res.ok) {
    process.stderr.write(`${res.status} ${String(answer.title ?? '')}: ${String(answer.detail ?? text)}\n`);
    return 1;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  }
  const data = answer.data as Record<string, unknown>;
  if (command === 'list') {
    const items = data.items as Array<Record<string, unknown>>;
    if (items.length === 0)
      process.stdout.write(
        Number(data.total) === 0
          ? 'The review queue is empty.\n'
          : `Page ${String(data.page)} is past the last page (${String(data.totalPages)}).\n`,
      );
    for (const i of items)
      process.stdout.write(
        `${String(i.trackingCode)}  ${String(i.status).padEnd(17)}  ${String(i.receivedAtUtc)}  ${String(i.summary)}${Number(i.blockers) > 0 ? `  [${String(i.blockers)} blocker(s)]` : ''}\n`,
      );
    if (Number(data.totalPages) > 1)
      process.stdout.write(
        `page ${String(data.page)} of ${String(data.totalPages)} (${String(data.total)} items; --page N for more)\n`,
      );
    return 0;
  }
  const review = data.review as Record<string, unknown>;
  const link = review.review as Record<string, unknown> | null;
  process.stdout.write(
    `${String(data.trackingCode)}: ${String(data.status)} (changedCanonicalData: ${String(data.changedCanonicalData)})\n`,
  );
  if (command === 'show') writeSubmission(data);
  if (link) process.stdout.write(`review: ${String(link.url ?? link.branch)}\n`);
  for (const v of review.verification as Array<Record<string, unknown>>) {
    const checks = v.checks as Record<string, unknown> | null;
    process.stdout.write(
      `asset ${String(v.index)}: ${String(v.status)}${v.reason ? ` (${String(v.reason)})` : ''}${checks ? ` — checks ${checks.passed ? 'passed' : 'FAILED'}: ${String(checks.summary)}` : ''}\n`,
    );
  }
  for (const b of review.blockers as string[]) process.stdout.write(`blocker: ${b}\n`);
  for (const w of (review.warnings as string[] | undefined) ?? []) process.stdout.write(`warning: ${w}\n`);
  const err = review.lastError as Record<string, unknown> | null;
  if (err) process.stdout.write(`last error (${String(err.atUtc)}): ${String(err.message).split('\n')[0]}\n`);
  if (command === 'show') {
    writeHistory(data);
    writeDiff(review.diff as Diff | null | undefined);
  }
  return 0;
}

/** One line of submitted text: control characters shown as spaces (a terminal never interprets them). */
const line = (value: unknown) =>
  String(value ?? '')
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .trim();

/** `show`: the submission in a few readable lines (the desk shows the same record in full). */
function writeSubmission(data: Record<string, unknown>): void {
  const s = data.submission as Record<string, any>;
  const out: string[] = [`received ${line(data.receivedAtUtc)}, last change ${line(data.updatedAtUtc)}`];
  if (data.kind === 'contribution') {
    const by = s.submittedBy ?? {};
    out.push(
      `submitted by: ${line(by.name)} (${line(by.kind)}${by.agentName ? `, ${line(by.agentName)} ${line(by.agentVersion)}` : ''})${by.contact ? ` <${line(by.contact)}>` : ''}`,
    );
    out.push(
      `proposes: ${line(s.operation)} for ${line(s.target?.workSlug ?? 'a new record')}${s.arrangement?.title ? `: ${line(s.arrangement.title)}` : ''}`,
    );
    out.push(`summary: ${line(s.changeSummary)}`);
    if (s.rationale) out.push(`rationale: ${line(s.rationale)}`);
    for (const [i, a] of ((s.assets ?? []) as Array<Record<string, unknown>>).entries()) {
      out.push(
        `file ${i}: ${line(a.kind)} "${line(a.title)}" ${line(a.downloadUrl ?? a.sourcePageUrl)} sha256 ${line(a.sha256 ?? 'not declared')}`,
      );
    }
  } else {
    out.push(
      `reported by: ${line(s.reporterName ?? 'anonymous')}${s.reporterKind ? ` (${line(s.reporterKind)})` : ''}`,
    );
    out.push(
      `field: ${line(s.fieldName)} of ${line(s.workSlug ?? s.targetType)}${s.targetId != null ? ` #${line(s.targetId)}` : ''}`,
    );
    out.push(`current: ${line(s.currentValue)}`);
    out.push(`proposed: ${line(s.proposedValue)}`);
    if (s.rationale) out.push(`rationale: ${line(s.rationale)}`);
    if (s.evidenceUrl) out.push(`evidence: ${line(s.evidenceUrl)}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

function writeHistory(data: Record<string, unknown>): void {
  const history = (data.history as Array<Record<string, unknown>> | undefined) ?? [];
  process.stdout.write('history:\n');
  for (const h of history)
    process.stdout.write(
      `  ${line(h.atUtc)}  ${line(h.status).padEnd(17)}  ${line(h.actor ?? '-')}  ${line(h.note ?? '')}\n`,
    );
}

interface Diff {
  base: string;
  head: string;
  files: Array<{ path: string; added: number | null; deleted: number | null }>;
  moreFiles: number;
  text: string;
  truncated: boolean;
  maxBytes: number;
}

/** `show`: the proposed change, as git prints it (bounded by the server). */
function writeDiff(diff: Diff | null | undefined): void {
  if (!diff) {
    process.stdout.write('diff: none yet (accept opens the review branch)\n');
    return;
  }
  process.stdout.write(
    `diff ${diff.base.slice(0, 12)}..${diff.head.slice(0, 12)} (${diff.files.length + diff.moreFiles} file(s)):\n`,
  );
  for (const f of diff.files)
    process.stdout.write(`  ${f.path}  ${f.added === null ? 'binary' : `+${f.added} -${String(f.deleted)}`}\n`);
  // Control characters (an escape sequence in contributed text) are shown as "?", never sent to the terminal.
  const text = diff.text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
  process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  if (diff.truncated)
    process.stdout.write(`[diff cut after ${diff.maxBytes} bytes; see the review branch for the rest]\n`);
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`review: ${err.message}\n`);
    process.exit(1);
  },
);
