/**
 * Bench section "import-folder" (opt-in: `npm run bench -- --only import-folder`): the submit
 * phase of a plain folder of 1,000 works (docs/imports.md, "A plain folder of scores"), the
 * target being under a minute on the project's machine, with an admin key (the public intake's
 * limit, ARCHIVE_CONTRIBUTION_RATE_LIMIT, is not in the way: 20 a minute would take 50 minutes).
 *
 * The folder is written here: 1,000 small MusicXML songs in several encodings (UTF-8, UTF-16 with
 * a BOM, .mxl) and a works.csv giving each one's facts. Measured, interleaved: the dry run of the
 * folder (reading, hashing, planning and checking every body: the anchor, nothing sent), the real
 * submit into a fresh archive (`npm start` on loopback), and a re-run (every work already
 * submitted: idempotent replays).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { figure, type Section } from './results.ts';
import { PROJECT_ROOT, startArchive } from './util.ts';
import { encodedScore, mxlOf, type Encoding } from '../../test/helpers/encoded-scores.ts';

const ADMIN_KEY = 'bench-import-folder-admin-key-1';
const BATCH = 'bench-folder';
const ONE_MINUTE_MS = 60_000;

/** `node scripts/import.ts args` (nice'd, as the other import benches): wall ms and its JSON report. */
function timedImport(args: string[], env: Record<string, string> = {}): { ms: number; report: Record<string, any> } {
  const t0 = Date.now();
  const r = spawnSync('nice', ['-n', '10', process.execPath, 'scripts/import.ts', ...args, '--json'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Date.now() - t0;
  const report = JSON.parse(r.stdout.trim().split('\n').at(-1) || '{}') as Record<string, any>;
  return { ms, report: { ...report, exit: r.status } };
}

/** 1,000 songs and their works.csv rows (made-up composers, a few hundred of them). */
function writeFolder(dir: string, works: number): void {
  const encodings: Encoding[] = ['utf-8', 'utf-16le', 'utf-8-bom', 'utf-16be'];
  const steps = ['C', 'D', 'E', 'F', 'G', 'A', 'B'] as const;
  const rows = [
    'file,title,composer,composerBorn,composerDied,firstPublished,catalogNumber,genre,instruments,license,sourceUrl',
  ];
  for (let i = 0; i < works; i++) {
    const composer = `Bench Composer ${Math.floor(i / 4) + 1}`;
    const title = `Song ${i + 1}`;
    const text = { workTitle: title, composer, step: steps[i % steps.length], movementTitle: `No. ${i}` };
    const compressed = i % 10 === 9;
    const rel = `part-${Math.floor(i / 100)}/song-${i + 1}.${compressed ? 'mxl' : 'xml'}`;
    const bytes = encodedScore(text, encodings[i % encodings.length]!);
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), compressed ? mxlOf(bytes) : bytes);
    rows.push(
      `${rel},${title},${composer},1800,1850,1840,Op. ${(i % 4) + 1},Lied,voice,CC0-1.0,https://scores.example.org/bench/${i + 1}`,
    );
  }
  writeFileSync(path.join(dir, 'works.csv'), `${rows.join('\n')}\n`);
}

export function importFolderSection(options: { works?: number } = {}): Section {
  return {
    name: 'import-folder',
    optIn: true,
    description:
      'submit phase of a plain folder of 1,000 works with works.csv through the admin API (target: under a minute) vs the dry run of the same folder',
    async run(ctx) {
      const works = options.works ?? (ctx.quick ? 200 : 1000);
      const root = ctx.cleanup.tempDir('import-folder');
      const folder = path.join(root, 'scores');
      writeFolder(folder, works);
      const dataDir = path.join(root, 'data');
      const { url, proc: server } = await startArchive({
        cleanup: ctx.cleanup,
        label: 'archive',
        env: { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: `bench=${ADMIN_KEY}` },
        timeoutMs: 600_000,
      });
      const args = [folder, '--batch', BATCH, '--server', url];
      try {
        // Interleaved: the anchor (dry run), the submit, then the anchor again and the re-run.
        const dry1 = timedImport([...args, '--dry-run'], { ARCHIVE_ADMIN_KEY: ADMIN_KEY });
        const submit = timedImport(args, { ARCHIVE_ADMIN_KEY: ADMIN_KEY });
        const dry2 = timedImport([...args, '--dry-run'], { ARCHIVE_ADMIN_KEY: ADMIN_KEY });
        const again = timedImport(args, { ARCHIVE_ADMIN_KEY: ADMIN_KEY });
        const dryMs = Math.min(dry1.ms, dry2.ms);
        ctx.log(
          `${works} works: dry run ${dry1.ms}/${dry2.ms} ms, submit ${submit.ms} ms (${submit.report.submitted} submitted, ${(submit.report.failed ?? []).length} failed), re-run ${again.ms} ms (${again.report.alreadySubmitted} already)`,
        );
        return {
          status: submit.report.submitted === works ? 'ok' : 'error',
          ...(submit.report.submitted === works
            ? {}
            : { message: `submitted ${submit.report.submitted} of ${works}: ${JSON.stringify(submit.report.failed)}` }),
          figures: [
            figure(
              `submit of ${works} works (plain folder)`,
              'ms',
              submit.ms,
              dryMs,
              'dry run of the same folder',
              'lower',
            ),
            figure(
              `submit of ${works} works against one minute`,
              'ms',
              submit.ms,
              (ONE_MINUTE_MS * works) / 1000,
              'the target (a minute per 1,000 works)',
              'lower',
              { ratio: 1, op: '<=' },
            ),
            figure(
              `re-run of ${works} works (all already submitted)`,
              'ms',
              again.ms,
              dryMs,
              'dry run of the same folder',
              'lower',
            ),
          ],
          details: {
            works,
            dryRunMs: [dry1.ms, dry2.ms],
            submitMs: submit.ms,
            rerunMs: again.ms,
            submit: {
              submitted: submit.report.submitted,
              duplicates: submit.report.duplicates,
              failed: submit.report.failed,
              maxRssBytes: submit.report.maxRssBytes,
            },
            rerun: { submitted: again.report.submitted, alreadySubmitted: again.report.alreadySubmitted },
            // What the public intake's limit would allow (ARCHIVE_CONTRIBUTION_RATE_LIMIT's default, 20 a minute).
            publicIntakeMinutes: works / 20,
          },
        };
      } finally {
        await server.stop();
      }
    },
  };
}
