// Rspack build of the campaigns area (/campaigns, /contact-lists, /contact-lists/:id/contacts,
// /campaign/:id/report, /campaigns-config): a module-federation remote exposing only single-spa lifecycles
// (`./lifecycles`). `npm run build -w microfrontends/campaigns` writes dist/remoteEntry.js + js/, served by
// the shell's web server under /areas/campaigns/. The config is shared by every area (shell/federation.mjs).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaConfig } from '../../shell/federation.mjs';

export default areaConfig({ name: 'campaigns', dir: dirname(fileURLToPath(import.meta.url)) });
