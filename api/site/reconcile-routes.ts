/**
 * The reconcile on demand (docs/operations.md, "Reconcile"): an admin replaces a served
 * incremental build with a full build of the same commit, and reads how the last one went.
 *
 *   POST /api/v1/admin/reconcile   202 ReconcileStatus (running: started now, or the one already
 *                                  running); 200 with state "not-needed" when the served build is full
 *   GET  /api/v1/admin/reconcile   200 ReconcileStatus: the current or last reconcile and the schedule
 *
 * The full build runs in a child process at the lowest CPU priority; the request only starts it.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { requireRole } from '../http/auth.ts';
import { sendPrivateJson } from '../http/reply.ts';
import type { ReconcileStatus } from '../../src/schemas/reconcile.ts';

export const RECONCILE_PATH = '/api/v1/admin/reconcile';

export function registerReconcileRoutes(app: FastifyInstance, ctx: AppContext): void {
  const auth = requireRole(ctx, ['admin']);

  app.get(RECONCILE_PATH, { onRequest: auth }, async (_request, reply) => {
    return sendPrivateJson(reply, ctx.rebuilder.reconcileStatus() satisfies ReconcileStatus);
  });

  app.post(RECONCILE_PATH, { onRequest: auth }, async (request, reply) => {
    const status = ctx.rebuilder.requestReconcile();
    if (status.state === 'running' || status.state === 'waiting') {
      request.log.info(
        { reconcile: { commit: status.commit, trigger: status.trigger } },
        `reconcile of ${status.commit?.slice(0, 12)} requested: ${status.state}`,
      );
      reply.code(202).header('Location', RECONCILE_PATH);
    }
    return sendPrivateJson(reply, status satisfies ReconcileStatus);
  });
}
