/**
 * Fetches a contributor's file from its URL during review (docs/review-infra.md), under an SSRF guard:
 * HTTPS only; no host name, literal address or DNS answer in loopback, private, link-local,
 * CGNAT, metadata, multicast, reserved, IPv4-mapped or documentation ranges; every redirect target
 * checked the same way (at most 5); size and total-time limits. The bytes stream into a staging file
 * of the blob store and are adopted only when the declared SHA-256 matches. See docs/review-infra.md.
 */
import { createHash } from 'node:crypto';
import dns from 'node:dns';
import { promises as fs } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import { DigestMismatchError, type BlobStore } from '../blobs/blob-store.ts';
import { FetchRefusedError, type FetchContributorFile, type FetchedFile, type FetchOptions } from './types.ts';

export const DEFAULT_FETCH_MAX_BYTES = 200 * 1024 * 1024;
export const DEFAULT_FETCH_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_REDIRECTS = 5;

// ---------------------------------------------------------------------------------------------
// Address policy

type Range = readonly [base: bigint, prefix: number];

/** IPv4 ranges that are never a contributor's public file host (RFC 6890 special-purpose and more). */
const BLOCKED_V4: Range[] = (
  [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8], // private
    ['100.64.0.0', 10], // carrier-grade NAT (also Alibaba's metadata 100.100.100.200)
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, including the cloud metadata address 169.254.169.254
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments (incl. 192.0.0.192 Oracle metadata)
    ['192.0.2.0', 24], // documentation TEST-NET-1
    ['192.88.99.0', 24], // 6to4 relay anycast
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation TEST-NET-2
    ['203.0.113.0', 24], // documentation TEST-NET-3
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, including broadcast 255.255.255.255
  ] as const
).map(([a, p]) => [BigInt(parseV4(a)!), p] as const);

/** IPv6 ranges refused outright. Ranges that embed an IPv4 address publicly are handled below. */
const BLOCKED_V6: Range[] = (
  [
    ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form
    ['::ffff:0:0', 96], // IPv4-mapped: a public host never needs it, and it hides a v4 target
    ['64:ff9b:1::', 48], // local-use NAT64
    ['100::', 64], // discard-only
    ['2001::', 32], // Teredo (embeds an obfuscated v4 address)
    ['2001:db8::', 32], // documentation
    ['fc00::', 7], // unique local (incl. AWS metadata fd00:ec2::254)
    ['fe80::', 10], // link-local
    ['fec0::', 10], // deprecated site-local
    ['ff00::', 8], // multicast
  ] as const
).map(([a, p]) => [parseV6(a)!, p] as const);

function inRange(value: bigint, bits: number, [base, prefix]: Range): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
}

function parseV4(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

function parseV6(ip: string): bigint | null {
  let text = ip;
  // A dotted IPv4 tail ("::ffff:127.0.0.1") becomes two hex groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseV4(dotted[2]!);
    if (v4 === null) return null;
    text = `${dotted[1]}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let n = 0n;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

function blockedV4(n: number): boolean {
  return BLOCKED_V4.some((r) => inRange(BigInt(n), 32, r));
}

/**
 * True when a connection to this literal address must be refused. Anything that is not a valid
 * IPv4 or IPv6 address is refused too (fail closed). Zone ids ("fe80::1%eth0") are ignored.
 */
export function isBlockedAddress(ip: string): boolean {
  const bare = ip
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  const kind = net.isIP(bare);
  if (kind === 4) return blockedV4(parseV4(bare)!);
  if (kind !== 6) return true;
  const v6 = parseV6(bare.toLowerCase());
  if (v6 === null) return true;
  if (BLOCKED_V6.some((r) => inRange(v6, 128, r))) return true;
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach an IPv4 host: judge the embedded address.
  if (inRange(v6, 128, [parseV6('64:ff9b::')!, 96])) return blockedV4(Number(v6 & 0xffffffffn));
  if (inRange(v6, 128, [parseV6('2002::')!, 16])) return blockedV4(Number((v6 >> 80n) & 0xffffffffn));
  return false;
}

/** Names that point inside the deployment whatever DNS says (checked before any lookup). */
const BLOCKED_NAMES = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);
const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain'];

export function isBlockedHostName(host: string): boolean {
  const h = normalizeHost(host);
  return BLOCKED_NAMES.has(h) || BLOCKED_SUFFIXES.some((s) => h.endsWith(s));
}

/** Lower case, no brackets around IPv6, no trailing dot: the form allow-list entries are compared in. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/**
 * One allow-list entry in its compared form: `host` or `host:port` (IPv6 in brackets when a port
 * follows), host normalized. An entry without a port allows port 443 only, so listing a host never
 * opens its other services (the archive's own port on the same machine, an admin port).
 */
export function normalizeAllowEntry(entry: string): string {
  const e = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(e);
  const plain = /^([^:]+):(\d{1,5})$/.exec(e);
  const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : plain ? [plain[1]!, plain[2]] : [e, undefined];
  const h = normalizeHost(host);
  if (h === '') return '';
  if (port === undefined || Number(port) === 443) return h;
  return `${h.includes(':') ? `[${h}]` : h}:${Number(port)}`;
}

/** The allow-list key of a URL: its host, plus its port unless that is 443. */
function allowKey(host: string, port: string): string {
  return normalizeAllowEntry(`${host.includes(':') ? `[${host}]` : host}:${port || '443'}`);
}

/**
 * A `lookup` for net.connect that resolves every address of the host, refuses the connection when
 * ANY of them is blocked (so a DNS answer mixing public and private addresses cannot win by
 * ordering), and hands the checked addresses to the socket, so nothing resolves the name again
 * between check and connect.
 */
export function guardedLookup(check: boolean): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (err, addresses) => {
      if (err) return callback(err);
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
      if (check) {
        const bad = addresses.find((a) => isBlockedAddress(a.address));
        if (bad) return callback(new BlockedLookupError(hostname, bad.address));
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

class BlockedLookupError extends Error {
  readonly address: string;
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a loopback, private, link-local or reserved address`);
    this.address = address;
  }
}

