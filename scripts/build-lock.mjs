// One build at a time in a checkout: `npm run build`, `scripts/start.mjs --build-only` and the tests that
// build (jest runs test files in parallel workers) take this lock, so two builds never write the same dist/
// at once. The lock is a folder (mkdir is atomic) holding the owner's pid; a lock whose owner is gone is taken
// over. Synchronous on purpose: the web build runs through spawnSync.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LOCK = join(ROOT, 'node_modules', '.cache', 'atendo-build.lock');
/** How long a waiter waits before it gives up (ms): longer than a full web build on a slow machine. */
const WAIT_MS = 15 * 60_000;

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/**
 * Runs `fn` holding the checkout's build lock (re-entrant within one process); answers what `fn` answers
 * (a promise is awaited before the lock is released). Throws when the lock stays held for WAIT_MS.
 */
export function withBuildLock(fn) {
  if (process.env.ATENDO_BUILD_LOCK_HELD === String(process.pid)) return fn();
  mkdirSync(dirname(LOCK), { recursive: true });
  const t0 = Date.now();
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let owner = 0;
      try {
        owner = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
      } catch {
        // Being created or removed right now: look again shortly.
      }
      if (owner && !alive(owner)) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() - t0 > WAIT_MS) throw new Error(`the build lock ${LOCK} is held by process ${owner}`);
      else sleep(200);
    }
  }
  process.env.ATENDO_BUILD_LOCK_HELD = String(process.pid);
  const release = () => {
    delete process.env.ATENDO_BUILD_LOCK_HELD;
    rmSync(LOCK, { recursive: true, force: true });
  };
  let out;
  try {
    out = fn();
  } catch (err) {
    release();
    throw err;
  }
  if (out && typeof out.then === 'function') return out.finally(release);
  release();
  return out;
}
