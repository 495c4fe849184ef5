/**
 * Copies of this checkout for the deployment tests: the sources (tracked and new, not ignored), the build
 * outputs that exist, and the node_modules of the root and of the workspaces, hard-linked (seconds, no
 * network; copied when the temp folder is on another file system). Outside the repository on purpose:
 * Node.js would find the repository's own node_modules by walking up from a copy inside it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');

/** Hard-links every file under `from` into `to` (folders created; symlinks copied as they are). */
function linkTree(from: string, to: string): void {
  try {
    execFileSync('cp', ['-al', from, to], { stdio: 'pipe' });
  } catch {
    rmSync(to, { recursive: true, force: true });
    execFileSync('cp', ['-a', from, to], { stdio: 'pipe' });
  }
}

function linkFile(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/** A real copy of `file` (a new inode) with its times kept: npm rewrites some files in place. */
function unlinkCopy(file: string): void {
  if (!existsSync(file)) return;
  const st = statSync(file);
  const data = readFileSync(file);
  rmSync(file);
  writeFileSync(file, data);
  utimesSync(file, st.atime, st.mtime);
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (lstatSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/**
 * A copy of the checkout as a host has it after `npm ci` and `npm run build`. `omitDev`: without the lock's
 * dev-only packages, as after `npm ci --omit=dev` (no tsx, jest, esbuild...). `npmWritable`: the files npm
 * rewrites in place (package.json, package-lock.json, node_modules/.package-lock.json) are real copies,
 * so `npm install` in the copy never writes through a hard link into this checkout.
 */
export function checkoutCopy(opts: { omitDev?: boolean; npmWritable?: boolean; prefix?: string } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), opts.prefix ?? 'atendo-copy-'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT }).toString('utf8').split('\0').filter(Boolean);
  const builds = ['shell/dist', 'shell/dist-server'];
  for (const base of ['kernel', 'plugins', 'channels', 'microfrontends']) {
    for (const name of existsSync(join(ROOT, base)) ? readdirSync(join(ROOT, base)) : []) if (existsSync(join(ROOT, base, name, 'dist'))) builds.push(`${base}/${name}/dist`);
  }
  for (const b of builds) if (existsSync(join(ROOT, b))) for (const f of walk(join(ROOT, b))) files.push(relative(ROOT, f));
  for (const f of files) {
    const src = join(ROOT, f);
    if (!existsSync(src) || !statSync(src).isFile()) continue;
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    linkFile(src, join(dir, f));
  }
  // node_modules of the root and of the workspaces (npm nests some packages there).
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; link?: boolean }> };
  const moduleDirs = new Set(Object.keys(lock.packages).filter((p) => p.includes('node_modules/')).map((p) => p.slice(0, p.indexOf('node_modules/') + 'node_modules'.length)));
  for (const m of moduleDirs) if (existsSync(join(ROOT, m))) linkTree(join(ROOT, m), join(dir, m));
  if (opts.omitDev) {
    for (const [path, entry] of Object.entries(lock.packages)) if (entry.dev && path) rmSync(join(dir, path), { recursive: true, force: true });
    // Command shims whose package is gone.
    for (const m of moduleDirs) {
      const bin = join(dir, m, '.bin');
      if (!existsSync(bin)) continue;
      for (const name of readdirSync(bin)) {
        const p = join(bin, name);
        if (lstatSync(p).isSymbolicLink() && !existsSync(resolve(bin, readlinkSync(p)))) rmSync(p);
      }
    }
  }
  if (opts.npmWritable) for (const f of ['package.json', 'package-lock.json', 'node_modules/.package-lock.json']) unlinkCopy(join(dir, f));
  return dir;
}
