/**
 * A correction report through the public API, the way a reader and an editor make one: file it
 * (202), accept it (200), apply it. One client over either transport: `inject` into an app in
 * this process, or `fetch` to a listening server.
 */
import { execFileSync } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export interface Answer {
  status: number;
  /** The raw body, for assertion messages. */
  text: string;
  /** The answer's `data` member, or the whole JSON body when it has none ({} when not JSON). */
  data: Record<string, any>;
}

export type Caller = (
  method: 'GET' | 'POST',
  url: string,
  options?: { headers?: Record<string, string>; body?: unknown },
) => Promise<Answer>;

function answer(status: number, text: string): Answer {
  let data: Record<string, any> = {};
  try {
    const parsed = JSON.parse(text) as { data?: Record<string, any> } & Record<string, any>;
    data = parsed.data ?? parsed;
  } catch {
    // not JSON: `data` stays empty, `text` has the body
  }
  return { status, text, data };
}

const jsonHeaders = (body: unknown, headers: Record<string, string> = {}) =>
  body === undefined ? headers : { 'content-type': 'application/json', ...headers };

export function injectCaller(app: FastifyInstance): Caller {
  return following(async (method, url, options = {}) => {
    const res = await app.inject({
      method,
      url,
      headers: jsonHeaders(options.body, options.headers),
      ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
    });
    return answer(res.statusCode, res.body);
  });
}

