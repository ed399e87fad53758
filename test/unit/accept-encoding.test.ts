/** Content-coding negotiation (RFC 9110 12.5.3) for the precompressed score pages. */
import { describe, expect, it } from 'vitest';
import { chooseEncoding } from '../../api/http/accept-encoding.ts';

const both = ['br', 'gzip'] as const;

describe('chooseEncoding', () => {
  it('answers identity without Accept-Encoding, with an empty one, or when the file has no compressed forms', () => {
    expect(chooseEncoding(undefined, both)).toBe('identity');
    expect(chooseEncoding('', both)).toBe('identity');
    expect(chooseEncoding('br, gzip', [])).toBe('identity');
  });
  it('prefers brotli, then gzip, among equal weights, as browsers ask', () => {
    expect(chooseEncoding('gzip, deflate, br, zstd', both)).toBe('br');
    expect(chooseEncoding('gzip, deflate', both)).toBe('gzip');
    expect(chooseEncoding('gzip, deflate, br', ['gzip'])).toBe('gzip');
    expect(chooseEncoding('deflate, zstd', both)).toBe('identity');
  });
  it('follows q-values, refusals and the wildcard', () => {
    expect(chooseEncoding('br;q=0.5, gzip', both)).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0.1', both)).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0', both)).toBe('identity');
    expect(chooseEncoding('*', both)).toBe('br');
    expect(chooseEncoding('*;q=0.2, gzip;q=0.8', both)).toBe('gzip');
    expect(chooseEncoding('gzip;q=0.5', both)).toBe('gzip');
    expect(chooseEncoding('identity;q=1, gzip;q=0.5', both)).toBe('identity');
    expect(chooseEncoding('x-gzip', both)).toBe('gzip');
    expect(chooseEncoding('BR', both)).toBe('br');
    expect(chooseEncoding('gzip;q=0.8, br;Q=0.9', both)).toBe('br');
  });
  it('answers identity when nothing offered is acceptable (RFC 9110 recommends that over 406)', () => {
    expect(chooseEncoding('identity;q=0', both)).toBe('identity');
    expect(chooseEncoding('*;q=0', both)).toBe('identity');
    expect(chooseEncoding('zstd', both)).toBe('identity');
  });
  it('reads only the first entries of an absurdly long header', () => {
    const long = `${Array.from({ length: 5000 }, (_, i) => `x${i}`).join(', ')}, br`;
    expect(chooseEncoding(long, both)).toBe('identity');
  });
});
