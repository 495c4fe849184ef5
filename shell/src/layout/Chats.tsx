import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useCompanyPlan } from '@atendo/web-api';
import { Icon, IconButton } from '@atendo/web-ui';
import { hasFeature } from '../access';

/**
 * The chat popover is its own chunk: requested only when the top bar mounts for a plan with internal chat,
 * so the sign-in page downloads none of it.
 */
const ChatsPopover = lazy(() => import('./ChatsPopover'));

/** A still button of the same size while the chunk loads, so the top bar does not shift. */
function Placeholder() {
  const { t } = useTranslation();
  return (
    <IconButton label={t('chats.button')} disabled data-testid="chats-button-loading">
      <Icon name="forum" />
    </IconButton>
  );
}

/** The top bar's internal chat button and popover, shown only when the company's plan has useInternalChat. */
export function Chats() {
  const plan = useCompanyPlan();
  if (hasFeature(plan.data?.plan, 'useInternalChat') !== true) return null;
  return (
    <Suspense fallback={<Placeholder />}>
      <ChatsPopover />
    </Suspense>
  );
}
