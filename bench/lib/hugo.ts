/**
 * The Hugo anchor of the full build: Debian's `hugo` building, from the same
 * generated catalog, the same three outputs per work — an HTML page, a JSON record and a Markdown
 * record — plus list pages by period, genre and instrument (the project's browse pages) and a
 * home page, with templates of comparable weight (every field of the work: facts, rights with
 * territories, source assets and arrangements with their asset tables, comments, videos,
 * access rules, a correction form; HTML about 60-100% of the project's page size, see
 * `outputBytesPerWork` in the bench's details).
 *
 * What Hugo does not do, and the project's build does (so the like-for-like comparison is the
 * project's load + Astro phases, `phases.loadMs + phases.astroMs` in build.json):
 * no schema validation or content lint of the works, no derived record fields (reuse summary,
 * resolve eligibility, review-state labels, signed-in access wording are plain template text or
 * left out), no Pagefind index, no score engraving (generated works have none), no per-work zips,
 * no server index files, no composer pages (Hugo's taxonomies need flat values; the composer is an
 * object), no discovery documents (OpenAPI, llms.txt). Hugo's JSON and Markdown outputs sit
 * beside the page (`/works/<slug>/index.json`, `index.md`), the project's under `/api/v1/works/`.
 *
 * The work files are the catalog's own (`works/<slug>/index.md`: JSON front matter, Markdown body),
 * rewritten before timing with the work under `work:` (Hugo gives `aliases`, `summary` and `slug`
 * meanings of its own) and the taxonomy values beside it; Hugo renders the body with Goldmark.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findOrInstallDebianPackage, type AnchorBinary } from './util.ts';

export type HugoBinary = AnchorBinary;

function version(bin: string): string | null {
  const r = spawnSync(bin, ['version'], { encoding: 'utf8' });
  const m = /v(\d+\.\d+\.\d+)/.exec(`${r.stdout}${r.stderr}`);
  return m?.[1] ?? null;
}

/** Find hugo; if absent and root, `apt-get install -y hugo` (apt-get update first if that fails) within 180 s. */
export function findOrInstallHugo(log: (m: string) => void): HugoBinary {
  return findOrInstallDebianPackage({
    pkg: 'hugo',
    command: 'hugo',
    candidates: ['/usr/bin/hugo', '/usr/local/bin/hugo'],
    version,
    budgetMs: 180000,
    log,
  });
}

const CONFIG = (baseUrl: string) => `baseURL = "${baseUrl}/"
languageCode = "en-us"
title = "Public-Domain Music Archive (Hugo anchor)"
disableKinds = ["sitemap", "RSS", "robotsTXT", "404"]
enableRobotsTXT = false

[taxonomies]
  period = "period"
  genre = "genre"
  instrument = "instruments"

[mediaTypes."text/markdown"]
  suffixes = ["md"]

[outputFormats.MarkdownRecord]
  mediaType = "text/markdown"
  baseName = "index"
  isPlainText = true
  notAlternative = false

[outputs]
  home = ["HTML"]
  section = ["HTML"]
  taxonomy = ["HTML"]
  term = ["HTML"]
  page = ["HTML", "JSON", "MarkdownRecord"]
`;

