import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Route, Routes } from 'react-router';
import { queryClient } from '@atendo/web-api';
import { AtendoThemeProvider } from '@atendo/web-ui';
import { TicketsPage } from './TicketsPage';

/**
 * The inbox area's root: the shared query cache and theme, and its own router over the page's history
 * (single-spa re-emits `popstate` on every URL change, so the shell's router and this one agree). The
 * routes are the area's: /tickets and /tickets/:ticketId (a ticket uuid), one page kept mounted across
 * both so the manager's tabs and scroll survive opening conversations.
 */
export function Root() {
  return (
    <QueryClientProvider client={queryClient}>
      <AtendoThemeProvider>
        <BrowserRouter>
          <Routes>
            <Route path="/tickets" element={<TicketsPage />}>
              <Route index element={null} />
              <Route path=":ticketId" element={null} />
            </Route>
            <Route path="*" element={null} />
          </Routes>
        </BrowserRouter>
      </AtendoThemeProvider>
    </QueryClientProvider>
  );
}
