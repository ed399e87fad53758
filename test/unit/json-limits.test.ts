import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH, prototypeKeyPointers } from '../../src/domain/json-limits.ts';

describe('exceedsJsonDepth', () => {
  it('accepts nesting up to the limit and refuses one level more', () => {
    expect(exceedsJsonDepth('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth('{"a":'.repeat(5000) + '1' + '}'.repeat(5000))).toBe(true);
  });
  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth(JSON.stringify({ a: '['.repeat(1000), b: '\\"[[[' }))).toBe(false);
  });
});

describe('prototypeKeyPointers', () => {
  it('names every prototype key with an escaped JSON Pointer, without recursing', () => {
    expect(
      prototypeKeyPointers(JSON.parse('{"a/b":[{"__proto__":1}],"x":{"constructor":2},"prototype":3}')).sort(),
    ).toEqual(['/a~1b/0/__proto__', '/prototype', '/x/constructor']);
    expect(prototypeKeyPointers({ title: 'x', list: [1, { y: null }] })).toEqual([]);
    expect(prototypeKeyPointers(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toEqual([]);
  });
});
