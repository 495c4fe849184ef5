/**
 * Shared browser-test harness (shell, inbox and e2e browser tests, and scripts/screenshot.ts): Debian's
 * Chromium driven by playwright-core, a free loopback port, and the web bundles built when stale.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT_DIR } from '../serve';

/** Debian's Chromium (CI installs the `chromium` package); never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';
/** Flags for headless Chromium on these machines (no sandbox as root, no background network). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const haveChromium = existsSync(CHROMIUM);

/** `describe`, or `describe.skip` with a warning naming `file` when Chromium is absent. */
export function browserDescribe(file: string): jest.Describe {
  if (!haveChromium) console.warn(`${file} skipped: ${CHROMIUM} is absent (install Debian's chromium package; CI does)`);
  return haveChromium ? describe : describe.skip;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Builds the web bundles that are missing or older than their sources (scripts/start.mjs --build-only). */
export function buildWeb(timeoutMs = 300_000): void {
  execFileSync(process.execPath, [join(ROOT_DIR, 'scripts/start.mjs'), '--build-only'], { cwd: ROOT_DIR, stdio: 'pipe', timeout: timeoutMs });
}

/** A fresh browser profile (its own --user-data-dir, pt-BR) with one page; `close` removes the profile. */
export async function launchProfile(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; dir: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'atendo-chromium-'));
  const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport, locale: 'pt-BR' });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    dir,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
