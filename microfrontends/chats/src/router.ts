import { matchSection, navigateTo, usePathname } from '@atendo/web-kit';

/** The chat area's routes, read from the page's URL (see @atendo/web-kit router): /chats and /chats/:id. */

export { navigateTo, usePathname };

/** `{}` for /chats, `{id}` (decoded) for /chats/:id, null for any other path (case-insensitive, optional trailing slash). */
export function matchChatsRoute(pathname: string): { id?: string } | null {
  const m = matchSection('chats', pathname);
  return m && (m.param === undefined ? {} : { id: m.param });
}

/** The `:id` (a chat uuid) of the current URL, if any. */
export function useChatParam(): string | undefined {
  return matchChatsRoute(usePathname())?.id;
}

export const chatPath = (uuid: string) => `/chats/${uuid}`;