export function fetchCaller(baseUrl: string): Caller {
  return following(async (method, url, options = {}) => {
    const res = await fetch(`${baseUrl}${url}`, {
      method,
      headers: jsonHeaders(options.body, options.headers),
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    return answer(res.status, await res.text());
  });
}

/**
 * A review action or an apply that runs past the POST's wait answers 202 (docs/review.md, "Long
 * actions are action records"); a client that did not ask for that (no `Prefer`) follows it to
 * its outcome, and so does this caller: the answer is then what the POST would have answered in
 * time (the item, 200; or the problem: an action's own, or an apply's 409 with its error).
 */
function following(raw: Caller): Caller {
  return async (method, url, options = {}) => {
    const first = await raw(method, url, options);
    if (method !== 'POST' || first.status !== 202 || options.headers?.prefer !== undefined) return first;
    const headers: Record<string, string> = options.headers?.authorization
      ? { authorization: options.headers.authorization }
      : {};
    const path = (href: string) => new URL(href).pathname;
    const pause = () => new Promise((r) => setTimeout(r, 250));
    if (typeof first.data.actionId === 'string') {
      let action = first.data;
      for (let n = 0; action.state === 'running' && n < 14_400; n++) {
        await pause();
        action = (await raw('GET', path(action.links.self), { headers })).data;
      }
      if (action.state === 'completed') return raw('GET', path(action.links.item), { headers });
      return { status: Number(action.error?.status) || 409, text: JSON.stringify(action.error), data: action.error };
    }
    if (first.data.apply?.state === 'applying' && typeof first.data.links?.admin === 'string') {
      let item = first;
      for (let n = 0; item.data.apply?.state === 'applying' && n < 14_400; n++) {
        await pause();
        item = await raw('GET', path(first.data.links.admin), { headers });
      }
      if (item.data.apply?.state !== 'failed') return item;
      const problem = { status: 409, detail: String(item.data.review?.lastError?.message ?? 'the apply failed') };
      return { status: 409, text: JSON.stringify(problem), data: problem };
    }
    return first;
  };
}

export interface CorrectionFields {
  workSlug: string;
  fieldName: string;
  currentValue: string;
  proposedValue: string;
  rationale?: string;
  /** Default: none, except for a rights fact (a date, a first publication), which needs evidence. */
  evidenceUrl?: string | null;
}

const FACT_FIELD = /(?:^|\.)(?:born|died|firstPublished|worksPublishedBy)$/;

/** A complete correction report body from a human reader. */
export function correctionReport(fields: CorrectionFields): Record<string, unknown> {
  return {
    targetType: 'work',
    rationale: 'Checked against the source.',
    evidenceUrl: FACT_FIELD.test(fields.fieldName) ? 'https://example.org/evidence/the-checked-source' : null,
    reporterName: 'Cleo',
    reporterKind: 'Human',
    ...fields,
  };
}

/** File a report (expects 202) and return its tracking code. */
export async function fileCorrection(call: Caller, fields: CorrectionFields): Promise<string> {
  const res = await call('POST', '/api/v1/correction-reports', { body: correctionReport(fields) });
  expect(res.status, res.text).toBe(202);
  return res.data.trackingCode as string;
}

/** File a report and accept it as `reviewer` (expects 202 then 200); returns the tracking code. */
export async function acceptedCorrection(
  call: Caller,
  adminKey: string,
  fields: CorrectionFields,
  reviewer = 'Dana Editor',
): Promise<string> {
  const code = await fileCorrection(call, fields);
  const accept = await call('POST', `/api/v1/admin/correction-reports/${code}/accept`, {
    headers: { authorization: `Bearer ${adminKey}` },
    body: { reviewer },
  });
  expect(accept.status, accept.text).toBe(200);
  return code;
}

/** File a report, accept and apply it as `reviewer` (expects 202, 200, 200); returns the tracking code. */
export async function appliedCorrection(
  call: Caller,
  adminKey: string,
  fields: CorrectionFields,
  reviewer = 'Dana Editor',
): Promise<string> {
  const code = await acceptedCorrection(call, adminKey, fields, reviewer);
  const applied = await call('POST', `/api/v1/admin/correction-reports/${code}/apply`, {
    headers: { authorization: `Bearer ${adminKey}` },
    body: { reviewer },
  });
  expect(applied.status, applied.text).toBe(200);
  return code;
}

/** Ask for the apply of an accepted report to answer at once (`Prefer: respond-async`). */
export function applyAsync(
  call: Caller,
  adminKey: string,
  code: string,
  body: Record<string, unknown> = { reviewer: 'Dana Editor' },
): Promise<Answer> {
  return call('POST', `/api/v1/admin/correction-reports/${code}/apply`, {
    headers: { authorization: `Bearer ${adminKey}`, prefer: 'respond-async' },
    body,
  });
}

/**
 * File and accept a report, then ask for its apply to answer at once (expects 202): the tracking
 * code and that answer (the item, applying).
 */
export async function applyingCorrection(
  call: Caller,
  adminKey: string,
  fields: CorrectionFields,
): Promise<{ code: string; apply: Answer }> {
  const code = await acceptedCorrection(call, adminKey, fields);
  const apply = await applyAsync(call, adminKey, code);
  expect(apply.status, apply.text).toBe(202);
  return { code, apply };
}

/**
 * The admin view of the report `code` once its apply has left "applying" (visible or failed),
 * read through `call` every 100 ms; throws after `ms` with `context()` (a server's output, say).
 */
export async function applyOutcome(
  call: Caller,
  adminKey: string,
  code: string,
  ms: number,
  context: () => string = () => '',
): Promise<Record<string, any>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const item = (
      await call('GET', `/api/v1/admin/correction-reports/${code}`, {
        headers: { authorization: `Bearer ${adminKey}` },
      })
    ).data;
    if (item.apply?.state !== 'applying') return item;
    if (Date.now() > deadline)
      throw new Error(`${code} still applying after ${ms} ms: ${JSON.stringify(item.apply)}\n${context()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Has the change with this tracking code been merged onto main of `contentRepo` (a commit names it)? */
export function mergedOnMain(contentRepo: string, code: string): boolean {
  try {
    const log = execFileSync(
      'git',
      ['-C', contentRepo, 'log', '--format=%H', '--fixed-strings', `--grep=Tracking-Code: ${code}`, 'main'],
      { encoding: 'utf8' },
    );
    return log.trim() !== '';
  } catch {
    return false;
  }
}
