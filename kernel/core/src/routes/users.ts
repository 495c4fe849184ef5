import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from './deps';

/** users routes: being written (see the users section of spec 1-platform.md). */
export async function usersRoutes(_app: FastifyInstance, _deps: CoreDeps): Promise<void> {}
