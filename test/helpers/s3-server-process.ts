/**
 * s3rver in a process of its own (test/helpers/s3-server.ts, `inProcess: false`), started with
 * `--openssl-legacy-provider`: s3rver makes ListObjectsV2 continuation tokens with DES, which
 * OpenSSL 3 keeps in its legacy provider, so a listing of more than 1,000 keys failed in-process
 * with InternalError. Arguments: the storage folder and the buckets (comma-separated); prints the
 * port it listens on, and stops on SIGTERM or when its parent's pipe closes.
 */
import S3rver from 's3rver';

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
