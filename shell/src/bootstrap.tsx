import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { start } from 'single-spa';
import { setThemeMode, getThemeMode } from '@atendo/web-ui';
import { App } from './App';
import { registerAreas } from './areas';
import { restoreSession } from './auth';
import { initI18n } from './i18n';

/**
 * Start-up of the root config: i18n and theme, the React shell, the areas as single-spa applications
 * (module-federation remotes with a microfrontends/<area>/area.json), single-spa, then session restore from the stored token.
 */
initI18n();
setThemeMode(getThemeMode());
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
registerAreas();
start({ urlRerouteOnly: true });
void restoreSession();
