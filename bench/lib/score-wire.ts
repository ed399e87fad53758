/**
 * Bytes per engraved page over the wire (`npm run bench -- --only score-wire`): real full-length
 * scores from ../shared/corpora are built into a site, served by the front server on a loopback
 * socket, and every engraved page of both layouts (the 840 px print pages, the phone engraving)
 * is fetched three times, interleaved page by page: with `Accept-Encoding: br`, with `gzip`, and
 * without (the uncompressed SVG, the anchor). Bytes are counted as read from each request's own
 * socket (status line, headers and body) and as body bytes. Nothing is decoded on the way.
 *
 * Scores: by default the corpus's largest quartet (96 pages) and its longest song; `--wire-scores`
 * takes `quartets`, `lieder`, `all` (the whole corpora: hours of engraving on two cores) or a
 * comma-separated list of .mxl files; `--wire-build DIR` measures a build folder already made.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import type { ScoreManifest } from '../../src/lib/site/scores.ts';
import { figure, type Section } from './results.ts';
import { PROJECT_ROOT, round, runSiteBuild } from './util.ts';

const CORPORA = path.resolve(PROJECT_ROOT, '..', 'shared', 'corpora');
const QUARTETS = path.join(CORPORA, 'openscore-string-quartets', 'scores');
const LIEDER = path.join(CORPORA, 'openscore-lieder', 'scores');
const DEFAULT_SCORES = [
  path.join(QUARTETS, 'Wolf,_Hugo', 'String_Quartet', 'sq8823783.mxl'),
  path.join(LIEDER, 'Schubert,_Franz', '_', 'Im_Gegenwärtigen_Vergangenes,_D.710', 'lc28789279.mxl'),
];

function mxlFiles(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop()!;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) stack.push(full);
      else if (e.name.endsWith('.mxl')) out.push(full);
    }
  }
  return out.sort();
}

export function wireScores(spec: string | undefined): string[] {
  if (!spec) return DEFAULT_SCORES;
  if (spec === 'quartets') return mxlFiles(QUARTETS);
  if (spec === 'lieder') return mxlFiles(LIEDER);
  if (spec === 'all') return [...mxlFiles(QUARTETS), ...mxlFiles(LIEDER)];
  return spec.split(',').map((s) => path.resolve(s.trim()));
}

/** A content repository: the mini fixture's work once per score, each with that score as its source. */
function writeContent(content: string, scores: string[]): void {
  const mini = path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini');
  cpSync(mini, content, { recursive: true });
  const template = readFileSync(path.join(mini, 'works', 'bach-minuet-in-g', 'index.md'), 'utf8');
  rmSync(path.join(content, 'works', 'bach-minuet-in-g'), { recursive: true, force: true });
  scores.forEach((file, i) => {
    const slug = `corpus-score-${i + 1}`;
    const dir = path.join(content, 'works', slug);
    cpSync(file, path.join(dir, 'score.mxl'));
    writeFileSync(
      path.join(dir, 'index.md'),
      template
        .replace('slug: bach-minuet-in-g', `slug: ${slug}`)
        .replace(
          '    title: Opening phrase (MusicXML 4.0)\n    file: score.musicxml',
          `    title: ${JSON.stringify(path.basename(file))}\n    file: score.mxl`,
        )
        .replace('    kind: musicxml\n', '    kind: mxl\n')
        .replace('mediaType: application/vnd.recordare.musicxml+xml', 'mediaType: application/vnd.recordare.musicxml'),
    );
  });
}

