/**
 * A kernel process for the session failover test (e2e/session-failover.test.ts): the kernel of `npm start`
 * with the plugins a WhatsApp message needs from the socket to the database (discovered as main.ts does, then
 * kept to `PLUGINS` so that two nodes boot fast under tsx), whose whatsapp-sessions plugin talks to the
 * Baileys stand-in at BAILEYS_STAND_IN (`host:port`, see baileys-stand-in.ts) instead of WhatsApp. Listens on
 * HOST:PORT; SIGTERM closes it gracefully, SIGKILL is what the test sends.
 */
import { resolve } from 'node:path';
import { buildKernel } from '@atendo/core/src/app';
import { discoverPlugins, loadDefinition } from '@atendo/core/src/plugins/loader';
import { createWhatsappSessionsPlugin } from '@atendo/plugin-whatsapp-sessions/plugin';
import { standInSocketFactory } from './baileys-stand-in';

/** The plugins loaded: the sessions, and the ticket pipeline that stores what a session receives. */
const PLUGINS = new Set(['tags', 'queues', 'contacts', 'connections', 'tickets', 'notifications', 'whatsapp-sessions']);

async function main(): Promise<void> {
  const address = process.env.BAILEYS_STAND_IN;
  if (!address) throw new Error('BAILEYS_STAND_IN is not set');
  const root = resolve(__dirname, '..', '..');
  const plugins = [];
  for (const pkg of discoverPlugins(root)) {
    const def = await loadDefinition(root, pkg);
    if (!PLUGINS.has(def.id)) continue;
    plugins.push(def.id === 'whatsapp-sessions' ? createWhatsappSessionsPlugin({ socketFactory: standInSocketFactory(address) }) : def);
  }
  const kernel = await buildKernel({ plugins });
  const close = () => {
    void kernel.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
  await kernel.app.listen({ port: kernel.config.PORT, host: kernel.config.HOST });
  console.log(`failover node ${process.pid} listening on ${kernel.config.PORT}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
