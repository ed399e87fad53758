/**
 * POST /api/v1/admin/works/{slug}/assets/{assetId}/listening   a listener's verdict on a score's
 * rendered audio (api/review/listening.ts; docs/audio.md, "Listening approval"). Admin key; the
 * body names the verdict and the SHA-256 of the master heard. The answer follows the rebuild that
 * shows it (200, state "visible"); with `Prefer: respond-async` it answers once the verdict is
 * committed (202, state "recorded") and the rebuild runs in the background.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { isOperatorLabel, principalOf, requireRole } from '../http/auth.ts';
import { sendPrivateJson } from '../http/reply.ts';
import { ListeningBody } from '../../src/schemas/listening.ts';
import type { ListeningService } from './listening.ts';

export const LISTENING_PATH = '/api/v1/admin/works/:slug/assets/:assetId/listening';

const Params = Type.Object({
  slug: Type.String({ maxLength: 160 }),
  assetId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
});

export function registerListeningRoutes(app: FastifyInstance, ctx: AppContext, listening: ListeningService): void {
  app.post<{ Params: Static<typeof Params>; Body: ListeningBody }>(
    LISTENING_PATH,
    { onRequest: requireRole(ctx, ['admin']), schema: { params: Params, body: ListeningBody } },
    async (request, reply) => {
      const { label } = principalOf(request);
      const respondAsync = /(^|[,;\s])respond-async($|[,;\s])/i.test(String(request.headers.prefer ?? ''));
      const outcome = await listening.record(
        request.params.slug,
        request.params.assetId,
        request.body,
        { label, operatorLabeled: isOperatorLabel(label) },
        { wait: !respondAsync },
      );
      if (respondAsync) reply.code(202).header('Preference-Applied', 'respond-async');
      return sendPrivateJson(reply, outcome);
    },
  );
}
