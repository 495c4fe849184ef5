import { matchSection, navigateTo, usePathname } from '@atendo/web-kit';

/**
 * The inbox's routes, read from the page's URL (see @atendo/web-kit router): /tickets and
 * /tickets/:ticketId.
 */

export { usePathname };

/**
 * The route of `pathname` among the area's (case-insensitive, an optional trailing slash): `{}` for
 * /tickets, `{ticketId}` (decoded) for /tickets/:ticketId, null for any other path.
 */
export function matchTicketsRoute(pathname: string): { ticketId?: string } | null {
  const m = matchSection('tickets', pathname);
  return m && (m.param === undefined ? {} : { ticketId: m.param });
}

/** The `:ticketId` of the current URL (/tickets/:ticketId), if any. */
export function useTicketId(): string | undefined {
  return matchTicketsRoute(usePathname())?.ticketId;
}

/** Navigation inside the area: to a path of the page (through single-spa when present). */
export function useNavigate(): (path: string) => void {
  return navigateTo;
}
