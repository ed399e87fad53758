/**
 * Curator publication with the apply's machinery: the work file is read from
 * HEAD and the commit written with git plumbing (a temporary index, `commit-tree`), only the
 * changed work is linted, and the build runs in the rebuilder's persistent checkout moved to the
 * new commit. No `git worktree add` of the whole tree: the content repository's worktree list
 * stays as it was and nothing is left under ARCHIVE_DATA_DIR/worktrees but the persistent
 * checkout. The commit's tree is exactly the one the old path wrote (HEAD's tree with the work
 * file as `addArrangementToWorkFile` edits it), and a change that breaks the content lint is
 * refused with the same problem detail.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { ensureBuild, readBuildInfo } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { checkEligibility } from '../../src/domain/library/eligibility.ts';
import { addArrangementToWorkFile, buildArrangement } from '../../src/domain/library/publication.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { CUR, KEY_ENV, fileInput, importAndCommit, importInput, track } from './library-helpers.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-publish-plumbing-'));
const BASE = 'https://publish-plumbing.example.test';
const config = loadConfig({ ARCHIVE_DATA_DIR: root, PUBLIC_BASE_URL: BASE, ...KEY_ENV }, PROJECT_ROOT);
const repo = config.contentRepo;
const WORK = 'works/bach-minuet-in-g/index.md';
let app: FastifyInstance;

/** A file as a commit holds it, byte for byte (the git helper trims its output). */
const show = (commit: string, file: string) => execFileSync('git', ['-C', repo, 'show', `${commit}:${file}`]);
/** The content repository's registered worktrees (their folders). */
const worktreeList = async () =>
  (await git(repo, ['worktree', 'list', '--porcelain'])).split('\n').filter((l) => l.startsWith('worktree '));

