/**
 * A real S3-protocol server for the storage tests: s3rver (from npm) on an ephemeral loopback
 * port, storing objects in a fresh temporary folder; `env` configures the archive to use it.
 * Start one per test file: `const s3 = await startS3(['archive-blobs'])`, then `await s3.close()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../api/blobs/s3-client.ts';
import type { S3Settings } from '../../api/config.ts';

export interface TestS3 {
  endpoint: string;
  settings: S3Settings;
  client: S3Client;
  /** ARCHIVE_S3_* variables that reach this server (add ARCHIVE_S3_BUCKET and ARCHIVE_BLOB_STORE as needed). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3(buckets: string[]): Promise<TestS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'pdma-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const settings: S3Settings = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    forcePathStyle: true,
  };
  const client = createS3Client(settings);
  return {
    endpoint,
    settings,
    client,
    env: {
      ARCHIVE_S3_ENDPOINT: endpoint,
      ARCHIVE_S3_REGION: 'us-east-1',
      ARCHIVE_S3_ACCESS_KEY_ID: 'S3RVER',
      ARCHIVE_S3_SECRET_ACCESS_KEY: 'S3RVER',
      ARCHIVE_S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
