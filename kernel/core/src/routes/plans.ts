import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from './deps';

/** plans routes: being written (see the plans section of spec 1-platform.md). */
export async function plansRoutes(_app: FastifyInstance, _deps: CoreDeps): Promise<void> {}
