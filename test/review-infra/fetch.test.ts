/**
 * The contributor-file fetcher and its SSRF guard (docs/review-infra.md): every refused range, literal
 * address forms, DNS answers, redirects into blocked ranges, limits, digests, and a clean store.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore as BlobStore } from '../../api/blobs/blob-store.ts';
import { fetchContributorFile, guardedLookup, isBlockedAddress } from '../../api/review/fetch.ts';
import { fetchOptionsFromEnv } from '../../api/config.ts';
import { FetchRefusedError, type FetchOptions } from '../../api/review/types.ts';
import { startHttpsServer, type HttpsTestServer } from '../helpers/https-server.ts';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('isBlockedAddress', () => {
  const blocked = [
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '100.100.100.200',
    '192.0.0.1',
    '192.0.0.192',
    '192.0.2.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '[::1]',
    'fc00::1',
    'fd00:ec2::254',
    'fdff::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:8.8.8.8',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2001:db8::1',
    '2001:db8:ffff::1',
    '2001::1',
    '2002:7f00:1::1',
    '2002:c0a8:101::1',
    '100::1',
    'not-an-ip',
    '',
    '1.2.3',
    '1:2:3',
  ];
  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '192.0.1.1',
    '198.17.255.255',
    '198.20.0.1',
    '223.255.255.255',
    '2606:4700::1111',
    '2a00:1450:4001::200e',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  it.each(blocked)('refuses %s', (ip) => expect(isBlockedAddress(ip)).toBe(true));
  it.each(allowed)('allows %s', (ip) => expect(isBlockedAddress(ip)).toBe(false));
});

describe('guardedLookup', () => {
  it('refuses a host name whose DNS answer is loopback, and passes it on when unchecked', async () => {
    const run = (check: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        guardedLookup(check)('localhost', { all: true }, (err: Error | null, addrs: unknown) =>
          err ? reject(err) : resolve(addrs),
        ),
      );
    await expect(run(true)).rejects.toThrow(/resolves to .*loopback/);
    await expect(run(false)).resolves.toEqual(
      expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]),
    );
  });
});

describe('fetchOptionsFromEnv', () => {
  it('has safe defaults and reads the variables', () => {
    expect(fetchOptionsFromEnv({})).toEqual({ maxBytes: 200 * 1024 * 1024, timeoutMs: 60_000, allowHosts: [] });
    expect(
      fetchOptionsFromEnv({
        ARCHIVE_FETCH_MAX_BYTES: '1000',
        ARCHIVE_FETCH_TIMEOUT_MS: '500',
        ARCHIVE_FETCH_ALLOW_HOSTS: ' Files.Example.org, localhost ,',
      }),
    ).toEqual({
      maxBytes: 1000,
      timeoutMs: 500,
      allowHosts: ['files.example.org', 'localhost'],
    });
    // Ports: 443 is the default and is dropped; other ports stay with the host (IPv6 in brackets).
    expect(
      fetchOptionsFromEnv({ ARCHIVE_FETCH_ALLOW_HOSTS: 'Files.Example.org:443,localhost:8443,[::1]:9000,[::1]' })
        .allowHosts,
    ).toEqual(['files.example.org', 'localhost:8443', '[::1]:9000', '::1']);
    expect(() => fetchOptionsFromEnv({ ARCHIVE_FETCH_MAX_BYTES: '-1' })).toThrow(/ARCHIVE_FETCH_MAX_BYTES/);
  });
});

describe('fetchContributorFile', () => {
  let server: HttpsTestServer;
  let root: string;
  let blobs: BlobStore;
  const body = Buffer.from('<score-partwise>contributor file</score-partwise>\n');
  const big = Buffer.alloc(64 * 1024, 7);

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'pdma-fetch-'));
    blobs = new BlobStore(path.join(root, 'blobs'));
    server = await startHttpsServer({
      '/file.xml': { body, contentType: 'application/xml' },
      '/big-declared': { body: big },
      '/big-streamed': { body: big, chunked: true },
      '/stall': { stall: true },
      '/missing': { body: 'gone', status: 404 },
    });
    server.routes['/to-file'] = { redirect: `${server.url}/file.xml`, status: 301 };
    server.routes['/to-loopback-ip'] = { redirect: `https://127.0.0.2:${server.port}/file.xml` };
    server.routes['/to-v6-loopback'] = { redirect: `https://[::1]:${server.port}/file.xml`, status: 307 };
    server.routes['/to-metadata'] = { redirect: 'https://169.254.169.254/latest/meta-data/' };
    server.routes['/to-http'] = { redirect: `http://localhost:${server.port}/file.xml` };
    server.routes['/loop'] = { redirect: '/loop' };
  });
  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const opts = (extra: Partial<FetchOptions> = {}): FetchOptions => ({
    maxBytes: 1024 * 1024,
    timeoutMs: 5000,
    allowHosts: [`localhost:${server.port}`],
    ca: server.ca,
    ...extra,
  });
  const refusal = async (p: Promise<unknown>): Promise<FetchRefusedError> => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FetchRefusedError);
    return err as FetchRefusedError;
  };
  const stagingLeft = () =>
    existsSync(path.join(root, 'blobs', 'staging')) ? readdirSync(path.join(root, 'blobs', 'staging')) : [];

  it('stores the verified file under its digest', async () => {
    const got = await fetchContributorFile(
      `${server.url}/file.xml`,
      blobs,
      opts({ expectedSha256: sha(body).toUpperCase() }),
    );
    expect(got).toEqual({
      sha256: sha(body),
      byteLength: body.length,
      mediaType: 'application/xml',
      finalUrl: `${server.url}/file.xml`,
    });
    expect(existsSync(blobs.pathFor(sha(body)))).toBe(true);
    expect(stagingLeft()).toEqual([]);
  });

  it('follows an allowed redirect and reports the final URL', async () => {
    const got = await fetchContributorFile(`${server.url}/to-file`, blobs, opts());
    expect(got.finalUrl).toBe(`${server.url}/file.xml`);
  });

  it('refuses localhost by name without the allow-list, before connecting', async () => {
    const before = server.requests.length;
    const err = await refusal(fetchContributorFile(`${server.url}/file.xml`, blobs, opts({ allowHosts: [] })));
    expect(err.reason).toBe('not-allowed-host');
    expect(server.requests.length).toBe(before);
  });

  it.each([
    ['https://127.0.0.1:1/x', 'blocked-address'],
    ['https://2130706433/x', 'blocked-address'], // decimal 127.0.0.1
    ['https://0x7f.1/x', 'blocked-address'], // hex + short form
    ['https://0177.0.0.1/x', 'blocked-address'], // octal
    ['https://127.1/x', 'blocked-address'],
    ['https://10.1.2.3/x', 'blocked-address'],
    ['https://172.20.0.1/x', 'blocked-address'],
    ['https://192.168.0.10/x', 'blocked-address'],
    ['https://169.254.169.254/latest/meta-data/', 'blocked-address'],
    ['https://100.64.1.1/x', 'blocked-address'],
    ['https://0.0.0.0/x', 'blocked-address'],
    ['https://192.0.0.8/x', 'blocked-address'],
    ['https://198.18.0.1/x', 'blocked-address'],
    ['https://224.0.0.1/x', 'blocked-address'],
    ['https://240.0.0.1/x', 'blocked-address'],
    ['https://255.255.255.255/x', 'blocked-address'],
    ['https://[::1]/x', 'blocked-address'],
    ['https://[::]/x', 'blocked-address'],
    ['https://[fd12:3456::1]/x', 'blocked-address'],
    ['https://[fe80::1]/x', 'blocked-address'],
    ['https://[::ffff:127.0.0.1]/x', 'blocked-address'],
    ['https://[::ffff:169.254.169.254]/x', 'blocked-address'],
    ['https://[64:ff9b::10.0.0.1]/x', 'blocked-address'],
    ['https://[2001:db8::1]/x', 'blocked-address'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'not-allowed-host'],
    ['https://LOCALHOST./x', 'not-allowed-host'],
    ['https://api.localhost/x', 'not-allowed-host'],
    ['http://example.org/file.xml', 'not-https'],
    ['ftp://example.org/file.xml', 'not-https'],
    ['file:///etc/passwd', 'not-https'],
    ['not a url', 'not-https'],
  ])('refuses %s (%s)', async (url, reason) => {
    const err = await refusal(fetchContributorFile(url, blobs, opts({ allowHosts: [] })));
    expect(err.reason).toBe(reason);
  });

  it('refuses http:// even for an allow-listed host', async () => {
    expect(
      (await refusal(fetchContributorFile(`http://localhost:${server.port}/file.xml`, blobs, opts()))).reason,
    ).toBe('not-https');
  });

  it.each([
    ['/to-loopback-ip', 'blocked-address'],
    ['/to-v6-loopback', 'blocked-address'],
    ['/to-metadata', 'blocked-address'],
    ['/to-http', 'not-https'],
  ])('refuses a redirect from the allowed host into a blocked target (%s)', async (p, reason) => {
    const before = server.requests.length;
    const err = await refusal(fetchContributorFile(`${server.url}${p}`, blobs, opts()));
    expect(err.reason).toBe(reason);
    expect(server.requests.slice(before)).toEqual([p]);
  });

  it('lets a redirect target through the guard only when it is allow-listed itself', async () => {
    // 127.0.0.2 passes the guard once listed; nothing listens there, so the connection itself fails.
    const err = await refusal(
      fetchContributorFile(
        `${server.url}/to-loopback-ip`,
        blobs,
        opts({ allowHosts: [`localhost:${server.port}`, `127.0.0.2:${server.port}`] }),
      ),
    );
    expect(err.reason).toBe('network');
  });

  it("checks host and port: a redirect from an allowed host to another of its ports (the archive's own) is refused", async () => {
    // Stands in for the archive's own port on the same host: it must never see a connection.
    let connections = 0;
    const archive = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((r) => archive.listen(0, '127.0.0.1', r));
    const archivePort = (archive.address() as net.AddressInfo).port;
    server.routes['/to-archive-port'] = { redirect: `https://localhost:${archivePort}/api/v1/admin/queue` };
    const before = server.requests.length;
    const err = await refusal(fetchContributorFile(`${server.url}/to-archive-port`, blobs, opts()));
    expect(err.reason).toBe('not-allowed-host');
    expect(err.url).toBe(`https://localhost:${archivePort}/api/v1/admin/queue`);
    expect(server.requests.slice(before)).toEqual(['/to-archive-port']);
    // A host listed without a port allows 443 only.
    const bare = await refusal(
      fetchContributorFile(`${server.url}/file.xml`, blobs, opts({ allowHosts: ['localhost'] })),
    );
    expect(bare.reason).toBe('not-allowed-host');
    // The refusal names the port, the rule and the entry that would allow it.
    expect(bare.message).toBe(
      `localhost names an internal host on port ${server.port}: ARCHIVE_FETCH_ALLOW_HOSTS allows it on port 443 only (an entry without a port means 443); add localhost:${server.port} to allow port ${server.port}`,
    );
    expect(err.message).toContain(
      `on port ${archivePort}: ARCHIVE_FETCH_ALLOW_HOSTS allows it on port ${server.port} only`,
    );
    const v6 = await refusal(
      fetchContributorFile('https://[::1]:8443/x', blobs, opts({ allowHosts: ['[::1]:9443', '::1'] })),
    );
    expect(v6.message).toBe(
      '::1 is a loopback, private, link-local or reserved address on port 8443: ARCHIVE_FETCH_ALLOW_HOSTS allows it on port 443, 9443 only (an entry without a port means 443); add [::1]:8443 to allow port 8443',
    );
    // A host the list does not name at all: the port is still said.
    expect(
      (await refusal(fetchContributorFile('https://localhost:8443/x', blobs, opts({ allowHosts: [] })))).message,
    ).toBe('localhost names an internal host (port 8443; not in ARCHIVE_FETCH_ALLOW_HOSTS)');
    await new Promise((r) => archive.close(r));
    expect(connections).toBe(0);
  });

  it('stops after too many redirects', async () => {
    expect((await refusal(fetchContributorFile(`${server.url}/loop`, blobs, opts()))).reason).toBe('redirect-limit');
    expect(
      (await refusal(fetchContributorFile(`${server.url}/to-file`, blobs, opts({ maxRedirects: 0 })))).reason,
    ).toBe('redirect-limit');
  });

  it('refuses a too-large file from its Content-Length, and while streaming', async () => {
    expect(
      (await refusal(fetchContributorFile(`${server.url}/big-declared`, blobs, opts({ maxBytes: 1000 })))).reason,
    ).toBe('too-large');
    expect(
      (await refusal(fetchContributorFile(`${server.url}/big-streamed`, blobs, opts({ maxBytes: 1000 })))).reason,
    ).toBe('too-large');
    expect(stagingLeft()).toEqual([]);
    expect(await blobs.stat(sha(big))).toBeNull();
  });

  it('gives up on a stalled server after the time limit', async () => {
    const started = Date.now();
    expect((await refusal(fetchContributorFile(`${server.url}/stall`, blobs, opts({ timeoutMs: 300 })))).reason).toBe(
      'timeout',
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(stagingLeft()).toEqual([]);
  });

  it('refuses a digest mismatch and leaves neither blob nor staging file', async () => {
    const other = Buffer.from('something else');
    server.routes['/other.xml'] = { body: other };
    const err = await refusal(
      fetchContributorFile(`${server.url}/other.xml`, blobs, opts({ expectedSha256: sha('declared') })),
    );
    expect(err.reason).toBe('digest-mismatch');
    expect(err.message).toContain(sha(other));
    expect(await blobs.stat(sha(other))).toBeNull();
    expect(stagingLeft()).toEqual([]);
  });

  it('reports HTTP errors and untrusted certificates', async () => {
    expect((await refusal(fetchContributorFile(`${server.url}/missing`, blobs, opts()))).reason).toBe('http-status');
    const err = await refusal(fetchContributorFile(`${server.url}/file.xml`, blobs, opts({ ca: undefined })));
    expect(err.reason).toBe('network');
  });
});
