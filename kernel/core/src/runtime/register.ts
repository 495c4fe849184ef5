/**
 * Side-effect module imported first by the process entry (main.ts): when this file runs as compiled
 * JavaScript, workspace packages resolve to their compiled twins (see compiled.ts). Under tsx or jest it
 * does nothing.
 */
import { useCompiledWorkspace } from './compiled';
import { findWorkspaceRoot } from './paths';

if (__filename.endsWith('.js')) useCompiledWorkspace(findWorkspaceRoot(__dirname));
