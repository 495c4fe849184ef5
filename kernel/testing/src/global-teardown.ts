import { dropDatabase } from '@atendo/core/src/db';
import { withDb } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const base = process.env.ATENDO_TEST_PG_BASE;
  const template = process.env.ATENDO_TEST_TEMPLATE;
  if (base && template) await dropDatabase(withDb(base, template)).catch(() => undefined);
  const server = (globalThis as { __ATENDO_PG__?: { stop(): Promise<void> } }).__ATENDO_PG__;
  if (server) await server.stop();
}
