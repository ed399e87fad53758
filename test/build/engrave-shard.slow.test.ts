/**
 * `npm run engrave -- --shard i/n <corpus folder>` against the project's S3 test server: two
 * processes started at once with 1/2 and 2/2 fill the shared render cache (ARCHIVE_BLOB_STORE=s3)
 * with no coordinator but the cache; no score is engraved twice, together they engrave every
 * score of the folder (.mxl, .xml and .musicxml, UTF-16 included), and a later run finds every
 * score cached and engraves nothing.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { corpusScores, LIEDER, spread } from '../helpers/corpus-content.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';
import { encodedScores } from '../helpers/encoded-scores.ts';
import { parseShard, shardOf, type EngraveRunSummary } from '../../scripts/engrave.ts';
import { expectEach } from '../helpers/expect-each.ts';

const run = promisify(execFile);
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-engrave-shard-'));
const corpus = path.join(root, 'corpus');
const BUCKET = 'render-cache-shards';
let s3: TestS3;
let digests: string[];

afterAll(async () => {
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
  // Six songs spread over the corpus, in a folder of their own (a small corpus folder).
  mkdirSync(corpus, { recursive: true });
  digests = spread(corpusScores(LIEDER), 6).map((file, i) => {
    copyFileSync(file, path.join(corpus, `song-${i}.mxl`));
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  });
  // Every score file the build and the importer take: .xml (UTF-16, as Sibelius writes it) and
  // .musicxml in a sub-folder are engraved too.
  for (const g of encodedScores().filter((x) => x.rel.endsWith('.xml') || x.rel.endsWith('.musicxml'))) {
    const file = path.join(corpus, 'more', path.basename(g.rel));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, g.bytes);
    digests.push(createHash('sha256').update(g.bytes).digest('hex'));
  }
});

async function engrave(shard: string): Promise<EngraveRunSummary> {
  const { stdout } = await run(
    process.execPath,
    [path.join(PROJECT_ROOT, 'scripts', 'engrave.ts'), '--shard', shard, '--engrave-workers', '1', corpus],
    {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        ...s3.env,
        ARCHIVE_DATA_DIR: path.join(root, 'data'),
        ARCHIVE_BLOB_STORE: 's3',
        ARCHIVE_S3_BUCKET: BUCKET,
      },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as EngraveRunSummary;
}

async function keys(prefix: string): Promise<string[]> {
  const out = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

describe('engrave --shard', () => {
  it('splits scores by digest into exactly one shard each', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/2', '3/2', '1/0', 'a/b', '1', '1/2/3']) expect(() => parseShard(bad)).toThrow(/--shard/);
    for (const d of digests) {
      const s = shardOf(d, 2);
      expect(s === 1 || s === 2).toBe(true);
      expect(shardOf(d, 2)).toBe(s);
    }
  });

  it('two processes fill the S3 cache with no score engraved twice; a later run engraves nothing', async () => {
    const [one, two] = await Promise.all([engrave('1/2'), engrave('2/2')]);
    expect(one.failed).toEqual([]);
    expect(two.failed).toEqual([]);
    // Disjoint, and together every score of the folder.
    expect(one.engraved.filter((d) => two.engraved.includes(d))).toEqual([]);
    expect([...one.engraved, ...two.engraved].sort()).toEqual([...new Set(digests)].sort());
    expectEach(one.engraved, (d) => shardOf(d, 2) === 1);
    expectEach(two.engraved, (d) => shardOf(d, 2) === 2);
    // One engraving entry per score in the bucket (a corpus folder has no PDF metadata).
    expect(await keys('named/render-cache/v1/engraving/')).toHaveLength(new Set(digests).size);

    const again = await engrave('1/1');
    expect(again.engraved).toEqual([]);
    expect(again.cached).toBe(new Set(digests).size);
  }, 600_000);
});
