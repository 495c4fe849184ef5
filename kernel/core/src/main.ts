import closeWithGrace from 'close-with-grace';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildKernel } from './app';

/** Process entry: builds the kernel, listens on HOST:PORT, closes gracefully on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const kernel = await buildKernel({ config: process.env.SEED_DEMO === undefined && process.env.npm_lifecycle_event === 'start' ? { SEED_DEMO: true } : {} });
  closeWithGrace({ delay: 10000 }, async ({ err, signal }) => {
    if (err) kernel.app.log.error({ err }, 'closing after an error');
    else kernel.app.log.info({ signal }, 'closing');
    await kernel.close();
  });
  const address = await kernel.app.listen({ port: kernel.config.PORT, host: kernel.config.HOST });
  const creds = join(kernel.config.dataDir, 'initial-credentials.txt');
  const banner = [
    '',
    `  Atendo API listening on ${address} (database: ${kernel.config.DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL'}, bus: ${kernel.bus.kind})`,
    `  API docs: ${address.replace('0.0.0.0', 'localhost')}/docs`,
    kernel.firstStartCredentials
      ? `  Sign in at ${kernel.config.frontendOrigins[0]} (API ${kernel.config.BACKEND_URL}) with:\n${kernel.firstStartCredentials.map((l) => `    ${l}`).join('\n')}\n  (shown once; kept in ${creds})`
      : existsSync(creds)
        ? `  First-start credentials are in ${creds}`
        : '',
    '',
  ];
  console.log(banner.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
