/**
 * The nginx configuration that serves a built site with the same URLs as the front server
 * (docs/architecture.md, decision 3): extension-less API records map to `index.json`, Markdown and text get their
 * types (the one MIME table, mime-db: api/http/media-types.ts). Dynamic routes (queries, submissions) are proxied to the Node
 * processes: reads to every process that answers them, writes to the write process (upstream blocks, HTTP/1.1 keep-alive).
 */
import { existsSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LAYER_BASE_LINK, LAYER_DELETED_DIR } from '../../src/lib/site/layers.ts';
import { nginxTypesBlock } from '../http/media-types.ts';
import { PUBLIC_CSP } from '../http/content-security-policy.ts';
import { IMMUTABLE_CACHE_CONTROL, STATIC_CACHE_CONTROL } from '../http/cache-policy.ts';
import { PRECOMPRESSED_NGINX_LOCATION } from '../../src/lib/site/precompress.ts';

/** Where Debian's nginx loads its enabled modules from (its nginx.conf includes this folder). */
export const DEBIAN_NGINX_MODULES_ENABLED = '/etc/nginx/modules-enabled';
/** Debian's brotli static module (package libnginx-mod-http-brotli-static). */
export const DEBIAN_BROTLI_STATIC_MODULE = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';

/**
 * Whether this machine's nginx has the brotli static module enabled (Debian 12 ships it as
 * libnginx-mod-http-brotli-static, which links a conf into modules-enabled). The generated config
 * names `brotli_static` only then, because nginx refuses an unknown directive; without it the
 * engraved pages are still served as gzip (`gzip_static`, part of Debian's nginx).
 */
export function nginxHasBrotliStatic(modulesEnabled = DEBIAN_NGINX_MODULES_ENABLED): boolean {
  try {
    return (
      existsSync(DEBIAN_BROTLI_STATIC_MODULE) &&
      readdirSync(modulesEnabled).some((name) => name.includes('brotli-static') || name.includes('brotli_static'))
    );
  } catch {
    return false;
  }
}

/** Where X-Accel-Redirect points for blob bytes (ARCHIVE_DOWNLOAD_OFFLOAD=nginx); internal, never reachable from outside. */
export const NGINX_BLOBS_LOCATION = '/_archive-internal/blobs/';

/** The file beside builds/ naming the running processes (written by the server at every start). */
export const NGINX_UPSTREAMS_FILE = 'nginx-upstreams.conf';

