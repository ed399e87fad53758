/**
 * A server stopped while its start's preparation runs (the rebuilder's build checkout made in the
 * background: api/site/builds.ts, `Rebuilder.prepare`) stops that too and waits for it: nothing of
 * it writes in the data folder once `stop` has returned, so the folder can be removed or moved.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openServed, type Served } from './ops-helpers.ts';

/** Every path under `dir` but the content repository's. */
function tree(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const name = `${rel}${e.name}`;
    if (!e.isDirectory()) return [name];
    return name === 'content' ? [] : [`${name}/`, ...tree(dir, `${name}/`)];
  });
}

let s: Served | null = null;
afterEach(async () => {
  await s?.close();
  s = null;
});

describe('a server stopped during its start', () => {
  it('stops the start’s checkout and waits for it: the data folder stays as stop left it', async () => {
    s = await openServed({}, { contentRepo: true });
    await s.serving.stop('stopped during its start');
    const atStop = tree(s.dataDir);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(tree(s.dataDir)).toEqual(atStop);
  });
});