// ---------------------------------------------------------------------------------------------
// Fetching

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Check one URL (the first or a redirect target) against the scheme and address policy. */
function checkUrl(raw: string, allowHosts: Set<string>): { url: URL; host: string; allowed: boolean } {
  let url: URL;
  try {
    // WHATWG parsing normalizes decimal, octal and hex IPv4 forms ("2130706433", "0x7f.1") to dotted quads.
    url = new URL(raw);
  } catch {
    throw new FetchRefusedError('not-https', raw, `"${raw}" is not an absolute URL`);
  }
  if (url.protocol !== 'https:')
    throw new FetchRefusedError('not-https', raw, `only https URLs are fetched (got ${url.protocol})`);
  if (url.username || url.password)
    throw new FetchRefusedError('not-allowed-host', raw, 'URLs with credentials are not fetched');
  const host = normalizeHost(url.hostname);
  // Host and port: an allowed host's other ports (a redirect to the archive's own) are not allowed.
  const allowed = allowHosts.has(allowKey(host, url.port));
  if (!allowed) {
    if (net.isIP(host) !== 0) {
      if (isBlockedAddress(host))
        throw new FetchRefusedError(
          'blocked-address',
          raw,
          `${host} is a loopback, private, link-local or reserved address${portNote(host, url.port, allowHosts)}`,
        );
    } else if (isBlockedHostName(host)) {
      throw new FetchRefusedError(
        'not-allowed-host',
        raw,
        `${host} names an internal host${portNote(host, url.port, allowHosts)}`,
      );
    }
  }
  return { url, host, allowed };
}

/**
 * When the allow-list names the host on other ports only: which, and how to allow this one (an
 * entry without a port means 443, so `localhost` does not open `localhost:8443`).
 */
function portNote(host: string, port: string, allowHosts: Set<string>): string {
  const wanted = Number(port || '443');
  const ports: number[] = [];
  for (const key of allowHosts) {
    // Normalized entries: `host`, a bare IPv6 address (port 443), `host:port` or `[v6]:port`.
    const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(key);
    const named = /^([^:]+):(\d+)$/.exec(key);
    const [h, p] = v6 ? [v6[1]!, Number(v6[2])] : named ? [named[1]!, Number(named[2])] : [key, 443];
    if (h === host) ports.push(p);
  }
  if (ports.length === 0) return ` (port ${wanted}; not in ARCHIVE_FETCH_ALLOW_HOSTS)`;
  const entry = `${host.includes(':') ? `[${host}]` : host}:${wanted}`;
  return ` on port ${wanted}: ARCHIVE_FETCH_ALLOW_HOSTS allows it on port ${ports.sort((a, b) => a - b).join(', ')} only (an entry without a port means 443); add ${entry} to allow port ${wanted}`;
}

