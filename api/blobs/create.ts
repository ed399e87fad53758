/** The configured blob store (ARCHIVE_BLOB_STORE): a local folder by default, or an S3 bucket. */
import path from 'node:path';
import type { Config } from '../config.ts';
import { LocalBlobStore, type BlobStore } from './blob-store.ts';
import { S3BlobStore } from './s3-blob-store.ts';
import { createS3Client } from './s3-client.ts';

export function createBlobStore(config: Pick<Config, 'dataDir' | 'blobStore' | 's3'>): BlobStore {
  const root = path.join(config.dataDir, 'blobs');
  const settings = config.blobStore;
  if (settings.backend === 'local') return new LocalBlobStore(root);
  return new S3BlobStore({
    client: createS3Client(config.s3),
    bucket: settings.bucket!,
    prefix: settings.prefix,
    stagingRoot: path.join(root, 'staging'),
    presignSeconds: settings.presignSeconds,
  });
}