beforeAll(async () => {
  const seeded = await ensureContentRepo(repo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  const handle = await SiteHandle.open(await ensureBuild(config, seeded.head));
  app = await createApp({ config, handle });
});
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

const inject = async (
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  headers: Record<string, string> = {},
  payload?: unknown,
) => {
  const res = await app.inject({
    method,
    url,
    headers,
    ...(payload !== undefined ? { payload: payload as string } : {}),
  });
  return res;
};
const t = {
  request: (o: { method?: string; url: string; headers?: Record<string, string>; payload?: unknown }) =>
    inject((o.method ?? 'GET') as 'GET', o.url, o.headers, o.payload),
} as unknown as Parameters<typeof importAndCommit>[0];

describe('publication with git plumbing', () => {
  it('refuses a change that breaks the content lint with the same problem detail, and changes nothing', async () => {
    // A URL `new URL()` accepts (eligibility) but the catalog's "uri" format does not (the content check).
    const evidence = {
      workSlug: 'bach-minuet-in-g',
      evidenceUrls: ['https://example.org/evidence page'],
      instrumentation: 'Piano',
    };
    const b = randomBytes(400);
    await importAndCommit(t, importInput([fileInput(b)], {}, { stableKey: 'breaks-lint', rightsEvidence: evidence }), [
      b,
    ]);
    const head = await git(repo, ['rev-parse', 'HEAD']);
    const worktrees = await worktreeList();
    const res = await inject('POST', '/api/v1/library/tracks/breaks-lint/publish', CUR);
    expect(res.statusCode, res.body).toBe(422);
    const problem = res.json();
    expect(problem.type).toBe(`${BASE}/problems/publication-refused`);
    expect(problem.reasons).toEqual([
      {
        condition: 'content-check',
        detail:
          'works/bach-minuet-in-g/index.md: /arrangements/1/assets/0/sourcePageUrl: must be an absolute URI (got "https://example.org/evidence page")',
      },
    ]);
    expect(problem.detail).toBe(
      'The package is not eligible for publication (1 failed condition(s)): works/bach-minuet-in-g/index.md: /arrangements/1/assets/0/sourcePageUrl: must be an absolute URI (got "https://example.org/evidence page")',
    );
    expect(await git(repo, ['rev-parse', 'HEAD'])).toBe(head);
    expect(await git(repo, ['status', '--porcelain'])).toBe('');
    expect(await worktreeList()).toEqual(worktrees);
    expect(readdirSync(path.join(root, 'worktrees')).filter((n) => !n.endsWith('-checkout'))).toEqual([]);
  });

  it('commits the tree the old path wrote, builds in the persistent checkout, and adds no worktree', async () => {
    const wav = randomBytes(12_000);
    const input = importInput([fileInput(wav)], {}, { stableKey: 'plumbing-bed' });
    const { imp } = await importAndCommit(t, input, [wav]);
    const before = await git(repo, ['rev-parse', 'HEAD']);
    const worktrees = await worktreeList();
    // git runs post-checkout for every checkout in the content repository, `git worktree add` included.
    const checkouts = path.join(root, 'post-checkout.log');
    writeFileSync(path.join(repo, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\necho "$@" >> "${checkouts}"\n`, {
      mode: 0o755,
    });

    const res = await inject('POST', '/api/v1/library/tracks/plumbing-bed/publish', CUR);
    expect(res.statusCode, res.body).toBe(200);
    const publication = res.json().data.publication as { commit: string; publishedAtUtc: string };
    const head = await git(repo, ['rev-parse', 'HEAD']);
    expect(publication.commit).toBe(head);
    expect(await git(repo, ['rev-parse', 'HEAD^'])).toBe(before);
    expect(await git(repo, ['log', '-1', '--format=%an <%ae>|%cn|%s'])).toBe(
      'ada <ada@curators.archive.invalid>|Archive Service|Publish library track plumbing-bed as arrangement 2 of bach-minuet-in-g',
    );
    expect(await git(repo, ['log', '-1', '--format=%b'])).toBe(
      [
        'Curator: ada',
        'Library track: plumbing-bed',
        `Import: ${imp.id}`,
        'Files: 1 blob reference(s) from the library store, no re-upload',
      ].join('\n'),
    );

    // The old path: HEAD's whole tree loaded, the work file edited by addArrangementToWorkFile.
    const tree = mkdtempSync(path.join(os.tmpdir(), 'pdma-publish-tree-'));
    try {
      execFileSync('sh', ['-c', `git -C "${repo}" archive ${before} | tar -x -C "${tree}"`]);
      const works = new Map(loadCatalog(tree).catalog.works.map((w) => [w.content.slug, w.content]));
      const verdict = checkEligibility({
        track: track({ stableKey: 'plumbing-bed' }),
        files: [
          {
            id: imp.files[0].id,
            kind: 'wav',
            contentType: 'audio/wav',
            fileName: 'bed.wav',
            byteLength: wav.length,
            sha256: fileInput(wav).sha256,
          },
        ],
        findWork: (slug) => works.get(slug) ?? null,
      });
      const draft = buildArrangement({
        track: track({ stableKey: 'plumbing-bed' }),
        plan: verdict.plan!,
        curator: 'ada',
        nowUtc: publication.publishedAtUtc,
      });
      const expected = addArrangementToWorkFile(readFileSync(path.join(tree, WORK), 'utf8'), draft.arrangement);
      expect(show(head, WORK).toString('utf8')).toBe(expected);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
    // Only that file differs, so the tree is HEAD's with it: the old path's tree.
    expect(await git(repo, ['diff', '--name-only', before, head])).toBe(WORK);

    // No checkout of the whole tree: the worktree list is as it was, the temporary index and
    // partial copy are gone, and the build ran in the rebuilder's persistent checkout (at the commit).
    expect(existsSync(checkouts)).toBe(false);
    expect(await worktreeList()).toEqual(worktrees);
    // (Persistent checkouts only: a reconcile, when one runs, would add its own.)
    expect(readdirSync(path.join(root, 'worktrees')).filter((n) => !n.endsWith('-checkout'))).toEqual([]);
    expect(await git(path.join(root, 'worktrees', 'rebuild-checkout'), ['rev-parse', 'HEAD'])).toBe(head);
    // Built incrementally from the served build, and served.
    const builds = readdirSync(path.join(root, 'builds')).filter((n) => n.startsWith(head.slice(0, 12)));
    expect(builds).toHaveLength(1);
    expect(readBuildInfo(path.join(root, 'builds', builds[0]!))).toMatchObject({ commit: head, mode: 'incremental' });
    const work = (await inject('GET', '/api/v1/works/bach-minuet-in-g')).json().data;
    expect(work.arrangements.map((a: { id: number }) => a.id)).toContain(2);

    // The hook does see a worktree added (what the old path did per publication).
    const probe = path.join(root, 'probe-worktree');
    await git(repo, ['worktree', 'add', '--detach', probe, 'HEAD']);
    await git(repo, ['worktree', 'remove', '--force', probe]);
    expect(readFileSync(checkouts, 'utf8')).toMatch(/^0{40} [0-9a-f]{40} 1\n$/);
  });
});
