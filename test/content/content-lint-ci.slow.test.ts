/**
 * The content repository's pull-request lint as GitHub would run it: the
 * shipped workflow's `run` command, executed by bash in a fixture repository that holds the
 * bundled lint (written by `writeContentLintCi`, as the server does when it seeds a content
 * repository), with the workflow's environment (BASE_SHA, GITHUB_STEP_SUMMARY): the annotations
 * name the broken file and line, the summary lists every problem, the exit code fails the job.
 * The bundle needs nothing beside itself: no node_modules next to it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_LINT_BUNDLE, CONTENT_LINT_WORKFLOW, CONTENT_LINT_WORKFLOW_SOURCE, writeContentLintCi } from '../../api/site/content-lint-ci.ts';

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'mini');
const WORK = 'works/bach-minuet-in-g/index.md';
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-content-ci-'));
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.org', '-c', 'commit.gpgsign=false', '-C', root, ...args], { encoding: 'utf8' }).trim();

interface Step {
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
const workflow = parse(readFileSync(CONTENT_LINT_WORKFLOW_SOURCE, 'utf8')) as { on: { pull_request: { types: string[] } }; permissions: Record<string, string>; jobs: { lint: { steps: Step[] } } };
const lintStep = workflow.jobs.lint.steps.find((s) => s.run?.includes('lint.mjs'))!;

const PERSON = 'people/petzold-christian.json';
let base = '';
beforeAll(async () => {
  cpSync(FIXTURE, root, { recursive: true });
  expect(await writeContentLintCi(root)).toEqual([CONTENT_LINT_WORKFLOW, CONTENT_LINT_BUNDLE]);
  git('init', '--quiet', '--initial-branch=main');
  git('add', '--all');
  git('commit', '--quiet', '-m', 'base');
  base = git('rev-parse', 'HEAD');
  git('checkout', '--quiet', '-b', 'pr');
  // A person's death date broken: the pull request changes the person's record.
  const file = path.join(root, PERSON);
  writeFileSync(file, readFileSync(file, 'utf8').replace('"died": "1733-07-25"', '"died": "1733-02-30"'));
  git('commit', '--quiet', '-am', 'a broken date');
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the content-lint workflow', () => {
  it('runs on pull requests with read-only permissions and a full-history checkout', () => {
    expect(workflow.on.pull_request.types).toEqual(['opened', 'synchronize', 'reopened']);
    expect(workflow.permissions).toEqual({ contents: 'read' });
    const checkout = workflow.jobs.lint.steps.find((s) => s.uses?.startsWith('actions/checkout@'));
    expect(checkout?.with?.['fetch-depth']).toBe(0);
    expect(lintStep.run).toContain(`node ${CONTENT_LINT_BUNDLE}`);
    expect(lintStep.env?.BASE_SHA).toBe('${{ github.event.pull_request.base.sha }}');
    expect(readFileSync(path.join(root, CONTENT_LINT_WORKFLOW), 'utf8')).toBe(readFileSync(CONTENT_LINT_WORKFLOW_SOURCE, 'utf8'));
  });

  it('fails at once, saying what to do, in a repository without the bundled lint', () => {
    const bare = mkdtempSync(path.join(os.tmpdir(), 'pdma-content-ci-bare-'));
    try {
      const run = spawnSync('bash', ['-e', '-c', lintStep.run!], { cwd: bare, encoding: 'utf8', env: { PATH: process.env.PATH, BASE_SHA: base } });
      expect(run.status).toBe(1);
      expect(run.stdout).toContain("::error title=Content lint::.github/content-lint/lint.mjs is missing: run 'npm run content-lint:install");
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it("its command prints file:line annotations for the pull request's broken line and fails", () => {
    expect(existsSync(path.join(root, 'node_modules'))).toBe(false);
    const summary = path.join(root, '..', `${path.basename(root)}-summary.md`);
    const run = spawnSync('bash', ['-e', '-c', lintStep.run!], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, HOME: os.tmpdir(), BASE_SHA: base, GITHUB_STEP_SUMMARY: summary, GITHUB_ACTIONS: 'true' },
    });
    try {
      expect(run.stderr).toBe('');
      expect(run.status).toBe(1);
      const line = readFileSync(path.join(root, PERSON), 'utf8').split('\n').indexOf('  "died": "1733-02-30",') + 1;
      expect(line).toBeGreaterThan(1);
      expect(run.stdout.split('\n').filter((l) => l.startsWith('::error file='))).toEqual([
        `::error file=${PERSON},line=${line},title=Content lint /died::/died: is not a real calendar date (got "1733-02-30")`,
      ]);
      expect(readFileSync(summary, 'utf8')).toContain(`| \`${PERSON}:${line}\` | \`/died\` | is not a real calendar date (got "1733-02-30") |`);
    } finally {
      rmSync(summary, { force: true });
    }
  });
});
