/**
 * `npm run lint:content -- [path] [--base REF | --file PATH ...] [--format text|github]`: check a
 * content repository against the schemas and cross-file rules; exit 1 when there is any problem.
 * The build runs the same checks and refuses to publish content that fails them.
 *
 *   (no option)        the whole repository, one "file: /field: message" line per problem
 *   --base REF         only what the files changed since REF put in question (`git diff
 *                      REF...HEAD`, i.e. against the merge base, as a pull request's diff)
 *   --file PATH        the same for a given list of changed paths (repeat the option)
 *   --format github    GitHub workflow commands, `::error file=…,line=…,title=…::message`, so a
 *                      pull request shows each problem on its line (stdout); `text` otherwise,
 *                      with the line: "file:line: /field: message" (stderr)
 *
 * Exit codes: 0 no problem, 1 problems found, 2 the command could not run (bad option, unknown ref).
 * Also bundled into one self-contained file for content repositories' CI (content/.github/).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatLintMessage } from '../src/domain/catalog.ts';
import { formatLocatedMessage, githubAnnotation, lintContent } from '../src/domain/content-lint.ts';

const USAGE = 'usage: lint-content [path] [--base REF | --file PATH ...] [--format text|github]';

function fail(message: string): never {
  console.error(`lint-content: ${message}`);
  console.error(USAGE);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      base: { type: 'string' },
      file: { type: 'string', multiple: true },
      format: { type: 'string', default: 'text' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
try {
  parsed = parse();
} catch (err) {
  fail((err as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length > 1) fail(`one content repository path at most (got ${positionals.length})`);
if (values.format !== 'text' && values.format !== 'github')
  fail(`--format must be "text" or "github" (got "${values.format}")`);
if (values.base !== undefined && values.file !== undefined) fail('give --base or --file, not both');

// The bundled copy runs from <content repo>/.github/content-lint/, the source from the project's
// scripts/: the default path is the project's sample catalog only for the source.
const target = path.resolve(
  positionals[0] ??
    (import.meta.dirname.endsWith(`${path.sep}scripts`) ? path.join(import.meta.dirname, '..', 'content') : '.'),
);
if (!existsSync(target)) fail(`no such directory: ${target}`);

const git = (args: string[]) =>
  execFileSync('git', ['-C', target, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });

let files: string[] | undefined = values.file;
if (values.base !== undefined) {
  const base = values.base;
  if (base.startsWith('-')) fail(`--base must name a ref or commit (got "${base}")`);
  try {
    git(['rev-parse', '--verify', '--quiet', `${base}^{commit}`]);
  } catch {
    fail(
      `the base "${base}" is not a commit known in ${target}; fetch it first (actions/checkout with fetch-depth: 0)`,
    );
  }
  // Paths relative to the content repository; a rename counts as its old and its new path.
  const out = git(['diff', '--name-only', '-z', '--no-renames', '--relative', `${base}...HEAD`, '--']);
  files = out.split('\0').filter((f) => f !== '');
}

const started = Date.now();
const result = lintContent(target, files);
const scope =
  files === undefined
    ? 'the whole repository'
    : result.scope.full
      ? `the whole repository (a shared file changed: ${result.scope.files.filter((f) => !f.startsWith('works/')).join(', ')})`
      : `${result.scope.works.length} changed work(s)`;

// Terms outside the vocabulary: warnings with the nearest terms; they never fail the lint.
for (const w of result.warnings) {
  if (values.format === 'github')
    console.log(`::warning file=${w.file},line=${w.line},title=Vocabulary::${w.pointer}: ${w.message}`);
  else console.error(`warning: ${formatLocatedMessage(w)}`);
}

if (values.format === 'github') {
  let prefix = '';
  try {
    prefix = git(['rev-parse', '--show-prefix']).trim();
  } catch {
    // Not in a git repository: paths relative to the content repository.
  }
  for (const m of result.messages) console.log(githubAnnotation(m, prefix));
  const summary = `content lint: ${result.messages.length} problem(s) in ${scope}; ${result.worksChecked} work(s) checked in ${Date.now() - started} ms`;
  console.log(result.messages.length > 0 ? `::error title=Content lint::${summary}` : summary);
  // GitHub shows at most 10 error annotations per step: the job summary lists every problem.
  const summaryFile = process.env.GITHUB_STEP_SUMMARY;
  if (summaryFile) {
    const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
    const rows = result.messages.map(
      (m) => `| \`${cell(prefix + m.file)}:${m.line}\` | \`${cell(m.pointer || '(file)')}\` | ${cell(m.message)} |`,
    );
    const table = rows.length > 0 ? ['| file:line | field | problem |', '|---|---|---|', ...rows].join('\n') : '';
    appendFileSync(summaryFile, `## Content lint\n\n${summary}\n\n${table}\n`);
  }
} else if (result.messages.length > 0) {
  // The whole-repository text form stays the historical "file: /field: message".
  for (const m of result.messages) console.error(files === undefined ? formatLintMessage(m) : formatLocatedMessage(m));
  console.error(`\n${result.messages.length} problem(s) in ${target}${files === undefined ? '' : ` (${scope})`}`);
} else if (files === undefined) {
  console.log(
    `content OK: ${result.worksChecked} works, ${result.profiles} profiles, ${result.instruments} instruments in ${target}`,
  );
} else {
  console.log(`content OK: ${result.worksChecked} work(s) checked in ${scope} of ${target}`);
}
process.exit(result.messages.length > 0 ? 1 : 0);
