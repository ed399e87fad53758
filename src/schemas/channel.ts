/** The channel contract a caller declares when it asks for music (spec Part 2: ChannelContext, MusicRequirements). */
import { Type, type Static } from '@sinclair/typebox';
import { MUSIC_ROLES, Nullable, StringEnum } from './common.ts';
import { model } from './options.ts';

export const ChannelContext = Type.Object(
  {
    channelKey: Type.String({ maxLength: 100, description: 'Stable key of the channel.' }),
    displayName: Type.Optional(
      Nullable(Type.String({ maxLength: 160 }), { description: 'Display name of the channel.' }),
    ),
    audioProfile: Type.Optional(
      Nullable(Type.String({ maxLength: 120 }), { description: 'Audio profile of the channel.' }),
    ),
    musicAllowed: Type.Optional(Type.Boolean({ description: 'False when the channel must not carry music at all.' })),
    intendedRole: StringEnum(MUSIC_ROLES, { description: 'The role music plays in this channel.' }),
    narrationPresent: Type.Optional(Type.Boolean({ description: 'True when narration plays over the music.' })),
    usageNotes: Type.Optional(Nullable(Type.String({ maxLength: 600 }), { description: 'Free notes on usage.' })),
  },
  model('ChannelContext', 'A channel: its key and the intended music role.'),
);
export type ChannelContext = Static<typeof ChannelContext>;

export const MusicRequirements = Type.Object(
  {
    style: Type.Optional(Nullable(Type.String({ maxLength: 80 }), { description: 'Wanted style.' })),
    instrumentation: Type.Optional(
      Nullable(Type.String({ maxLength: 220 }), { description: 'Wanted instrumentation.' }),
    ),
    mood: Type.Optional(Nullable(Type.String({ maxLength: 120 }), { description: 'Wanted mood.' })),
    targetDurationSeconds: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 14400, format: 'int32' }), {
        description: 'Target duration in seconds (1 to 14400).',
      }),
    ),
    requireMusicXml: Type.Optional(Type.Boolean({ description: 'Require a MusicXML score.' })),
    requireApprovedRenderingProfile: Type.Optional(
      Type.Boolean({ description: 'Require every rendering profile to be approved.' }),
    ),
    // The spec sets no length on a format name; the 1 MiB body limit bounds it.
    requiredFormats: Type.Array(
      Type.String({ description: 'One format, matched case-insensitively against asset kinds.' }),
      {
        description: 'Formats that must be present as public assets, such as "musicxml" and "mp3".',
      },
    ),
  },
  model('MusicRequirements', 'What the music must satisfy.'),
);
export type MusicRequirements = Static<typeof MusicRequirements>;