/** Where a wildcard listen address is reached from this machine. */
function reachable(hostPort: string): string {
  const m = /^(.*):(\d+)$/.exec(hostPort);
  if (!m) return hostPort;
  const host = m[1] === '0.0.0.0' || m[1] === '' ? '127.0.0.1' : m[1] === '::' || m[1] === '[::]' ? '[::1]' : m[1]!;
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${m[2]}`;
}

/**
 * The `upstream` blocks of the archive's processes (at nginx's http level): `archive_read` lists
 * every process that answers reads (the read processes; the one process when there are none),
 * `archive_write` the write process; both keep connections alive (HTTP/1.1, `keepalive`).
 */
export function renderNginxUpstreams(processes: { writer: string; readers: string[] }): string {
  const readers = processes.readers.length > 0 ? processes.readers : [processes.writer];
  const servers = (list: string[]) =>
    list.map((a) => `    server ${reachable(a)} max_fails=1 fail_timeout=2s;`).join('\n');
  return `# Written by the archive's server at every start (scripts/serve.ts): its processes, for the
# generated nginx.conf (ARCHIVE_DATA_DIR/current/nginx.conf includes this file). Reload nginx
# after a start that changed them (PORT, ARCHIVE_READ_PROCESSES).
upstream archive_read {
${servers(readers)}
    keepalive ${Math.min(64, 16 * readers.length)};
}
upstream archive_write {
${servers([processes.writer])}
    keepalive 8;
}
`;
}

/** Write ARCHIVE_DATA_DIR/nginx-upstreams.conf for these processes (temp file and rename). */
export function writeNginxUpstreams(dataDir: string, processes: { writer: string; readers: string[] }): string {
  const file = path.join(dataDir, NGINX_UPSTREAMS_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, renderNginxUpstreams(processes));
  renameSync(tmp, file);
  return file;
}

export function renderNginxConfig(
  clientDir: string,
  options: {
    listen?: string;
    /** The one Node process (`http://host:port`) when no upstreams file is named: reads and writes go there. */
    upstream?: string;
    /**
     * The upstreams file the server writes (ARCHIVE_DATA_DIR/nginx-upstreams.conf, `writeNginxUpstreams`):
     * included instead of one process's address, so the ports are those of the running processes.
     */
    upstreamsFile?: string;
    blobsDir?: string;
    /** Name `brotli_static` (the builds pass nginxHasBrotliStatic()); without it gzip only. */
    brotliStatic?: boolean;
  } = {},
): string {
  const listen = options.listen ?? '127.0.0.1:8080';
  const brotli = options.brotliStatic ?? false;
  const single = new URL(options.upstream ?? 'http://127.0.0.1:4321');
  const upstreams = options.upstreamsFile
    ? `include ${options.upstreamsFile};\n`
    : renderNginxUpstreams({ writer: single.host, readers: [] });
  const read = 'http://archive_read';
  const write = 'http://archive_write';
  // Kept-alive connections to Node (HTTP/1.1 without "Connection: close"), the client's Host and address.
  // nginx inherits proxy_set_header only into a location that sets none: every proxied location names them all.
  const proxied = (extra = '') =>
    [
      'proxy_http_version 1.1;',
      'proxy_set_header Connection "";',
      'proxy_set_header Host $http_host;',
      'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      'proxy_set_header X-Forwarded-Proto $scheme;',
      ...(extra ? [extra] : []),
    ]
      .map((line) => `        ${line}`)
      .join('\n');
  const offloadHeader = options.blobsDir ? 'proxy_set_header X-Archive-Download-Offload nginx;' : '';
  const staticHeaders = [
    `add_header Cache-Control "${STATIC_CACHE_CONTROL}";`,
    'add_header X-Content-Type-Options nosniff;',
    // The pages' policy (api/http/content-security-policy.ts); harmless on other answers.
    `add_header Content-Security-Policy "${PUBLIC_CSP}";`,
  ]
    .map((line) => `        ${line}`)
    .join('\n');
  const offload = options.blobsDir
    ? `
    # ARCHIVE_DOWNLOAD_OFFLOAD=nginx: the Node process checks the key (library files) or that the
    # blob is published, then answers X-Accel-Redirect here and nginx sends the bytes (sendfile,
    # ranges). The archive's ETag (the SHA-256) and cache policy come from the Node answer.
    location ${NGINX_BLOBS_LOCATION} {
        internal;
        alias ${options.blobsDir.replace(/\/+$/, '')}/;
        types { }
        default_type application/octet-stream;
        etag off;
        add_header ETag $upstream_http_x_archive_etag always;
        add_header X-Content-Type-Options nosniff always;
    }
`
    : `
    # No blob store was named at build time (ARCHIVE_BLOBS_DIR), so ARCHIVE_DOWNLOAD_OFFLOAD=nginx
    # has no internal location here; library and blob downloads are sent by Node.
`;
  // The root is the build folder, so that a layered build (src/lib/site/layers.ts) is served as
  // its view: its own files (the delta, `client/`) first, then its base's (`base/`, a link to the
  // base folder's client/), never a path `deleted/` names. A plain build has no `deleted/`, and
  // its `base` links to its own client/: the same file serves both kinds, so nginx follows every
  // swap without a reload, and tries that straddle a swap still find the file.
  const root = path.dirname(path.resolve(clientDir));
  const own = `/${path.basename(path.resolve(clientDir))}`;
  const layers = (...files: string[]) =>
    [...files.map((f) => `${own}${f}`), ...files.map((f) => `/${LAYER_BASE_LINK}${f}`)].join(' ');
  const refuseDeleted = (...files: string[]) =>
    files.map((f) => `        if (-f $document_root/${LAYER_DELETED_DIR}${f}) { return 404; }`).join('\n');
  return `# Generated by scripts/build.ts: serves ${clientDir} with the front server's URLs.
# Include inside an http {} block, or run with scripts/nginx-wrapper (see bench/).
# A build made by the server roots at ARCHIVE_DATA_DIR/current, the link the server moves to
# each build it swaps in: nginx follows without a reload. Keep open_file_cache off (the default),
# or nginx may send a swapped-out build's files until its entries are revalidated.
# Reads go to every process that answers them (upstream archive_read), the rest to the write
# process (archive_write); docs/operations.md, "Several processes".
${upstreams}map $request_method $archive_node {
    GET archive_read;
    HEAD archive_read;
    default archive_write;
}
server {
    listen ${listen};
    root ${root};
    etag on;
${nginxTypesBlock()}
    # The file a path names: a folder's address (ending in /) is its index page, or its index
    # record under /api/v1/. Tried in the build's own files, then in its base's (a layered build).
    set $archive_file $uri;
    set $archive_record $uri;
    if ($uri ~ /$) {
        set $archive_file \${uri}index.html;
        set $archive_record \${uri}index.json;
    }
    # No add_header at this level: nginx would add it to the proxied answers too, beside Node's
    # own (a private library listing would also say "public"). Each static location names its own.

    # Dynamic reads and writes live in the Node processes.
    location = /api/v1/works {
        proxy_pass ${read};
${proxied()}
    }
    location = /api/v1/profiles {
        proxy_pass ${read};
${proxied()}
    }
    location = /api/v1/music/resolve {
        proxy_pass ${read};
${proxied()}
    }
    location /api/v1/library/ {
        proxy_pass ${write};
${proxied(offloadHeader)}
    }
    location /api/v1/admin/ {
        proxy_pass ${write};
${proxied()}
    }
    location /admin/ {
        proxy_pass ${write};
${proxied()}
    }
    location /blobs/ {
        proxy_pass ${read};
${proxied(offloadHeader)}
    }
    # The MCP endpoint (Streamable HTTP: a POST answered with JSON or an event stream, sent as it comes).
    location = /mcp {
        proxy_pass ${read};
${proxied()}
        proxy_buffering off;
    }
    # Anything else Node answers: reads by any process, the rest by the write process.
    location @node {
        proxy_pass http://$archive_node;
${proxied()}
    }
${offload}
    location /api/v1/ {
        default_type application/json;
        # A record a layer deleted is not there: Node answers, as for any other.
        error_page 418 = @node;
        if (-f $document_root/${LAYER_DELETED_DIR}$archive_record) { return 418; }
        if (-f $document_root/${LAYER_DELETED_DIR}$archive_record/index.json) { return 418; }
${staticHeaders}
        try_files ${layers('$archive_record', '$archive_record/index.json')} @node;
    }
    location = /api/v1 {
        default_type application/json;
${staticHeaders}
        try_files ${layers('/api/v1/index.json')} =404;
    }
    # The search page with a query string is rendered by Node with the results (search without
    # JavaScript); without one it is the built page, whose script searches in the browser.
    location = /search/ {
        error_page 418 = @node;
        if ($is_args) { return 418; }
${staticHeaders}
        try_files ${layers('/search/index.html')} =404;
    }
    # As the front server does: the folder's address with its slash, the query kept (a search
    # asked for as /search?query=... would otherwise get the bare page with no results).
    location = /search {
        return 301 /search/$is_args$args;
    }
    location /track/ {
${staticHeaders}
        try_files ${layers('/track/index.html')} =404;
    }
    # Engraved score pages: the build wrote page-N.svg.gz and page-N.svg.br beside each SVG
    # (src/lib/site/precompress.ts); nginx sends the form Accept-Encoding asks for, with Vary.
    location ~ ${PRECOMPRESSED_NGINX_LOCATION} {
        gzip_static on;
        gzip_vary on;
${staticHeaders}
${
  brotli
    ? `        brotli_static on;`
    : `        # brotli_static on; needs the brotli static module (Debian: libnginx-mod-http-brotli-static),
        # not enabled on the machine that built this; gzip is served instead.`
}
${refuseDeleted('$uri')}
        try_files ${layers('$uri')} =404;
    }
    # Files stored with a work came from contributors: HTML, SVG, XML and scripts are downloads.
    location ~ ^/works/[^/]+/files/ {
${nginxTypesBlock('        ', { storedFiles: true })}
${staticHeaders}
${refuseDeleted('$uri')}
        try_files ${layers('$uri')} =404;
    }
    # Vite's hashed assets never change under their name.
    location /_astro/ {
${staticHeaders.replace(STATIC_CACHE_CONTROL, IMMUTABLE_CACHE_CONTROL)}
${refuseDeleted('$uri')}
        try_files ${layers('$uri')} =404;
    }
    location / {
${staticHeaders}
${refuseDeleted('$archive_file', '$archive_file/index.html')}
        try_files ${layers('$archive_file', '$archive_file/index.html')} =404;
    }
}
`;
}
