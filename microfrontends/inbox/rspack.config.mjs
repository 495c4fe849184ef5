// Rspack build of the inbox area (/tickets, /tickets/:ticketId): a module-federation remote exposing only
// single-spa lifecycles (`./lifecycles`). `npm run build -w microfrontends/inbox` writes dist/remoteEntry.js + js/,
// served by the shell's web server under /areas/inbox/. The config is shared by every area (shell/federation.mjs).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaConfig } from '../../shell/federation.mjs';

export default areaConfig({ name: 'inbox', dir: dirname(fileURLToPath(import.meta.url)) });