const BASEOF = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ block "title" . }}{{ .Title }}{{ end }} · {{ site.Title }}</title>
<meta name="description" content="{{ block "description" . }}{{ site.Title }}{{ end }}">
<link rel="stylesheet" href="/site.css">
{{ range .AlternativeOutputFormats }}<link rel="alternate" type="{{ .MediaType.Type }}" href="{{ .RelPermalink }}">
{{ end }}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><a href="/">Public-Domain Music Archive</a>
<nav aria-label="Main"><ul><li><a href="/works/">Works</a></li><li><a href="/period/">Periods</a></li><li><a href="/genre/">Genres</a></li><li><a href="/instruments/">Instruments</a></li><li><a href="/search/">Search</a></li><li><a href="/api-docs/">API</a></li></ul></nav>
</header>
<main id="main">{{ block "main" . }}{{ end }}</main>
<footer class="site"><p>Public-domain music for channels. Records as <a href="/api/v1/">JSON</a>. Built {{ now.UTC.Format "2006-01-02T15:04:05Z" }}.</p></footer>
</body>
</html>
`;

const ASSET_ROWS = `<table>
<caption>{{ .caption }}</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Asset</th><th scope="col">Review state</th><th scope="col">Access</th><th scope="col">Rights</th><th scope="col">SHA-256</th></tr></thead>
<tbody>
{{ range .assets }}<tr data-asset="{{ .id }}">
<td>{{ .id }}</td>
<td><a href="{{ .url }}" rel="noopener nofollow">{{ .title }}</a> ({{ .kind }}) · <a href="{{ .sourcePageUrl }}" rel="noopener nofollow">source page</a>{{ with .technicalChecks }}<br><small>Checks: {{ . }}</small>{{ end }}</td>
<td><span class="badge state-{{ .reviewState }}">{{ replace .reviewState "-" " " | humanize }}</span></td>
<td><span class="access-{{ .access }}">{{ if eq .access "public" }}Public{{ else if eq .access "signed-in" }}Signed-in users only{{ else }}Archivists only{{ end }}</span>
{{ if eq .access "public" }}Anyone may download it without a key.{{ else if eq .access "signed-in" }}Signed-in download is not offered by this archive: it has no reader sign-in, so this file cannot be downloaded here.{{ else }}Kept in the private library.{{ end }}</td>
<td>{{ replace .rightsStatus "-" " " }}; {{ .license | default "no license stated" }}{{ with .attribution }}; attribution: {{ . }}{{ end }}</td>
<td>{{ with .sha256 }}<code>{{ . }}</code>{{ else }}not recorded{{ end }}</td>
</tr>
{{ end }}</tbody>
</table>
`;

const SINGLE_HTML = `{{ define "title" }}{{ .Params.work.title }} — {{ .Params.work.composer.name }}{{ end }}
{{ define "description" }}{{ .Params.work.summary }}{{ end }}
{{ define "main" }}{{ $w := .Params.work }}
<article data-work="{{ $w.slug }}">
<header>
<h1>{{ $w.title }}</h1>
{{ with $w.originalTitle }}{{ if ne . $w.title }}<p><i>{{ . }}</i></p>{{ end }}{{ end }}
{{ with $w.aliases }}<p class="aliases">Also known as: {{ delimit . "; " }}</p>{{ end }}
<p class="lead">{{ $w.composer.name }} ({{ $w.composer.born }} – {{ $w.composer.died }}){{ with $w.workNumber }}, {{ . }}{{ end }}</p>
<p>{{ $w.summary }}</p>
<p class="muted">Records: {{ range .AlternativeOutputFormats }}<a href="{{ .RelPermalink }}">{{ .Name }}</a> · {{ end }}<a href="#report">report a correction</a></p>
</header>
<section aria-labelledby="reuse"><h2 id="reuse">Reuse at a glance</h2>
<p>Composition: {{ replace $w.rights.composition.status "-" " " }}{{ range $t, $s := $w.rights.territories }} in {{ $t }} ({{ replace $s.status "-" " " }}){{ end }}. The archive's files: license {{ $w.rights.license | default "none stated" }}.</p>
<p>Arrangements: {{ len $w.arrangements }}; rights last checked {{ dateFormat "January 2, 2006" $w.rights.checkedAtUtc }}.</p>
</section>
<section aria-labelledby="facts"><h2 id="facts">Facts</h2>
<dl class="facts">
<dt>Composer</dt><dd>{{ $w.composer.name }}, born {{ $w.composer.born }}, died {{ $w.composer.died }}{{ with $w.composer.aliases }}<br><small>Also written: {{ delimit . "; " }}</small>{{ end }}</dd>
<dt>Catalog numbers</dt><dd>{{ range $i, $n := $w.catalogNumbers }}{{ if $i }}; {{ end }}{{ $n.catalog }} {{ $n.number }}{{ else }}none{{ end }}</dd>
<dt>Year</dt><dd>{{ $w.year }}</dd>
<dt>Period</dt><dd>{{ range .GetTerms "period" }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}</dd>
<dt>Genre</dt><dd>{{ range .GetTerms "genre" }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}</dd>
<dt>Key</dt><dd>{{ $w.key | default "not stated" }}</dd>
<dt>Instrumentation</dt><dd>{{ $w.instrumentation }} ({{ range $i, $t := .GetTerms "instruments" }}{{ if $i }}, {{ end }}<a href="{{ $t.RelPermalink }}">{{ $t.LinkTitle }}</a>{{ end }})</dd>
</dl>
</section>
<section aria-labelledby="about"><h2 id="about">About the work</h2>
{{ .Content }}
</section>
<section aria-labelledby="rights"><h2 id="rights">Rights</h2>
<p>{{ $w.rightsNote }}</p>
<table><caption>Three rights layers, each declared on its own</caption>
<thead><tr><th scope="col">Layer</th><th scope="col">Status</th><th scope="col">Why</th></tr></thead>
<tbody>
<tr><th scope="row">Composition</th><td>{{ replace $w.rights.composition.status "-" " " }}</td><td>{{ $w.rights.composition.note }}</td></tr>
<tr><th scope="row">Edition / file</th><td>{{ replace $w.rights.edition.status "-" " " }}</td><td>{{ $w.rights.edition.note }}</td></tr>
<tr><th scope="row">Recording</th><td>{{ replace $w.rights.recording.status "-" " " }}</td><td>{{ $w.rights.recording.note }}</td></tr>
</tbody></table>
<table><caption>Status of the composition by territory</caption>
<thead><tr><th scope="col">Territory</th><th scope="col">Status</th><th scope="col">Rule applied</th></tr></thead>
<tbody>{{ range $t, $s := $w.rights.territories }}<tr><th scope="row">{{ $t }}</th><td>{{ replace $s.status "-" " " }}</td><td>{{ $s.note }}</td></tr>{{ end }}</tbody></table>
<dl><dt>License</dt><dd>{{ $w.rights.license | default "none" }}</dd><dt>Attribution</dt><dd>{{ $w.rights.attribution | default "None required" }}</dd>
<dt>Checked</dt><dd>{{ dateFormat "January 2, 2006" $w.rights.checkedAtUtc }} (by a person, against the evidence below)</dd>
<dt>Evidence</dt><dd>{{ range $w.rights.evidenceUrls }}<a href="{{ . }}" rel="noopener nofollow">{{ . }}</a> {{ end }}</dd></dl>
</section>
<section aria-labelledby="sources"><h2 id="sources">Source assets</h2>
{{ if $w.sourceAssets }}{{ partial "assets.html" (dict "assets" $w.sourceAssets "caption" "Source scores and pages") }}{{ else }}<p>No source assets yet.</p>{{ end }}
</section>
<section aria-labelledby="arrangements"><h2 id="arrangements">Arrangements, best first</h2>
{{ range $w.arrangements }}<section class="arrangement" data-arrangement="{{ .id }}">
<h3>{{ .rank }}. {{ .title }}</h3>
<p><span class="badge state-{{ .reviewState }}">{{ replace .reviewState "-" " " | humanize }}</span> · made for: {{ .intendedRole }}{{ with .alsoSuits }}; also suits {{ delimit . ", " }}{{ end }}</p>
<dl><dt>Style</dt><dd>{{ .style }}</dd><dt>Instrumentation</dt><dd>{{ .instrumentation }}</dd>
<dt>Duration</dt><dd>{{ .duration }} (declared; not measured){{ if .loopable }} · loops seamlessly{{ end }}{{ if .trimmable }} · can be trimmed{{ end }}</dd>
<dt>Moods</dt><dd>{{ delimit .moods ", " }}</dd>
<dt>Rendering profiles</dt><dd>{{ range .renderingProfileSlugs }}<a href="/profiles/{{ . }}/">{{ . }}</a> {{ end }}</dd>
<dt>Rights</dt><dd>edition {{ replace .rights.edition.status "-" " " }} ({{ .rights.edition.note }}); recording {{ replace .rights.recording.status "-" " " }} ({{ .rights.recording.note }}); license {{ .rights.license | default "none" }}</dd></dl>
{{ partial "assets.html" (dict "assets" .assets "caption" (printf "Files of %s" .title)) }}
</section>{{ else }}<p>No arrangements yet. An agent can contribute one through the contribution API.</p>{{ end }}
</section>
<section aria-labelledby="comments"><h2 id="comments">Comments</h2>
{{ range $w.comments }}<blockquote><p>{{ .text | default .body }}</p><footer>{{ .author | default "anonymous" }}</footer></blockquote>{{ else }}<p>No comments yet.</p>{{ end }}
</section>
{{ with $w.videos }}<section aria-labelledby="videos"><h2 id="videos">Videos</h2><ul>{{ range . }}<li><a href="{{ .url }}" rel="noopener nofollow">{{ .title }}</a> — {{ .provider }}</li>{{ end }}</ul></section>{{ end }}
<section aria-labelledby="access"><h2 id="access">Who may download what</h2>
<ul>{{ range $w.sourceAssets }}<li>#{{ .id }} {{ .title }}: {{ .access }}</li>{{ end }}{{ range $w.arrangements }}{{ range .assets }}<li>#{{ .id }} {{ .title }}: {{ .access }}</li>{{ end }}{{ end }}</ul>
</section>
<section aria-labelledby="use"><h2 id="use">Use it in a channel</h2>
<pre><code>curl -s {{ site.BaseURL }}api/v1/works/{{ $w.slug }} | jq .data.title</code></pre>
</section>
<section aria-labelledby="report" id="report"><h2>Report a correction</h2>
<form method="post" action="/api/v1/corrections">
<input type="hidden" name="slug" value="{{ $w.slug }}">
<label>Field <select name="field"><option>title</option><option>composer</option><option>year</option><option>rights</option><option>other</option></select></label>
<label>What is wrong <textarea name="message" required maxlength="4000"></textarea></label>
<label>Evidence (URL) <input type="url" name="evidenceUrl"></label>
<button type="submit">Send the correction</button>
</form>
</section>
</article>
{{ end }}
`;

const SINGLE_JSON = `{{- $w := .Params.work -}}
{{- $links := dict "self" .Permalink "html" .Permalink "markdown" (printf "%sindex.md" .Permalink) -}}
{{- dict "apiVersion" "v1" "generatedAtUtc" (now.UTC.Format "2006-01-02T15:04:05Z") "data" (merge $w (dict "links" $links "narrative" (dict "markdown" .RawContent "html" .Content))) | jsonify -}}
`;

const SINGLE_MD = `{{- $w := .Params.work -}}
---
slug: {{ $w.slug }}
title: {{ $w.title | jsonify }}
composer: {{ $w.composer.name | jsonify }}
apiVersion: v1
generatedAtUtc: {{ now.UTC.Format "2006-01-02T15:04:05Z" }}
record: {{ .Permalink }}index.json
---

