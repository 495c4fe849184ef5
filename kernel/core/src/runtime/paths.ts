import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The nearest folder at or above `from` that holds a package.json (optionally one matching `accept`).
 * Independent of where the file runs from: `kernel/core/src` under tsx, `kernel/core/dist/src` when built.
 * Throws when none is found up to the file system root.
 */
export function findPackageDir(from: string, accept: (pkg: Record<string, unknown>) => boolean = () => true): string {
  let dir = from;
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && accept(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
}

/** The repository root: the folder whose package.json declares the npm workspaces. */
export function findWorkspaceRoot(from: string): string {
  return findPackageDir(from, (pkg) => Array.isArray(pkg.workspaces));
}
