/**
 * The generated nginx configuration names the archive's processes with their real ports
 * (api/site/nginx.ts): `upstream archive_read` (every read process, or the one process) and
 * `upstream archive_write` (the write process), kept alive over HTTP/1.1; a server-made build
 * includes the upstreams file the server writes, a standalone build names one process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderNginxConfig, renderNginxUpstreams, writeNginxUpstreams } from '../../api/site/nginx.ts';

describe('nginx upstreams', () => {
  it('lists every read process in archive_read and the writer in archive_write, with keep-alive', () => {
    const text = renderNginxUpstreams({ writer: '127.0.0.1:5100', readers: ['127.0.0.1:5101', '127.0.0.1:5102'] });
    expect(text).toMatch(
      /upstream archive_read \{\n {4}server 127\.0\.0\.1:5101 [^\n]*\n {4}server 127\.0\.0\.1:5102 /,
    );
    expect(text).toMatch(/upstream archive_write \{\n {4}server 127\.0\.0\.1:5100 /);
    expect(text.match(/keepalive \d+;/g)).toHaveLength(2);
    // One process: it answers reads too. A wildcard listen address is reached on loopback.
    const single = renderNginxUpstreams({ writer: '0.0.0.0:4400', readers: [] });
    expect(single).toMatch(/upstream archive_read \{\n {4}server 127\.0\.0\.1:4400 /);
    expect(single).not.toContain('4321');
  });

  it('a server-made build includes the upstreams file; reads and writes go to their upstream as HTTP/1.1', () => {
    const conf = renderNginxConfig('/srv/data/current/client', { upstreamsFile: '/srv/data/nginx-upstreams.conf' });
    expect(conf).toContain('include /srv/data/nginx-upstreams.conf;');
    expect(conf).not.toMatch(/^upstream archive_read/m);
    expect(conf).toMatch(/location = \/api\/v1\/works \{\n {8}proxy_pass http:\/\/archive_read;/);
    expect(conf).toMatch(/location = \/api\/v1\/music\/resolve \{\n {8}proxy_pass http:\/\/archive_read;/);
    expect(conf).toMatch(/location \/api\/v1\/library\/ \{\n {8}proxy_pass http:\/\/archive_write;/);
    expect(conf).toMatch(/location \/admin\/ \{\n {8}proxy_pass http:\/\/archive_write;/);
    expect(conf).toMatch(
      /map \$request_method \$archive_node \{\n {4}GET archive_read;\n {4}HEAD archive_read;\n {4}default archive_write;/,
    );
    // Every proxied location keeps connections alive and passes the client on.
    const proxied = conf.split('proxy_pass').length - 1;
    expect(conf.split('proxy_http_version 1.1;').length - 1).toBe(proxied);
    expect(conf.split('proxy_set_header Connection "";').length - 1).toBe(proxied);
    expect(conf.split('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;').length - 1).toBe(proxied);
  });

  it('a standalone build names the one process it was told, and the offload header keeps the others', () => {
    const conf = renderNginxConfig('/srv/client', { upstream: 'http://127.0.0.1:6001', blobsDir: '/srv/blobs' });
    expect(conf).toMatch(/upstream archive_read \{\n {4}server 127\.0\.0\.1:6001 /);
    expect(conf).toMatch(/upstream archive_write \{\n {4}server 127\.0\.0\.1:6001 /);
    const blobs = conf.slice(conf.indexOf('location /blobs/'), conf.indexOf('}', conf.indexOf('location /blobs/')));
    expect(blobs).toContain('proxy_set_header X-Archive-Download-Offload nginx;');
    expect(blobs).toContain('proxy_set_header Host $http_host;');
  });

  it('is written atomically beside the data folder', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-upstreams-'));
    try {
      const file = writeNginxUpstreams(dir, { writer: '127.0.0.1:7000', readers: ['127.0.0.1:7001'] });
      expect(file).toBe(path.join(dir, 'nginx-upstreams.conf'));
      expect(readFileSync(file, 'utf8')).toContain('server 127.0.0.1:7001 ');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
