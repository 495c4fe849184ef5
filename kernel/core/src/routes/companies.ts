import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from './deps';

/** companies routes: being written (see the companies section of spec 1-platform.md). */
export async function companiesRoutes(_app: FastifyInstance, _deps: CoreDeps): Promise<void> {}
