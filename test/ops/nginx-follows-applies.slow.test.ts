/**
 * The documented nginx deployment follows applies: Debian's nginx runs the nginx.conf the server's
 * own build wrote (ARCHIVE_DATA_DIR/current/nginx.conf, rooted at the served-build link
 * ARCHIVE_DATA_DIR/current, whose client/ and, for a layered build, base/ it tries) in front
 * of a real `npm start`. Two applies in a row (each an
 * incremental swap, a background reconcile swapping in full builds, pruning after each) are each
 * visible through nginx in the record's JSON, its Markdown and its page, while a poller reading a
 * set of pages through nginx the whole time never gets anything but 200. Then the server is killed
 * (kill -9, with its build) during a third apply: nginx keeps serving the last swapped build (the
 * link names a complete folder), and after a restart it serves the third change.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNginx, type TestNginx } from '../helpers/nginx.ts';
import { isCompleteBuild, servedBuildLink, servedBuildTarget } from '../../api/site/builds.ts';
import { layerBaseDir } from '../../src/lib/site/layers.ts';
import {
  acceptedCorrection,
  applyAsync,
  applyOutcome,
  fetchCaller,
  mergedOnMain as mergedOnMainOf,
} from '../helpers/corrections.ts';
import { dataOf, freePort, killTree, ServiceRun, type Started } from '../helpers/process.ts';

const serviceRun = new ServiceRun('pdma-nginx-follows-');
const dataDir = serviceRun.dataDir;
const KEY = 'admin-nginx-follows-1';
// A short quiet period, so background reconciles swap (and prune) while the poller reads too.
const ENV = { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: KEY, ARCHIVE_RECONCILE_DELAY_MS: '1000' };
const WORK = 'bach-prelude-in-c-bwv-846';
const PAGES = [
  '/',
  '/works/',
  `/works/${WORK}/`,
  `/api/v1/works/${WORK}`,
  `/api/v1/works/${WORK}/index.md`,
  '/search/',
  '/api/v1',
];

let running: Started | null = null;
let nginx: TestNginx | null = null;
let front = '';
const prefix = path.join(dataDir, 'nginx');

beforeAll(async () => {
  running = await serviceRun.start(ENV, 240_000);
  const generated = readFileSync(path.join(servedBuildLink(dataDir), 'nginx.conf'), 'utf8');
  // The server's build roots nginx at the link, not at its own folder (the link's folder: a
  // layered build's files are tried in client/, then in base/).
  expect(generated).toContain(`root ${path.join(dataDir, 'current')};`);
  expect(generated).toContain('try_files /client$archive_file /client$archive_file/index.html /base$archive_file');
  const port = await freePort();
  const server = generated
    .replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${port};`)
    .replaceAll('http://127.0.0.1:4321', running.url);
  nginx = await startNginx(prefix, port, server);
  front = nginx.front;
}, 300_000);

afterAll(async () => {
  await nginx?.stop();
  // The server and any build it runs.
  if (running?.child.exitCode === null) killTree(running.child.pid!);
  await serviceRun.dispose();
});

const mergedOnMain = (code: string) => mergedOnMainOf(path.join(dataDir, 'content'), code);

/** File a year correction through the server and accept it; returns its tracking code. */
const acceptedYear = (url: string, currentValue: string, proposedValue: string) =>
  acceptedCorrection(fetchCaller(url), KEY, { workSlug: WORK, fieldName: 'year', currentValue, proposedValue });

/** File, accept and apply a year correction, waiting for the apply (200: merged, rebuilt, swapped). */
async function applyAndWait(url: string, current: string, proposed: string): Promise<void> {
  const code = await acceptedYear(url, current, proposed);
  const apply = await fetchCaller(url)('POST', `/api/v1/admin/correction-reports/${code}/apply`, {
    headers: { authorization: `Bearer ${KEY}` },
    body: { reviewer: 'Dana Editor' },
  });
  expect(apply.status, apply.text).toBe(200);
  expect(apply.data.status).toBe('applied');
}

/** What nginx serves for the work now: the record's year in JSON, Markdown and HTML. */
async function throughNginx(): Promise<{ json: string; markdown: string; html: string }> {
  const json = await fetch(`${front}/api/v1/works/${WORK}`);
  const markdown = await fetch(`${front}/api/v1/works/${WORK}/index.md`);
  const html = await fetch(`${front}/works/${WORK}/`);
  expect([json.status, markdown.status, html.status]).toEqual([200, 200, 200]);
  expect(html.headers.get('server')).toMatch(/nginx/);
  return { json: String((await dataOf(json)).year), markdown: await markdown.text(), html: await html.text() };
}

