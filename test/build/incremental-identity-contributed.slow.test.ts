/**
 * Incremental builds: a new work as an applied contribution writes it, with its source
 * score in the blob store (not stored beside the work), built incrementally, holds exactly the bytes
 * of a full build of the same commit (same generatedAtUtc, same blob store): the new work's
 * records, pages and engraved score, the listings, Pagefind, the index files and
 * published-blobs.json. The score is a real MusicXML file from the shared corpora
 * (`../shared/corpora`, beside the repository). A small generated catalog keeps the three builds short.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { LocalBlobStore } from '../../api/blobs/blob-store.ts';
import { buildInChild } from '../../api/site/builds.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import { newWorkFile, parseFrontMatter, splitWorkFile } from '../../src/domain/work-file.ts';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { filesUnder, digests } from '../helpers/build-folders.ts';

const BASE_URL = 'https://contributed.example.test';
const SCORE = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'musicxml-test-suite', '01a-Pitches-Pitches.xml');
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-incremental-contributed-'));
const repo = path.join(root, 'content');
const blobsDir = path.join(root, 'blobs');

afterAll(() => rmSync(root, { recursive: true, force: true }));

it('a contributed new work with a blob-stored MusicXML score: the incremental build equals the full build', async () => {
  const gen = generateCatalog({ works: 24, outDir: path.join(root, 'seed') });
  const seeded = await ensureContentRepo(repo, gen.outDir);
  const base = path.join(root, 'base');
  await buildInChild(repo, base, BASE_URL, { commit: seeded.head, blobsDir });

  // The score as a reviewed contribution leaves it: in the blob store, named by its SHA-256.
  const score = readFileSync(SCORE);
  const blob = await new LocalBlobStore(blobsDir).putBytes(score);
  // A new work by a composer the catalog has (a public-domain one, so the score is public): the
  // composition's status is derived from the facts, so it is read from the loaded catalog.
  const cleared = new Set(
    loadCatalog(repo)
      .catalog.works.filter((w) => w.content.rights.composition.status === 'public-domain')
      .map((w) => w.content.slug),
  );
  const model = gen.slugs
    .filter((slug) => cleared.has(slug))
    .map((slug) => ({ slug, text: readFileSync(path.join(repo, 'works', slug, 'index.md'), 'utf8') }))
    .map((w) => ({ ...w, data: parseFrontMatter(splitWorkFile(w.text).frontMatter) as Record<string, any> }))[0]!;
  expect(model).toBeDefined();
  const slug = `${model.slug}-contributed`;
  const after = {
    ...model.data,
    slug,
    title: 'A contributed work with a score',
    sourceAssets: [
      {
        id: 1,
        kind: 'musicxml',
        title: 'Score: 01a-Pitches-Pitches.xml',
        blob: blob.sha256,
        byteLength: blob.byteLength,
        sourcePageUrl: 'https://gitlab.com/lilypond/lilypond/-/tree/master/input/regression/musicxml',
        mediaType: 'application/vnd.recordare.musicxml+xml',
        sha256: blob.sha256,
        rightsStatus: 'licensed',
        license: 'MIT',
        attribution: 'MusicXML test suite (LilyPond regression tests), MIT license',
        reviewState: 'technical-pass',
        access: 'public',
        technicalChecks: null,
      },
    ],
    arrangements: [],
    comments: [],
    videos: [],
  };
  mkdirSync(path.join(repo, 'works', slug));
  writeFileSync(path.join(repo, 'works', slug, 'index.md'), newWorkFile(after, 'A contributed work.'));
  await git(repo, ['add', '--all']);
  await git(repo, ['commit', '--quiet', '-m', 'A contributed new work with a blob-stored score']);
  const commit = await git(repo, ['rev-parse', 'HEAD']);

  const incremental = path.join(root, 'inc');
  const full = path.join(root, 'full');
  await buildInChild(repo, incremental, BASE_URL, { commit, incrementalFrom: base, blobsDir });
  const { generatedAtUtc } = JSON.parse(readFileSync(path.join(base, 'build.json'), 'utf8')) as {
    generatedAtUtc: string;
  };
  await buildInChild(repo, full, BASE_URL, { commit, generatedAtUtc, blobsDir });

  const info = JSON.parse(readFileSync(path.join(incremental, 'build.json'), 'utf8'));
  expect(info.fallbackReason ?? null).toBeNull();
  expect(info.mode).toBe('incremental');
  expect(info.incremental.works).toEqual([slug]);
  const a = digests(incremental);
  const b = digests(full);
  const differences = [
    ...[...a]
      .filter(([rel, d]) => b.get(rel) !== d)
      .map(([rel]) => (b.has(rel) ? `differs: ${rel}` : `only in the incremental build: ${rel}`)),
    ...[...b.keys()].filter((rel) => !a.has(rel)).map((rel) => `only in the full build: ${rel}`),
  ];
  expect(differences).toEqual([]);
  // The contributed score was engraved (SVG and PDF) and its blob is published.
  const files = filesUnder(path.join(incremental, 'client'));
  expect(files).toContain(`works/${slug}/score/1/page-1.svg`);
  expect(files).toContain(`works/${slug}/score/1/score.pdf`);
  expect(readFileSync(path.join(incremental, 'published-blobs.json'), 'utf8')).toContain(blob.sha256);
  const record = JSON.parse(
    readFileSync(path.join(incremental, 'client', 'api', 'v1', 'works', slug, 'index.json'), 'utf8'),
  );
  expect(record.data.sourceAssets[0].links.pdf).toBe(`${BASE_URL}/works/${slug}/score/1/score.pdf`);
}, 900_000);
