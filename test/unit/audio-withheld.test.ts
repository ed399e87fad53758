/**
 * A restriction holds on the bytes: a rendering with the bytes of a stored file of the work that is
 * not public is not published (src/lib/site/render-audio.ts, `withheldBy`).
 */
import { describe, expect, it } from 'vitest';
import { withheldBy } from '../../src/lib/site/render-audio.ts';
import type { AudioOutput } from '../../src/lib/site/audio-render.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

function rendered(...digests: string[]): AudioOutput {
  const files = digests.map((sha256, i) => ({
    name: `file-${i}.mp3`,
    role: 'master',
    format: 'mp3',
    mediaType: 'audio/mpeg',
    sha256,
    byteLength: 1,
  }));
  return { rendering: { status: 'rendered', files } as unknown as AudioOutput['rendering'], files: [] };
}

describe('rendered audio that matches a restricted file', () => {
  it('is withheld, naming the file and the asset whose bytes it has', () => {
    const reason = withheldBy(rendered(B, A), new Map([[A, 'asset 21, admin-only']]));
    expect(reason).toBe(
      'The rendered file-1.mp3 has the same bytes as a stored file of this work that is not public (asset 21, admin-only), so the archive does not publish it.',
    );
  });

  it('is published when no restricted file has its bytes, or there is none', () => {
    expect(withheldBy(rendered(B), new Map([[A, 'asset 21, admin-only']]))).toBeNull();
    expect(withheldBy(rendered(A), new Map())).toBeNull();
    expect(withheldBy(rendered(A), undefined)).toBeNull();
    expect(withheldBy({ rendering: { status: 'failed', reason: 'x' }, files: [] }, new Map([[A, 'x']]))).toBeNull();
  });
});
