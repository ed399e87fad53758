/**
 * The S3-compatible blob store (ARCHIVE_BLOB_STORE=s3): blobs are objects
 * `<ARCHIVE_S3_PREFIX>sha256/ab/cd/<hash>` in ARCHIVE_S3_BUCKET. Staging stays on the local disk
 * (uploads resume from its length); a verified file is uploaded with a multipart upload (parts of
 * 8 MiB, four at a time; one PUT below that), so a 4 GiB library file never sits in memory.
 * Downloads stream ranged GETs through the server, or answer a presigned URL when
 * ARCHIVE_S3_PRESIGN_SECONDS is set.
 */
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  blobKey,
  HEX64,
  NAMED_OBJECT,
  namedKey,
  StagedBlobStore,
  type BlobInfo,
  type ByteRange,
  type DownloadHeaders,
  type NamedInfo,
} from './blob-store.ts';
import { isNotFound } from './s3-client.ts';

export const S3_PART_BYTES = 8 * 1024 * 1024;

export interface S3BlobStoreOptions {
  client: S3Client;
  bucket: string;
  /** Empty or ending in `/`. */
  prefix: string;
  /** Local folder for staging files. */
  stagingRoot: string;
  /** 0: no presigned URLs. */
  presignSeconds: number;
}

function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** A stream.compose stage: skip `skip` bytes, pass `take`, drop the rest. */
function sliceBytes(skip: number, take: number) {
  return async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let toSkip = skip;
    let left = take;
    for await (const chunk of source) {
      if (left <= 0) continue;
      const from = Math.min(toSkip, chunk.length);
      toSkip -= from;
      const part = chunk.subarray(from, from + left);
      left -= part.length;
      if (part.length > 0) yield part;
    }
  };
}

export class S3BlobStore extends StagedBlobStore {
  readonly backend = 's3' as const;
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;
  private readonly presignSeconds: number;

  constructor(options: S3BlobStoreOptions) {
    super(options.stagingRoot);
    this.client = options.client;
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.presignSeconds = options.presignSeconds;
  }

  keyFor(sha256: string): string {
    return `${this.prefix}${blobKey(sha256)}`;
  }

  async stat(sha256: string): Promise<BlobInfo | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyFor(sha256) }));
      return { sha256: sha256.toLowerCase(), byteLength: head.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  protected async store(stagingFile: string, info: BlobInfo): Promise<void> {
    const upload = new Upload({
      client: this.client,
      partSize: S3_PART_BYTES,
      queueSize: 4,
      leavePartsOnError: false,
      params: {
        Bucket: this.bucket,
        Key: this.keyFor(info.sha256),
        Body: info.byteLength === 0 ? Buffer.alloc(0) : createReadStream(stagingFile, { highWaterMark: 1024 * 1024 }),
        ContentType: 'application/octet-stream',
        Metadata: { sha256: info.sha256 },
      },
    });
    await upload.done();
    // Check what landed before the local bytes go: a key must hold what its name promises.
    const stored = await this.stat(info.sha256);
    if (!stored || stored.byteLength !== info.byteLength) {
      throw new Error(
        `the bucket holds ${stored?.byteLength ?? 'no'} bytes for ${info.sha256} after uploading ${info.byteLength}`,
      );
    }
    await fs.unlink(stagingFile);
  }

  async getNamed(name: string): Promise<Buffer | null> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: `${this.prefix}${namedKey(name)}` }),
      );
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async putNamed(name: string, bytes: Buffer): Promise<void> {
    // One PUT: S3 makes an object visible whole or not at all.
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: `${this.prefix}${namedKey(name)}`,
        Body: bytes,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  async namedFingerprint(name: string): Promise<string | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: `${this.prefix}${namedKey(name)}` }),
      );
      return `${head.ETag ?? ''}:${head.ContentLength ?? 0}:${head.LastModified?.toISOString() ?? ''}`;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async *listNamed(prefix: string): AsyncGenerator<NamedInfo> {
    let token: string | undefined;
    const start = `${this.prefix}${namedKey(prefix)}/`;
    const strip = `${this.prefix}named/`.length;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: start, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) {
        const name = o.Key?.slice(strip) ?? '';
        if (NAMED_OBJECT.test(name)) yield { name, byteLength: o.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    const answer = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.keyFor(sha256),
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    );
    const body = answer.Body;
    const stream = !body
      ? Readable.from([])
      : body instanceof Readable
        ? body
        : Readable.fromWeb((body as { transformToWebStream(): ReadableStream }).transformToWebStream() as never);
    if (!range) return stream;
    // Some servers widen a range (s3rver answers all of "bytes=0-0"; others ignore Range): cut
    // the asked bytes out of what came, so callers always get exactly start..end.
    const m = /^bytes (\d+)-(\d+)\//.exec(answer.ContentRange ?? '');
    const from = m ? Number(m[1]) : 0;
    const to = m ? Number(m[2]) : from + (answer.ContentLength ?? 0) - 1;
    if (from === range.start && to === range.end) return stream;
    if (from > range.start || to < range.end) {
      stream.destroy();
      throw new Error(`the object store answered bytes ${from}-${to} for the range ${range.start}-${range.end}`);
    }
    return stream.compose(sliceBytes(range.start - from, range.end - range.start + 1)) as unknown as Readable;
  }

  async withLocalFile<T>(sha256: string, use: (file: string) => Promise<T>): Promise<T> {
    const file = await this.stagingPath();
    try {
      await pipeline(await this.read(sha256), createWriteStream(file, { flags: 'wx' }));
      return await use(file);
    } finally {
      await fs.unlink(file).catch(() => undefined);
    }
  }

  async presignedUrl(sha256: string, headers: DownloadHeaders): Promise<string | null> {
    if (this.presignSeconds <= 0) return null;
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.keyFor(sha256),
      ResponseContentType: headers.contentType,
      ResponseCacheControl: headers.cacheControl,
      ...(headers.downloadName ? { ResponseContentDisposition: contentDisposition(headers.downloadName) } : {}),
    });
    return getSignedUrl(this.client, command, { expiresIn: this.presignSeconds });
  }

  offloadPath(): null {
    return null;
  }

  async check(): Promise<string> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      throw new Error(
        `the S3 bucket ${this.bucket} is not reachable (${e.$metadata?.httpStatusCode ?? e.name ?? 'error'})`,
      );
    }
    return `S3 bucket ${this.bucket} reachable`;
  }

  async *list(): AsyncGenerator<BlobInfo> {
    let token: string | undefined;
    const start = `${this.prefix}sha256/`;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: start, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) {
        const hash = o.Key?.slice(o.Key.lastIndexOf('/') + 1) ?? '';
        if (HEX64.test(hash) && o.Key === this.keyFor(hash)) yield { sha256: hash, byteLength: o.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
