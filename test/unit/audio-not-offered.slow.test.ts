/**
 * Rendered audio on a machine without the renderer (docs/audio.md, "Installing the renderer"):
 * the build still makes every record, and each public score's `renderedAudio` says audio is not
 * offered and why; the published shape passes the record schema. And the cached mode (an apply's
 * build) marks what the render cache lacks as pending, without rendering.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { validate } from '../../src/domain/validation.ts';
import { renderAudios } from '../../src/lib/site/render-audio.ts';
import { renderedAudioRecord } from '../../src/lib/site/audio-record.ts';
import { RenderedAudio } from '../../src/schemas/audio.ts';
import { PROJECT_ROOT } from '../helpers/corpus-content.ts';
import { expectEach } from '../helpers/expect-each.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-audio-not-offered-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { catalog } = loadCatalog(path.join(PROJECT_ROOT, 'content'));

describe('rendered audio without the renderer', () => {
  it('says for every public score that audio is not offered, and why', async () => {
    const { entries, summary } = await renderAudios(catalog, dir, {
      mode: 'build',
      tools: { fluidsynth: path.join(dir, 'no-fluidsynth-here') },
    });
    expect(summary.notOffered).toMatch(/FluidSynth is not installed .* \(Debian package fluidsynth/);
    expect(summary.rendered).toBe(0);
    // Nine source scores and seventeen arrangement scores of the sample, each with the reason.
    expect(entries.size).toBe(26);
    for (const entry of entries.values()) expect(entry).toEqual({ status: 'not-offered', reason: summary.notOffered });
    const record = renderedAudioRecord(
      entries.get('satie-gymnopedie-1/1')!,
      'https://a.example',
      'satie-gymnopedie-1',
      1,
    );
    expect(validate(RenderedAudio, record)).toEqual([]);
    expect(record).toMatchObject({
      status: 'not-offered',
      reason: summary.notOffered,
      files: [],
      reviewState: 'technical-pass',
    });
  });

  it('renders nothing in the cached mode: what the cache lacks is pending', async () => {
    const { entries, summary } = await renderAudios(catalog, dir, { mode: 'cached', cache: null });
    if (summary.notOffered) return; // no renderer on this machine: covered above
    expect(summary).toMatchObject({ rendered: 0, synthesized: 0, pending: 26 });
    expectEach([...entries.values()], (e) => e.status === 'pending');
  });

  it('makes nothing when off', async () => {
    const { entries, summary } = await renderAudios(catalog, dir, { mode: 'off' });
    expect(entries.size).toBe(0);
    expect(summary.rendered).toBe(0);
  });
});