# {{ $w.title }} — {{ $w.composer.name }} ({{ $w.composer.born }}–{{ $w.composer.died }})

- Slug: \`{{ $w.slug }}\`
- Catalog: {{ $w.workNumber | default "—" }} ({{ range $i, $n := $w.catalogNumbers }}{{ if $i }}; {{ end }}{{ $n.catalog }} {{ $n.number }}{{ end }})
- Year: {{ $w.year }}; period: {{ $w.period }}; genre: {{ $w.genre }}; key: {{ $w.key | default "—" }}
- Instrumentation: {{ $w.instrumentation }}
- Summary: {{ $w.summary }}

## Rights

- Rights note: {{ $w.rightsNote }}
- Composition: {{ $w.rights.composition.status }} — {{ $w.rights.composition.note }}
- Edition/file: {{ $w.rights.edition.status }} — {{ $w.rights.edition.note }}
- Recording: {{ $w.rights.recording.status }} — {{ $w.rights.recording.note }}
- Territories: {{ range $t, $s := $w.rights.territories }}{{ $t }} {{ $s.status }} ({{ $s.note }}); {{ end }}
- License: {{ $w.rights.license | default "—" }}; attribution: {{ $w.rights.attribution | default "—" }}
- Checked: {{ $w.rights.checkedAtUtc }}
- Evidence: {{ delimit $w.rights.evidenceUrls ", " }}

## Source assets

| id | kind | title | review state | access | rights | license | sha256 | download | source page |
|---|---|---|---|---|---|---|---|---|---|
{{ range $w.sourceAssets }}| {{ .id }} | {{ .kind }} | {{ .title }} | {{ .reviewState }} | {{ .access }} | {{ .rightsStatus }} | {{ .license | default "—" }} | {{ .sha256 | default "—" }} | {{ .url }} | {{ .sourcePageUrl }} |
{{ end }}
## Arrangements
{{ range $w.arrangements }}
### Arrangement {{ .id }}: {{ .title }} (rank {{ .rank }})

- Role: {{ .intendedRole }}; duration {{ .duration }}{{ if .loopable }}; loopable{{ end }}
- Style: {{ .style }}; instrumentation: {{ .instrumentation }}; moods: {{ delimit .moods ", " }}
- Review state: {{ .reviewState }}
- Rendering profiles: {{ delimit .renderingProfileSlugs ", " }}
- Rights: edition {{ .rights.edition.status }}; recording {{ .rights.recording.status }}; license {{ .rights.license | default "—" }}

| id | kind | title | review state | access | rights | license | sha256 | download | source page |
|---|---|---|---|---|---|---|---|---|---|
{{ range .assets }}| {{ .id }} | {{ .kind }} | {{ .title }} | {{ .reviewState }} | {{ .access }} | {{ .rightsStatus }} | {{ .license | default "—" }} | {{ .sha256 | default "—" }} | {{ .url }} | {{ .sourcePageUrl }} |
{{ end }}{{ end }}
## About

{{ .RawContent }}
`;

