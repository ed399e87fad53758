/**
 * A content folder (the mini fixture) whose one work's source score is a real full-length score
 * from ../shared/corpora, copied into the temp folder only (never into the repository).
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './app.ts';
import { CORPORA, LARGEST_QUARTET as LARGEST_QUARTET_FILE, LIEDER, QUARTETS, findScore } from './corpus-content.ts';

export { CORPORA };
/** The longest string quartet of the corpus: Hugo Wolf's String Quartet in D minor, 96 pages at 840 px. */
export const LARGEST_QUARTET = findScore(QUARTETS, LARGEST_QUARTET_FILE);
export const LARGEST_QUARTET_PAGES = 96;
/** A long song (voice and piano): Schubert's "Im Gegenwärtigen Vergangenes", D.710. */
export const LONG_SONG = findScore(LIEDER, 'lc28789279.mxl');

/** The work that carries the score in the content written by corpusContent. */
export const CORPUS_WORK = 'bach-minuet-in-g';

/** Write `content` as the mini fixture with `mxl` as its work's source score (`score.mxl`). */
export function corpusContent(content: string, mxl: string, title: string): void {
  cpSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'), content, { recursive: true });
  const work = path.join(content, 'works', CORPUS_WORK);
  rmSync(path.join(work, 'score.musicxml'));
  cpSync(mxl, path.join(work, 'score.mxl'));
  const index = path.join(work, 'index.md');
  const text = readFileSync(index, 'utf8')
    .replace(
      '    title: Opening phrase (MusicXML 4.0)\n    file: score.musicxml',
      `    title: ${title}\n    file: score.mxl`,
    )
    .replace('    kind: musicxml\n', '    kind: mxl\n')
    .replace('mediaType: application/vnd.recordare.musicxml+xml', 'mediaType: application/vnd.recordare.musicxml');
  if (!text.includes('file: score.mxl') || !text.includes('kind: mxl')) throw new Error('the mini fixture changed');
  writeFileSync(index, text);
}
