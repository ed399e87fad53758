/**
 * s3rver in a process of its own (test/helpers/s3-server.ts, `inProcess: false`), started with
 * `--openssl-legacy-provider`: s3rver makes ListObjectsV2 continuation tokens with DES, which
 * OpenSSL 3 keeps in its legacy provider, so a listing of more than 1,000 keys failed in-process
 * with InternalError. Arguments: the storage folder and the buckets (comma-separated); prints the
 * port it listens on, and stops on SIGTERM or when its parent's pipe closes.
 *
 * s3rver's filesystem store also pages in the order it walks its folders, not in key order, so
 * past 1,000 keys a page boundary between "x" and "x/..." keys repeated one key and dropped
 * another. Here its listing sorts the keys after the walk (as S3 lists them: in UTF-8 binary
 * order) before a page is cut.
 */
import S3rver from 's3rver';
import { createRequire } from 'node:module';

interface Listed {
  objects: { key: string }[];
  commonPrefixes: string[];
  isTruncated: boolean;
}
type ListObjects = (this: unknown, bucket: string, options: { maxKeys?: number }) => Promise<Listed>;
// The store class is not part of s3rver's typed interface: loaded as the module it is.
const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js') as {
  prototype: { listObjects: ListObjects };
};
const store = FilesystemStore.prototype;
const walkOrder = store.listObjects;
store.listObjects = async function (bucket, options) {
  const all = await walkOrder.call(this, bucket, { ...options, maxKeys: Infinity });
  const max = options.maxKeys ?? Infinity;
  const objects = all.objects.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  return { objects: objects.slice(0, max), commonPrefixes: all.commonPrefixes, isTruncated: objects.length > max };
};

const [directory, buckets] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory: directory!,
  silent: true,
  configureBuckets: (buckets ?? '')
    .split(',')
    .filter(Boolean)
    .map((name) => ({ name })),
});
const address = await server.run();
process.stdout.write(`${address.port}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
