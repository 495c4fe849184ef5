// Rspack build of the internal chat area (/chats, /chats/:id): a module-federation remote exposing only
// single-spa lifecycles (`./lifecycles`). `npm run build -w microfrontends/chats` writes dist/remoteEntry.js + js/,
// served by the shell's web server under /areas/chats/. The config is shared by every area (shell/federation.mjs).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaConfig } from '../../shell/federation.mjs';

export default areaConfig({ name: 'chats', dir: dirname(fileURLToPath(import.meta.url)) });
