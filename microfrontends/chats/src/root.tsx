import { QueryClientProvider } from '@tanstack/react-query';
import { queryClient } from '@atendo/web-api';
import { AtendoThemeProvider } from '@atendo/web-ui';
import { ChatsPage } from './ChatsPage';
import { matchChatsRoute, usePathname } from './router';

/**
 * The chat area's root: the shared query cache and theme, and its routes read from the page's URL
 * (src/router.ts): /chats and /chats/:id, one page kept mounted across both; nothing on other paths.
 */
export function Root() {
  const onRoute = matchChatsRoute(usePathname()) !== null;
  return (
    <QueryClientProvider client={queryClient}>
      <AtendoThemeProvider>{onRoute ? <ChatsPage /> : null}</AtendoThemeProvider>
    </QueryClientProvider>
  );
}
