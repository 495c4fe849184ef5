import { QueryClientProvider } from '@tanstack/react-query';
import { queryClient } from '@atendo/web-api';
import { AtendoThemeProvider } from '@atendo/web-ui';
import { AnnouncementsPage } from './announcements/AnnouncementsPage';
import { matchAdminRoute, usePathname } from './lib/router';

/**
 * The admin area's root: the shared query cache and theme, and the page of the current URL
 * (src/lib/router.ts): /announcements; nothing on other paths. The shell only mounts the area for super
 * users (its route gate, role "super" in shell/areas.json); the API refuses everyone else anyway.
 */
export function Root() {
  const route = matchAdminRoute(usePathname());
  return (
    <QueryClientProvider client={queryClient}>
      <AtendoThemeProvider>{route === 'announcements' ? <AnnouncementsPage /> : null}</AtendoThemeProvider>
    </QueryClientProvider>
  );
}
