/** The private production library (protected). */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.ts';

export async function registerLibraryRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
