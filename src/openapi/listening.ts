/**
 * OpenAPI of listening approval (tag `admin`): a listener's verdict on a score's rendered audio
 * (api/review/listening-routes.ts; docs/audio.md, "Listening approval").
 */
import type { TSchema } from '@sinclair/typebox';
import { ListeningFact } from '../schemas/audio.ts';
import { ListeningBody, ListeningOutcome } from '../schemas/listening.ts';
import { enveloped, problem, ref, type OperationSpec } from './spec.ts';

const outcome = (description: string) =>
  enveloped(description, 'ListeningOutcome', 'The recorded verdict in the envelope.');

const recordListening: OperationSpec = {
  method: 'post',
  path: '/api/v1/admin/works/{slug}/assets/{assetId}/listening',
  operationId: 'recordListening',
  tags: ['admin'],
  security: [{ adminKey: [] }, { bearerKey: [] }, { archiveImportKey: [] }, { deskSession: [] }],
  summary: "Record a listener's verdict (approved or declined) on a score's rendered audio",
  description:
    'Needs an admin key (ARCHIVE_ADMIN_KEYS) configured with an operator-given label (label=secret): the label is the listener, an accountable person, recorded in the work file and as the commit author. ' +
    "The body names the audio heard by the SHA-256 of the asset's rendered master.flac (the served work record's `renderedAudio.files`); a verdict on other audio is refused. " +
    "The verdict is written into the score asset's `listening` in the content repository and built; the record then shows `renderedAudio.reviewState` " +
    '"human-listening-approved" (approved) while that digest is the audio served: a score rendered again is unheard again. ' +
    'The answer follows the rebuild (state "visible"); with `Prefer: respond-async` it answers 202 once the verdict is committed (state "recorded") and the rebuild runs in the background. The review desk records verdicts through the same service, after its player has played.',
  parameters: [
    {
      name: 'slug',
      in: 'path',
      required: true,
      description: 'Work slug.',
      schema: { type: 'string', maxLength: 160 },
    },
    {
      name: 'assetId',
      in: 'path',
      required: true,
      description: 'The score asset (MusicXML) whose rendered audio was heard.',
      schema: { type: 'integer', minimum: 1, maximum: 2147483647 },
    },
  ],
  requestBody: {
    description: 'The verdict and the digest of the audio heard.',
    required: true,
    contentTypes: ['application/json'],
    schema: ref('ListeningBody'),
  },
  responses: {
    '200': outcome('Recorded and visible: the served record shows the verdict.'),
    '202': outcome('With `Prefer: respond-async`: committed; the rebuild that shows it runs in the background.'),
    '400': problem(
      'The body violates ListeningBody (errors[] names each field: audioSha256 is required), or a key was sent in the URL.',
    ),
    '401': problem('No key, or a wrong key (WWW-Authenticate: Bearer).'),
    '403': problem(
      'A key without the admin role, or an admin key without an operator-given label (no accountable listener).',
    ),
    '404': problem('The served catalog has no such work or asset.'),
    '409': problem(
      'The asset is not a score, or has no rendered audio to hear, or audioSha256 is not the master served now (`servedAudioSha256` names it); nothing was recorded.',
    ),
    '429': problem('Too many failed key checks from this address, or too many requests with this key (Retry-After).'),
  },
} as OperationSpec;

export const LISTENING_OPERATIONS: OperationSpec[] = [recordListening];
export const LISTENING_COMPONENTS: Record<string, TSchema> = { ListeningBody, ListeningOutcome, ListeningFact };
