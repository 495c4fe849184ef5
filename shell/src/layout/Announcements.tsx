import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon, IconButton } from '@atendo/web-ui';

/**
 * The announcements popover is its own chunk: it is requested only when the top bar mounts (after sign-in),
 * so the sign-in page downloads none of it.
 */
const AnnouncementsPopover = lazy(() => import('./AnnouncementsPopover'));

/** A still button of the same size while the chunk loads, so the top bar does not shift. */
function Placeholder() {
  const { t } = useTranslation();
  return (
    <IconButton label={t('topbar.announcements')} disabled data-testid="announcements-button-loading">
      <Icon name="announcement" />
    </IconButton>
  );
}

/**
 * The top bar's announcements button and popover (spec 1-platform.md §2: shown to every signed-in user;
 * announcements have no plan flag). `userId` keys the list of announcements the user has seen.
 */
export function Announcements({ userId }: { userId: number }) {
  return (
    <Suspense fallback={<Placeholder />}>
      <AnnouncementsPopover userId={userId} />
    </Suspense>
  );
}
