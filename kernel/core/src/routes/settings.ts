import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from './deps';

/** settings routes: being written (see the settings section of spec 1-platform.md). */
export async function settingsRoutes(_app: FastifyInstance, _deps: CoreDeps): Promise<void> {}