const LIST_HTML = `{{ define "main" }}
<h1>{{ .Title }}</h1>
<p>{{ len .Pages }} works, by title.</p>
<ul class="works">{{ range .Pages.ByTitle }}<li><a href="{{ .RelPermalink }}">{{ .Params.work.title }}</a> — {{ .Params.work.composer.name }}, {{ .Params.work.year }}<br><small>{{ .Params.work.summary }}</small></li>{{ end }}</ul>
{{ end }}
`;

const TERMS_HTML = `{{ define "main" }}
<h1>{{ .Title }}</h1>
<ul>{{ range .Data.Terms.ByCount }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>{{ end }}</ul>
{{ end }}
`;

const HOME_HTML = `{{ define "main" }}
<h1>{{ site.Title }}</h1>
<p>{{ len (where site.RegularPages "Section" "works") }} works.</p>
<h2>Recently added</h2>
<ul>{{ range first 20 (where site.RegularPages "Section" "works").ByTitle }}<li><a href="{{ .RelPermalink }}">{{ .Params.work.title }}</a> — {{ .Params.work.composer.name }}</li>{{ end }}</ul>
{{ end }}
`;

export interface HugoSite {
  siteDir: string;
  works: number;
  durationMs: number;
}

/** Write the Hugo site for the catalog at `catalogDir` into `siteDir` (not timed by the bench). */
export function writeHugoSite(catalogDir: string, siteDir: string, baseUrl: string): HugoSite {
  const started = Date.now();
  const files: Record<string, string> = {
    'hugo.toml': CONFIG(baseUrl.replace(/\/+$/, '')),
    'layouts/_default/baseof.html': BASEOF,
    'layouts/partials/assets.html': ASSET_ROWS,
    'layouts/_default/single.html': SINGLE_HTML,
    'layouts/_default/single.json': SINGLE_JSON,
    'layouts/_default/single.md': SINGLE_MD,
    'layouts/_default/list.html': LIST_HTML,
    'layouts/_default/terms.html': TERMS_HTML,
    'layouts/index.html': HOME_HTML,
    'static/site.css':
      'body{font-family:system-ui,sans-serif;max-width:60rem;margin:auto;padding:1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem}\n',
    'content/works/_index.md': '---\ntitle: "Works"\n---\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(siteDir, name)), { recursive: true });
    writeFileSync(path.join(siteDir, name), text);
  }
  let works = 0;
  const worksDir = path.join(catalogDir, 'works');
  for (const slug of readdirSync(worksDir).sort()) {
    const text = readFileSync(path.join(worksDir, slug, 'index.md'), 'utf8');
    const end = text.indexOf('\n---\n', 4);
    if (!text.startsWith('---\n') || end < 0) throw new Error(`works/${slug}/index.md: no front matter`);
    const work = JSON.parse(text.slice(4, end)) as {
      slug: string;
      title: string;
      period: string;
      genre: string;
      instruments: string[];
    };
    const front = {
      title: work.title,
      slug: work.slug,
      period: [work.period],
      genre: [work.genre],
      instruments: work.instruments,
      work,
    };
    mkdirSync(path.join(siteDir, 'content', 'works', slug), { recursive: true });
    writeFileSync(
      path.join(siteDir, 'content', 'works', slug, 'index.md'),
      `${JSON.stringify(front)}\n${text.slice(end + 5)}`,
    );
    works++;
  }
  return { siteDir, works, durationMs: Date.now() - started };
}

/** The arguments of one Hugo build of `siteDir` into `outDir` (no caches kept between runs). */
export function hugoArgs(siteDir: string, outDir: string, cacheDir: string): string[] {
  return ['--source', siteDir, '--destination', outDir, '--cacheDir', cacheDir, '--cleanDestinationDir', '--quiet'];
}