/** Reads every page through nginx in a loop until stopped; any answer but 200 is kept. */
function poll(pages: string[]): { stop: () => Promise<{ reads: number; bad: string[] }> } {
  let stopped = false;
  let reads = 0;
  const bad: string[] = [];
  const loop = (async () => {
    while (!stopped) {
      for (const page of pages) {
        try {
          const res = await fetch(`${front}${page}`);
          await res.arrayBuffer();
          reads++;
          if (res.status !== 200) bad.push(`${page}: ${res.status}`);
        } catch (err) {
          bad.push(`${page}: ${(err as Error).message}`);
        }
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { reads, bad };
    },
  };
}

describe('nginx in front with the generated config', () => {
  it('shows each of two applies in a row, and no page ever answers anything but 200', async () => {
    const url = running!.url;
    expect((await throughNginx()).json).toBe('1722');
    const poller = poll(PAGES);
    const firstTarget = servedBuildTarget(servedBuildLink(dataDir));

    await applyAndWait(url, '1722', '1722 (autograph dated 1722)');
    const first = await throughNginx();
    expect(first.json).toBe('1722 (autograph dated 1722)');
    expect(first.markdown).toContain('1722 (autograph dated 1722)');
    expect(first.html).toContain('1722 (autograph dated 1722)');
    expect(servedBuildTarget(servedBuildLink(dataDir))).not.toBe(firstTarget);

    await applyAndWait(url, '1722 (autograph dated 1722)', '1722 (autograph)');
    const second = await throughNginx();
    expect(second.json).toBe('1722 (autograph)');
    expect(second.markdown).toContain('1722 (autograph)');
    expect(second.markdown).not.toContain('autograph dated');
    expect(second.html).toContain('1722 (autograph)');
    expect(second.html).not.toContain('autograph dated');
    // The first served folder was pruned meanwhile (nginx never named it), unless the folder now
    // served is a layer over it (src/lib/site/layers.ts): then it must be kept, as nginx reads it.
    const servedBase = layerBaseDir(servedBuildTarget(servedBuildLink(dataDir))!);
    expect(existsSync(firstTarget!)).toBe(servedBase === firstTarget);
    if (servedBase !== null) expect(isCompleteBuild(servedBase)).toBe(true);

    // The background reconcile swaps the incremental folder for a full build of the same commit.
    // A backstop only a hang reaches: the reconcile is a full build at low priority, which a loaded
    // machine (CI beside other work) starves for minutes.
    const until = Date.now() + 600_000;
    while (servedBuildTarget(servedBuildLink(dataDir))!.endsWith('-inc')) {
      if (Date.now() > until) throw new Error(`no reconcile within 600 s:\n${running!.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // Past the prune's deletion delay, still reading.
    await new Promise((r) => setTimeout(r, 6_000));
    const { reads, bad } = await poller.stop();
    expect(bad).toEqual([]);
    expect(reads).toBeGreaterThan(PAGES.length * 10);
    expect((await throughNginx()).json).toBe('1722 (autograph)');
    // The link is a symbolic link to a complete folder under builds/ (no stray temporary link).
    expect(lstatSync(servedBuildLink(dataDir)).isSymbolicLink()).toBe(true);
    expect(path.dirname(servedBuildTarget(servedBuildLink(dataDir))!)).toBe(path.join(dataDir, 'builds'));
  }, 1_200_000);

  it('sends /mcp and the search page with a query string to Node, the bare search page from the build', async () => {
    const mcp = await fetch(`${front}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'nginx-test', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain('"serverInfo"');
    const rendered = await fetch(`${front}/search/?query=bwv1007`);
    expect(rendered.status).toBe(200);
    expect(await rendered.text()).toContain('1 work found for “bwv1007”.');
    const unslashed = await fetch(`${front}/search?query=bwv1007`);
    expect(unslashed.url).toBe(`${front}/search/?query=bwv1007`);
    expect(await unslashed.text()).toContain('1 work found for “bwv1007”.');
    const plain = await fetch(`${front}/search/`);
    expect(plain.status).toBe(200);
    expect(await plain.text()).toContain('<ol id="search-results" class="results"></ol>');
  });

  it("passes the server's cache policy on proxied answers once, and uses the same one on the build's files", async () => {
    for (const url of ['/api/v1/works?query=bach', '/search/?query=bwv1007', '/api/v1/works/no-such-work-here']) {
      const proxied = await fetch(`${front}${url}`);
      const direct = await fetch(`${running!.url}${url}`);
      expect(proxied.status, url).toBe(direct.status);
      expect(proxied.headers.get('cache-control'), url).toBe(direct.headers.get('cache-control'));
      expect(proxied.headers.get('cache-control'), url).not.toContain('stale-while-revalidate');
    }
    for (const url of [`/api/v1/works/${WORK}`, `/works/${WORK}/`]) {
      const fromNginx = await fetch(`${front}${url}`);
      const direct = await fetch(`${running!.url}${url}`);
      expect(fromNginx.headers.get('cache-control'), url).toBe(direct.headers.get('cache-control'));
    }
  });

  it('after kill -9 during an apply nginx serves the last complete build, and the next start moves it on', async () => {
    const url = running!.url;
    const code = await acceptedYear(url, '1722 (autograph)', '1722 (autograph, Koethen)');
    const apply = await applyAsync(fetchCaller(url), KEY, code);
    expect(apply.status, apply.text).toBe(202);
    // Kill the server and its build once the merge is on main (the rebuild and swap follow).
    const deadline = Date.now() + 60_000;
    while (!mergedOnMain(code)) {
      if (Date.now() > deadline) throw new Error(`no merge of ${code} within 60 s:\n${running!.output()}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    killTree(running!.child.pid!);
    await running!.stop('SIGKILL');
    running = null;

    const target = servedBuildTarget(servedBuildLink(dataDir));
    expect(target && isCompleteBuild(target)).toBe(true);
    // Every page of the list is a static file: nginx answers them with the server down.
    for (const page of PAGES) {
      const res = await fetch(`${front}${page}`);
      await res.arrayBuffer();
      expect({ page, status: res.status }).toEqual({ page, status: 200 });
    }

    running = await serviceRun.start(ENV, 300_000);
    const item = await applyOutcome(fetchCaller(running.url), KEY, code, 180_000, running.output);
    expect(item.apply?.state, `after restart: ${JSON.stringify(item)}\n${running.output()}`).toBe('visible');
    const after = await throughNginx();
    expect(after.json).toBe('1722 (autograph, Koethen)');
    expect(after.html).toContain('1722 (autograph, Koethen)');
  }, 600_000);
});
