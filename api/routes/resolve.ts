/** POST /api/v1/music/resolve. */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.ts';

export async function registerResolveRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