/** One GET on its own socket: bytes read from the socket, and body bytes, undecoded. */
function fetchRaw(
  origin: string,
  urlPath: string,
  acceptEncoding: string | null,
): Promise<{ wire: number; body: number; encoding: string | null }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
    const req = httpRequest(`${origin}${urlPath}`, { headers, agent: false }, (res) => {
      let body = 0;
      res.on('data', (c: Buffer) => (body += c.length));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${urlPath} answered ${res.statusCode}`));
        resolve({
          wire: res.socket.bytesRead,
          body,
          encoding: (res.headers['content-encoding'] as string | undefined) ?? null,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

interface Totals {
  pages: number;
  identity: { wire: number; body: number };
  br: { wire: number; body: number };
  gzip: { wire: number; body: number };
}

export function scoreWireSection(options: { scores?: string; buildDir?: string }): Section {
  return {
    name: 'score-wire',
    description:
      'bytes per engraved page over the wire (print and phone layouts) with br and gzip vs the uncompressed SVG, front server on a loopback socket',
    async run(ctx) {
      let buildDir = options.buildDir ? path.resolve(options.buildDir) : null;
      const scores = buildDir ? [] : wireScores(ctx.quick && !options.scores ? DEFAULT_SCORES[1] : options.scores);
      const missing = scores.filter((f) => !existsSync(f));
      if (missing.length > 0)
        return {
          status: 'skipped',
          message: `scores not found: ${missing.slice(0, 3).join(', ')}`,
          figures: [],
          details: {},
        };
      let buildMs: number | null = null;
      if (!buildDir) {
        const root = ctx.cleanup.tempDir('score-wire');
        writeContent(path.join(root, 'content'), scores);
        ctx.log(`building ${scores.length} score(s) ...`);
        const t0 = Date.now();
        await runSiteBuild(path.join(root, 'content'), path.join(root, 'build'), 'https://wire.example.test');
        buildMs = Date.now() - t0;
        buildDir = path.join(root, 'build');
      }
      const info = JSON.parse(readFileSync(path.join(buildDir, 'build.json'), 'utf8')) as Record<string, unknown>;
      const manifest = JSON.parse(readFileSync(path.join(buildDir, 'scores-manifest.json'), 'utf8')) as ScoreManifest;
      const config = loadConfig(
        { PUBLIC_BASE_URL: String(info.baseUrl), ARCHIVE_DATA_DIR: ctx.cleanup.tempDir('score-wire-data') },
        PROJECT_ROOT,
      );
      const app = await createApp({ config, handle: await SiteHandle.open(buildDir) }, { logger: false });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const layouts: Record<'print' | 'phone', Totals> = {
        print: { pages: 0, identity: { wire: 0, body: 0 }, br: { wire: 0, body: 0 }, gzip: { wire: 0, body: 0 } },
        phone: { pages: 0, identity: { wire: 0, body: 0 }, br: { wire: 0, body: 0 }, gzip: { wire: 0, body: 0 } },
      };
      const perScore: Array<Record<string, unknown>> = [];
      try {
        for (const [key, score] of Object.entries(manifest.scores)) {
          if (score.status !== 'rendered') continue;
          const [slug, assetId] = key.split('/');
          perScore.push({ key, pages: score.pages.length, phonePages: score.narrowPages.length });
          for (const [layout, pages] of [
            ['print', score.pages],
            ['phone', score.narrowPages],
          ] as const) {
            for (const page of pages) {
              const url = `/works/${slug}/score/${assetId}/${page.file}`;
              // Interleaved: the anchor (no Accept-Encoding) and both codings for the same page in turn.
              const id = await fetchRaw(origin, url, null);
              const br = await fetchRaw(origin, url, 'br');
              const gz = await fetchRaw(origin, url, 'gzip');
              if (id.encoding !== null || br.encoding !== 'br' || gz.encoding !== 'gzip')
                throw new Error(`${url}: encodings answered ${id.encoding}/${br.encoding}/${gz.encoding}`);
              const t = layouts[layout];
              t.pages++;
              t.identity.wire += id.wire;
              t.identity.body += id.body;
              t.br.wire += br.wire;
              t.br.body += br.body;
              t.gzip.wire += gz.wire;
              t.gzip.body += gz.body;
            }
          }
        }
      } finally {
        await app.close();
      }
      const perPage = (t: Totals, k: 'identity' | 'br' | 'gzip') =>
        t.pages > 0 ? Math.round(t[k].wire / t.pages) : null;
      const figures = (['print', 'phone'] as const).flatMap((layout) => {
        const t = layouts[layout];
        const anchor = perPage(t, 'identity');
        return [
          figure(
            `${layout} page, br`,
            'bytes/page',
            perPage(t, 'br'),
            anchor,
            'uncompressed SVG page, same server and pages',
            'lower',
          ),
          figure(
            `${layout} page, gzip`,
            'bytes/page',
            perPage(t, 'gzip'),
            anchor,
            'uncompressed SVG page, same server and pages',
            'lower',
          ),
        ];
      });
      const summary = Object.fromEntries(
        (['print', 'phone'] as const).map((layout) => {
          const t = layouts[layout];
          return [
            layout,
            {
              pages: t.pages,
              bytesPerPage: { identity: perPage(t, 'identity'), br: perPage(t, 'br'), gzip: perPage(t, 'gzip') },
              bodyBytes: { identity: t.identity.body, br: t.br.body, gzip: t.gzip.body },
              wireBytes: { identity: t.identity.wire, br: t.br.wire, gzip: t.gzip.wire },
              ratio: {
                br: t.identity.body > 0 ? round(t.br.body / t.identity.body, 4) : null,
                gzip: t.identity.body > 0 ? round(t.gzip.body / t.identity.body, 4) : null,
              },
            },
          ];
        }),
      );
      return {
        status: 'ok',
        figures,
        details: {
          scores: perScore,
          buildMs,
          compressedPages: info.compressedPages ?? null,
          layouts: summary,
        },
      };
    },
  };
}
