/** Contributions and correction reports (intake and tracking). */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.ts';

export async function registerContributionRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
