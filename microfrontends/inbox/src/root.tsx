import { QueryClientProvider } from '@tanstack/react-query';
import { queryClient } from '@atendo/web-api';
import { AtendoThemeProvider } from '@atendo/web-ui';
import { matchTicketsRoute, usePathname } from './lib/router';
import { TicketsPage } from './TicketsPage';

/**
 * The inbox area's root: the shared query cache and theme, and its routes read from the page's URL
 * (src/lib/router.ts; single-spa re-emits `popstate` on every URL change, so the shell's router and this
 * area agree): /tickets and /tickets/:ticketId (a ticket uuid), one page kept mounted across both so the
 * manager's tabs and scroll survive opening conversations; nothing on other paths.
 */
export function Root() {
  const onRoute = matchTicketsRoute(usePathname()) !== null;
  return (
    <QueryClientProvider client={queryClient}>
      <AtendoThemeProvider>{onRoute ? <TicketsPage /> : null}</AtendoThemeProvider>
    </QueryClientProvider>
  );
}
