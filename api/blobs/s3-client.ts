/**
 * One S3 client from the parsed settings (api/config.ts): used by the S3 blob store, and by
 * `npm run publish:static` and the backup scripts. Nothing here reads the environment.
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from '../config.ts';

export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
  });
}

/** True for an S3 "no such key" answer (HEAD answers a bare 404). */
export function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
