/**
 * Move a content repository to people as records, once (docs/rights.md, "Moving a content
 * repository"):
 *
 *   npm run migrate:people -- <content folder> [--commit]
 *
 * Every work file that embeds its composer or lyricist names them by slug instead, and their
 * facts move to people/<slug>.json with the evidence the work cited; stored territory and
 * composition statuses are removed (they are derived now); a first publication the record stated
 * becomes a fact with evidence. Only the changed nodes of each work file are rewritten, the
 * narrative untouched. With --commit (the folder a git work tree, e.g. a stopped server's
 * ARCHIVE_DATA_DIR/content), the change is committed on the checked-out branch. Then run
 * `npm run lint:content -- <content folder>`. Exit code 0 when done, 2 on usage errors.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PersonContent } from '../src/schemas/person.ts';
import { migrateWork } from '../src/domain/people-migration.ts';
import { personFileText } from '../src/domain/people.ts';
import { moveKeyAfter, parseFrontMatter, rewriteWorkFile, splitWorkFile } from '../src/domain/work-file.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { commit: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
});
const USAGE = 'usage: npm run migrate:people -- <content folder> [--commit]';
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const dir = positionals[0];
if (!dir || !existsSync(path.join(dir, 'works'))) {
  process.stderr.write(`${dir ? `${dir} has no works/ folder` : 'missing the content folder'}\n${USAGE}\n`);
  process.exit(2);
}

const people = new Map<string, PersonContent>();
const peopleDir = path.join(dir, 'people');
if (existsSync(peopleDir))
  for (const name of readdirSync(peopleDir).sort())
    if (name.endsWith('.json')) {
      const p = JSON.parse(readFileSync(path.join(peopleDir, name), 'utf8')) as PersonContent;
      people.set(p.slug, p);
    }
const before = new Map([...people].map(([k, v]) => [k, personFileTextOf(v)]));
function personFileTextOf(p: PersonContent): string {
  return personFileText(p);
}

/** When a work's file was first committed (a review's apply), as UTC; null outside git. */
function landedAt(folder: string): string | null {
  try {
    const out = execFileSync(
      'git',
      ['-C', dir!, 'log', '--diff-filter=A', '--format=%ct', '--', `works/${folder}/index.md`],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    )
      .trim()
      .split('\n')
      .filter(Boolean)
      .pop();
    return out ? new Date(Number(out) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : null;
  } catch {
    return null;
  }
}

let works = 0;
const notes: string[] = [];
for (const folder of readdirSync(path.join(dir, 'works')).sort()) {
  const file = path.join(dir, 'works', folder, 'index.md');
  if (!existsSync(file)) continue;
  const text = readFileSync(file, 'utf8');
  const data = parseFrontMatter(splitWorkFile(text).frontMatter);
  const result = migrateWork(data, people, landedAt(folder));
  notes.push(...result.notes);
  if (!result.changed) continue;
  const rewritten = rewriteWorkFile(text, data, result.after);
  writeFileSync(file, moveKeyAfter(moveKeyAfter(rewritten, 'hasLyrics', 'lyricist'), 'firstPublished', 'year'));
  works++;
}
let written = 0;
if (people.size > 0) mkdirSync(peopleDir, { recursive: true });
for (const [slug, p] of people) {
  const text = personFileText(p);
  if (before.get(slug) === text) continue;
  writeFileSync(path.join(peopleDir, `${slug}.json`), text);
  written++;
}
process.stdout.write(`Moved ${works} work files to people as records; wrote ${written} person records.\n`);
for (const n of notes) process.stdout.write(`  note: ${n}\n`);
if (values.commit && (works > 0 || written > 0)) {
  execFileSync('git', ['-C', dir, 'add', '-A', '--', 'works', 'people'], { stdio: 'inherit' });
  execFileSync(
    'git',
    [
      '-C',
      dir,
      '-c',
      'user.name=Archive migration',
      '-c',
      'user.email=migration@archive.invalid',
      'commit',
      '-q',
      '-m',
      'People are records: composers and lyricists move to people/<slug>.json, works name them by slug, rights conclusions are derived',
    ],
    { stdio: 'inherit' },
  );
  process.stdout.write('Committed.\n');
}
