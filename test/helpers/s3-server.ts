/**
 * A real S3-protocol server for the storage tests: s3rver (from npm) on an ephemeral loopback
 * port, storing objects in a fresh temporary folder; `env` configures the archive to use it.
 * Start one per test file: `const s3 = await startS3(['archive-blobs'])`, then `await s3.close()`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
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

/**
 * `inProcess: false` runs the server as a child process with OpenSSL's legacy provider, which a
 * listing of more than 1,000 keys needs (test/helpers/s3-server-process.ts says why); a fast test
 * may start no process, so in-process is the default.
 */
export async function startS3(buckets: string[], options: { inProcess?: boolean } = {}): Promise<TestS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'pdma-s3rver-'));
  const server =
    options.inProcess === false ? await inChild(directory, buckets) : await inThisProcess(directory, buckets);
  const endpoint = `http://127.0.0.1:${server.port}`;
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

interface Running {
  port: number;
  close(): Promise<void>;
}

async function inThisProcess(directory: string, buckets: string[]): Promise<Running> {
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const address = await server.run();
  return { port: address.port, close: () => server.close() };
}

async function inChild(directory: string, buckets: string[]): Promise<Running> {
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', path.join(import.meta.dirname, 's3-server-process.ts'), directory, buckets.join(',')],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the S3 test server exited (${code}) before it listened`)));
  });
  return {
    port: Number(firstLine),
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
