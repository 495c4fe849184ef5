// Rspack build of the platform admin area (super users: /announcements): a module-federation remote exposing
// only single-spa lifecycles (`./lifecycles`). `npm run build -w microfrontends/admin` writes
// dist/remoteEntry.js + js/, served by the shell's web server under /areas/admin/. The config is shared by
// every area (shell/federation.mjs).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaConfig } from '../../shell/federation.mjs';

export default areaConfig({ name: 'admin', dir: dirname(fileURLToPath(import.meta.url)) });
