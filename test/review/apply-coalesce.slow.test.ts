/**
 * Several applies in a row coalesce, over a real loopback socket: while one
 * apply's build runs, the applies that arrive wait, then merge together and share the next build
 * (fewer builds than applies: the admin records say which build served each, and the build
 * metric counts them); each item becomes `visible` when the build with its merge is served, and
 * the public tracking page says so. A failed shared build resets only what fails alone.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../api/config.ts';
import { git } from '../../api/site/content-repo.ts';
import { acceptedCorrection, applyAsync as applyAsyncCall, fetchCaller } from '../helpers/corrections.ts';
import { gatedWritableApps } from '../helpers/writable-app.ts';

const KEY = 'admin-apply-coalesce-1';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const WORK = 'bach-minuet-in-g';

const apps = gatedWritableApps('pdma-apply-coalesce-', KEY, { work: WORK, listen: true });
afterEach(() => apps.closeAll());
async function setUp() {
  const current = await apps.open();
  return { ...current, base: current.url! };
}

async function call(base: string, url: string, init: RequestInit = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}${url}`, init);
  return { status: res.status, body: await res.text() };
}

const data = (body: string) => {
  const parsed = JSON.parse(body) as { data?: Record<string, unknown> } & Record<string, unknown>;
  return (parsed.data ?? parsed) as Record<string, any>;
};

const acceptedReport = (base: string, fieldName: string, currentValue: string, proposedValue: string) =>
  acceptedCorrection(fetchCaller(base), KEY, { workSlug: WORK, fieldName, currentValue, proposedValue });

async function applyAsync(base: string, code: string): Promise<void> {
  const res = await applyAsyncCall(fetchCaller(base), KEY, code);
  expect(res.status, res.text).toBe(202);
  expect(res.data.apply.state).toBe('applying');
}

/** Poll the admin view until the apply left "applying" (bounded). */
async function settled(base: string, code: string): Promise<Record<string, any>> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const item = data((await call(base, `/api/v1/admin/correction-reports/${code}`, { headers: auth })).body);
    if (item.apply?.state !== 'applying') return item;
    if (Date.now() > deadline) throw new Error(`${code} still applying: ${JSON.stringify(item.apply)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** "served in the build of <commit>" from the item's last apply outcome. */
const servedBy = (item: Record<string, any>) =>
  /served in the build of ([0-9a-f]{12})/.exec(item.review.actions.at(-1).outcome)?.[1] ?? null;

describe('applies in a row', () => {
  it('three applies in quick succession all become visible with two builds: the two that waited share one', async () => {
    const { app, base, config, rebuilder } = await setUp();
    const first = await acceptedReport(base, 'title', 'Minuet in G major', 'Minuet in G major (coalesced)');
    const second = await acceptedReport(base, 'composer.died', '1733-07-25', '1733-07-26');
    const third = await acceptedReport(
      base,
      'summary',
      'A short keyboard minuet from the 1725 Notebook for Anna Magdalena Bach.',
      'A short keyboard minuet, coalesced.',
    );

    await applyAsync(base, first);
    // The first is merged and its build is running (held at the gate): the next two arrive now.
    await until('the first build', () => rebuilder.calls === 1);
    await applyAsync(base, second);
    await applyAsync(base, third);
    rebuilder.open();
    const items = [await settled(base, first), await settled(base, second), await settled(base, third)];
    for (const item of items) {
      expect(item.status, JSON.stringify(item.review.lastError)).toBe('applied');
      expect(item.apply.state).toBe('visible');
      expect(Date.parse(item.apply.visibleAtUtc)).toBeGreaterThanOrEqual(Date.parse(item.apply.requestedAtUtc));
    }
    // Fewer builds than applies: the first alone, the other two in one build of main's head.
    expect(rebuilder.calls).toBe(2);
    const metrics = await app.archive.metricsText();
    expect(metrics.body).toMatch(/^archive_build_duration_seconds_count\{outcome="ok"\} 2$/m);
    const head = await git(config.contentRepo, ['rev-parse', 'main']);
    expect(servedBy(items[0]!)).toBe(items[0]!.review.appliedCommit.slice(0, 12));
    expect(servedBy(items[1]!)).toBe(head.slice(0, 12));
    expect(servedBy(items[2]!)).toBe(head.slice(0, 12));
    expect(items[1]!.review.actions.at(-1).outcome).toContain('one build for 2 applies');
    // Each its own merge commit on main, in order.
    expect(items[2]!.review.appliedCommit).toBe(head);
    expect(items[1]!.review.appliedCommit).not.toBe(items[2]!.review.appliedCommit);
    // All three changes are served.
    const work = data((await call(base, `/api/v1/works/${WORK}`)).body);
    expect(work.title).toBe('Minuet in G major (coalesced)');
    expect(work.composer.died).toBe('1733-07-26');
    expect(work.summary).toBe('A short keyboard minuet, coalesced.');
    // The public tracking page says when each became visible.
    const page = await call(base, `/track/${second}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<dt>Publication</dt><dd>Visible on the site since ');
    const tracked = data((await call(base, `/api/v1/correction-reports/${second}`)).body);
    expect(tracked.apply).toEqual(items[1]!.apply);
  }, 300_000);

  it('a shared build that fails is undone, and only the apply that fails alone is recorded failed', async () => {
    const { base, config, rebuilder } = await setUp();
    const first = await acceptedReport(base, 'title', 'Minuet in G major', 'Minuet in G major (first)');
    const good = await acceptedReport(base, 'composer.died', '1733-07-25', '1733-07-26');
    const bad = await acceptedReport(
      base,
      'summary',
      'A short keyboard minuet from the 1725 Notebook for Anna Magdalena Bach.',
      'Breaks the build.',
    );
    // Any build whose main holds the bad summary fails.
    rebuilder.failWhen = (file) => file.includes('Breaks the build.');
    await applyAsync(base, first);
    await until('the first build', () => rebuilder.calls === 1);
    await applyAsync(base, good);
    await applyAsync(base, bad);
    const failing = await call(base, `/track/${bad}`);
    expect(failing.body).toContain('<dt>Publication</dt><dd>Being applied since ');
    rebuilder.open();
    const [a, b, c] = [await settled(base, first), await settled(base, good), await settled(base, bad)];
    expect(a.apply.state).toBe('visible');
    expect(b.status, JSON.stringify(b.review.lastError)).toBe('applied');
    expect(b.apply.state).toBe('visible');
    expect(c.status).toBe('accepted');
    expect(c.apply).toMatchObject({ state: 'failed', visibleAtUtc: null });
    expect(c.review.lastError.message).toContain('simulated build failure');
    // first alone, good + bad together (failed), then good alone, then bad alone (failed).
    expect(rebuilder.calls).toBe(4);
    // main holds the two that were applied, not the failed one; the served record agrees.
    expect(await git(config.contentRepo, ['rev-parse', 'main'])).toBe(b.review.appliedCommit);
    const onMain = readFileSync(path.join(config.contentRepo, 'works', WORK, 'index.md'), 'utf8');
    expect(readFileSync(path.join(config.contentRepo, 'people', 'petzold-christian.json'), 'utf8')).toContain(
      '"died": "1733-07-26"',
    );
    expect(onMain).not.toContain('Breaks the build.');
    const work = data((await call(base, `/api/v1/works/${WORK}`)).body);
    expect(work.title).toBe('Minuet in G major (first)');
    expect(work.composer.died).toBe('1733-07-26');
    expect(work.summary).not.toBe('Breaks the build.');
    const page = await call(base, `/track/${bad}`);
    expect(page.body).toContain('<dt>Publication</dt><dd>Could not be published (');
  }, 300_000);
});
