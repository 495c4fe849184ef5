import { matchSection, usePathname } from '@atendo/web-kit';

/** The admin area's pages, read from the page's URL (see @atendo/web-kit router). */

export { usePathname };

/** The pages of the area. */
export type AdminRoute = 'announcements';

/** The area's page for `pathname` (case-insensitive, optional trailing slash), or null. */
export function matchAdminRoute(pathname: string): AdminRoute | null {
  const m = matchSection('announcements', pathname);
  return m && m.param === undefined ? 'announcements' : null;
}
