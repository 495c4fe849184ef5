// Rspack build of the kanban area (/kanban, /moments): a module-federation remote exposing only single-spa
// lifecycles (`./lifecycles`). `npm run build -w microfrontends/kanban` writes dist/remoteEntry.js + js/,
// served by the shell's web server under /areas/kanban/. The config is shared by every area
// (shell/federation.mjs).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaConfig } from '../../shell/federation.mjs';

export default areaConfig({ name: 'kanban', dir: dirname(fileURLToPath(import.meta.url)) });
