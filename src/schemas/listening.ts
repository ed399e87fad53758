/**
 * Listening approval of rendered audio over the admin API (docs/audio.md, "Listening approval"):
 * the request a listener sends after hearing a score's rendered master, and the answer. The fact
 * it records is `ListeningFact` (src/schemas/audio.ts), on the score asset of the work file.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AbsoluteUrl, Slug, StringEnum } from './common.ts';
import { LISTENING_VERDICTS, ListeningFact } from './audio.ts';
import { model, strict } from './options.ts';

export const ListeningBody = Type.Object(
  {
    verdict: StringEnum(LISTENING_VERDICTS, {
      description:
        'approved: you listened and approve it for reuse (it becomes human-listening-approved); declined: you listened and do not approve it.',
    }),
    audioSha256: Type.String({
      pattern: '^[0-9a-fA-F]{64}$',
      description:
        "SHA-256 of the audio you heard: the master.flac of the asset's renderedAudio.files, as the served work record lists it. A verdict that names other audio (or none) is refused: nobody approves audio they did not hear.",
    }),
  },
  model('ListeningBody', "A listener's verdict on one score's rendered audio, naming the audio heard by its digest."),
);
export type ListeningBody = Static<typeof ListeningBody>;

export const ListeningOutcome = Type.Object(
  {
    workSlug: Slug('The work.'),
    assetId: Type.Integer({ minimum: 1, description: 'The score asset whose rendered audio was heard.' }),
    listening: ListeningFact,
    commit: Type.String({ description: 'The content repository commit that records the verdict.' }),
    state: StringEnum(['visible', 'recorded'] as const, {
      description:
        'visible: the site serving now shows the verdict (the rebuild after the commit finished); recorded: committed, the rebuild runs in the background (Prefer: respond-async) and the work record shows it when it has finished.',
    }),
    links: Type.Object(
      {
        work: AbsoluteUrl("The work's JSON record (its asset's renderedAudio.reviewState and listening)."),
        provenance: AbsoluteUrl('The provenance page of the rendered audio.'),
      },
      strict,
    ),
  },
  model('ListeningOutcome', 'A recorded listening verdict.'),
);
export type ListeningOutcome = Static<typeof ListeningOutcome>;