interface Hop {
  response: IncomingMessage;
}

function request(
  target: { url: URL; host: string; allowed: boolean },
  options: FetchOptions,
  signal: AbortSignal,
): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const isIp = net.isIP(target.host) !== 0;
    const req = https.request({
      method: 'GET',
      host: target.host,
      port: target.url.port || 443,
      path: `${target.url.pathname}${target.url.search}`,
      headers: {
        'User-Agent': 'public-domain-music-archive review fetcher',
        Accept: '*/*',
        'Accept-Encoding': 'identity',
      },
      // A literal address never goes through lookup; it was checked in checkUrl.
      lookup: isIp ? undefined : guardedLookup(!target.allowed),
      servername: isIp ? undefined : target.host,
      ...(options.ca ? { ca: options.ca } : {}),
      agent: false,
      signal,
    });
    req.on('response', (response) => resolve({ response }));
    req.on('error', reject);
    req.end();
  });
}

async function removeQuietly(file: string | null): Promise<void> {
  if (file) await fs.unlink(file).catch(() => undefined);
}

export const fetchContributorFile: FetchContributorFile = async (url, blobs, options) => {
  const allowHosts = new Set(options.allowHosts.map(normalizeAllowEntry).filter((h) => h.length > 0));
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let staging: string | null = null;
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      const target = checkUrl(current, allowHosts);
      let response: IncomingMessage;
      try {
        ({ response } = await request(target, options, controller.signal));
      } catch (err) {
        throw mapNetworkError(err, current, controller.signal, options.timeoutMs);
      }
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        response.destroy();
        const location = response.headers.location;
        if (!location) throw new FetchRefusedError('http-status', current, `HTTP ${status} without a Location header`);
        if (hop + 1 > maxRedirects)
          throw new FetchRefusedError('redirect-limit', current, `more than ${maxRedirects} redirects`);
        current = new URL(location, target.url).toString();
        continue;
      }
      if (status < 200 || status > 299) {
        response.destroy();
        throw new FetchRefusedError('http-status', current, `the server answered HTTP ${status}`);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        throw new FetchRefusedError(
          'too-large',
          current,
          `the file is ${declared} bytes; the limit is ${options.maxBytes}`,
        );
      }
      staging = await blobs.stagingPath();
      const hash = createHash('sha256');
      let byteLength = 0;
      const out = await fs.open(staging, 'wx');
      try {
        for await (const chunk of response) {
          const buf = chunk as Buffer;
          byteLength += buf.length;
          if (byteLength > options.maxBytes) {
            response.destroy();
            throw new FetchRefusedError(
              'too-large',
              current,
              `the file exceeds the limit of ${options.maxBytes} bytes`,
            );
          }
          hash.update(buf);
          await out.write(buf);
        }
      } catch (err) {
        throw mapNetworkError(err, current, controller.signal, options.timeoutMs);
      } finally {
        await out.close();
      }
      const sha256 = hash.digest('hex');
      const expected = options.expectedSha256?.toLowerCase() ?? null;
      if (expected && expected !== sha256) throw digestRefusal(current, expected, sha256);
      try {
        const info = await blobs.adoptFile(staging, expected ?? sha256);
        staging = null;
        const type = response.headers['content-type'];
        const fetched: FetchedFile = {
          sha256: info.sha256,
          byteLength: info.byteLength,
          mediaType: type ? type : null,
          finalUrl: current,
        };
        return fetched;
      } catch (err) {
        if (err instanceof DigestMismatchError) throw digestRefusal(current, err.expected, err.actual);
        throw err;
      }
    }
  } finally {
    clearTimeout(timer);
    await removeQuietly(staging);
  }
};

function digestRefusal(url: string, expected: string, actual: string): FetchRefusedError {
  return new FetchRefusedError(
    'digest-mismatch',
    url,
    `the declared SHA-256 is ${expected} but the file's is ${actual}`,
  );
}

function mapNetworkError(err: unknown, url: string, signal: AbortSignal, timeoutMs: number): Error {
  if (err instanceof FetchRefusedError) return err;
  if (signal.aborted)
    return new FetchRefusedError('timeout', url, `the download did not finish within ${timeoutMs} ms`);
  if (err instanceof BlockedLookupError) return new FetchRefusedError('blocked-address', url, err.message);
  const e = err as NodeJS.ErrnoException;
  return new FetchRefusedError('network', url, `the download failed: ${e.code ? `${e.code} ` : ''}${e.message}`);
}
