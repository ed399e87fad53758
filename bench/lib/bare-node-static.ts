/**
 * The ceiling contender of the static comparison (bench/lib/static.ts): a bare `node:http`
 * server, one process of the same Node, answering every GET with one fixed in-memory body and
 * the header set the service sends for a static record (taken from a real answer of the
 * service), and a 304 with the same headers when If-None-Match matches. No routing, no cache
 * lookup, no metrics: the most any one-thread Node server can do for this request.
 *
 *   node bench/lib/bare-node-static.ts --port P --sample FILE
 *
 * FILE is JSON: { "body": base64, "headers": [name, value, ...] } (the 200's headers without
 * Date, Connection and Keep-Alive, which Node adds itself as it does for the service).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string' }, sample: { type: 'string' } } });
const sample = JSON.parse(readFileSync(values.sample!, 'utf8')) as { body: string; headers: string[] };
const body = Buffer.from(sample.body, 'base64');
const headers200 = sample.headers;
const etagAt = headers200.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'etag');
const etag = etagAt >= 0 ? headers200[etagAt + 1]! : '';
// A 304 carries the same headers but Content-Type and Content-Length, as the service's does.
const headers304: string[] = [];
for (let i = 0; i < headers200.length; i += 2) {
  const name = headers200[i]!.toLowerCase();
  if (name !== 'content-type' && name !== 'content-length') headers304.push(headers200[i]!, headers200[i + 1]!);
}

createServer((req, res) => {
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers304);
    res.end();
    return;
  }
  res.writeHead(200, headers200);
  res.end(body);
}).listen(Number(values.port), '127.0.0.1', () => console.log(`bare node:http listening on ${values.port}`));
// A clean exit on SIGTERM (so `--cpu-prof` can write its profile when the bench stops it).
process.on('SIGTERM', () => process.exit(0));
