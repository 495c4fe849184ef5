// First: under compiled JavaScript, workspace packages resolve to their dist/ twins (no tsx needed).
import './runtime/register';
import closeWithGrace from 'close-with-grace';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildKernel } from './app';
import { bootFailure } from './boot-error';

/**
 * Process entry: builds the kernel, listens on HOST:PORT, closes gracefully on SIGINT/SIGTERM (stops
 * taking requests, finishes those in flight and the bus deliveries being handled, then closes the bus
 * and the database; SHUTDOWN_GRACE_MS, default 10 s, before a forced exit). Run by `npm start`
 * (scripts/start.mjs: tsx in development, `node kernel/core/dist/src/main.js` in production) and by the
 * Docker image.
 */
async function main(): Promise<void> {
  const kernel = await buildKernel();
  const production = kernel.config.NODE_ENV === 'production';
  closeWithGrace({ delay: kernel.config.SHUTDOWN_GRACE_MS }, async ({ err, signal }) => {
    if (err) kernel.app.log.error({ err }, 'closing after an error');
    else kernel.app.log.info({ signal }, 'closing: finishing requests and bus deliveries in flight');
    await kernel.close();
    kernel.app.log.info('closed');
  });
  const address = await kernel.app.listen({ port: kernel.config.PORT, host: kernel.config.HOST });
  const creds = join(kernel.config.dataDir, 'initial-credentials.txt');
  const firstStart = kernel.firstStartCredentials
    ? production
      ? // Production logs are collected and kept: the generated password stays in the 0600 file only.
        `  First start: the sign-in credentials are in ${creds} (mode 0600); read them once, then delete the file`
      : `  Sign in at ${kernel.config.frontendOrigins[0]} (API ${kernel.config.BACKEND_URL}) with:\n${kernel.firstStartCredentials.map((l) => `    ${l}`).join('\n')}\n  (shown once; kept in ${creds})`
    : existsSync(creds)
      ? `  First-start credentials are in ${creds}`
      : '';
  const lines = [
    `Atendo API listening on ${address} (${kernel.config.NODE_ENV}; database: ${kernel.config.DATABASE_URL ? 'PostgreSQL' : 'embedded PostgreSQL'}, bus: ${kernel.bus.kind})`,
    `API docs: ${address.replace('0.0.0.0', 'localhost')}/docs`,
  ];
  if (production) {
    // One JSON log line each, like every other line of a production log.
    for (const l of lines) kernel.app.log.info(l);
    if (firstStart) kernel.app.log.info(firstStart.trim());
  } else {
    console.log(['', ...lines.map((l) => `  ${l}`), firstStart, ''].join('\n'));
  }
}

main().catch((err: unknown) => {
  console.error(bootFailure(err, process.env.NODE_ENV === 'production'));
  process.exit(1);
});
