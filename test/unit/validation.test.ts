import { describe, expect, it } from 'vitest';
import { validate } from '../../src/domain/validation.ts';
import { ChannelContext } from '../../src/schemas/channel.ts';
import { WorkRights } from '../../src/schemas/work.ts';

describe('validation messages', () => {
  it('names each field and says what is wrong, all at once', () => {
    expect(validate(ChannelContext, { channelKey: 'x'.repeat(101), intendedRole: 'karaoke', extra: 1 }))
      .toMatchInlineSnapshot(`
      [
        {
          "detail": "is not an allowed field here",
          "pointer": "/extra",
        },
        {
          "detail": "must be at most 100 characters (got 101)",
          "pointer": "/channelKey",
        },
        {
          "detail": "must be one of: music-bed, music-lead, music-ambient, music-sleep-lead, intro, outro, short-form (got "karaoke")",
          "pointer": "/intendedRole",
        },
      ]
    `);
  });

  it('reports missing fields at their own pointer', () => {
    expect(validate(ChannelContext, {})).toEqual([
      { pointer: '/channelKey', detail: 'is required' },
      { pointer: '/intendedRole', detail: 'is required' },
    ]);
  });

  it('words patterns and formats for people', () => {
    const errors = validate(WorkRights.properties.territories.properties.US, { status: 'maybe', note: 3 });
    expect(errors.map((e) => `${e.pointer} ${e.detail}`)).toEqual([
      '/status must be one of: public-domain, not-public-domain, unclear, unknown (got "maybe")',
      '/note must be string (got 3)',
    ]);
    const evidence = validate(WorkRights.properties.evidenceUrls, ['http://example.org/x']);
    expect(evidence).toEqual([{ pointer: '/0', detail: 'must be an https:// URL (got "http://example.org/x")' }]);
  });
});
