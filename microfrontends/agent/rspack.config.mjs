// Rspack build of the agent area (/contacts, /quick-messages, /schedules, /helps, /todolist, /files): a
// module-federation remote exposing only single-spa lifecycles (`./lifecycles`). `npm run build -w
// microfrontends/agent` writes dist/remoteEntry.js + js/, served by the shell's web server under
// /areas/agent/. The config is shared by every area (shell/federation.mjs).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaConfig } from '../../shell/federation.mjs';

export default areaConfig({ name: 'agent', dir: dirname(fileURLToPath(import.meta.url)) });
