import { Suspense } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { queryClient } from '@atendo/web-api';
import { AtendoThemeProvider, Loading } from '@atendo/web-ui';
import { usePathname } from '@atendo/web-kit';
import { CAMPAIGN_PAGES } from './pages';
import { matchPage } from './pages/registry';

function PageLoading() {
  const { t } = useTranslation('campaigns');
  return <Loading label={t('common.loading')} />;
}

/**
 * The campaigns area's root: the shared query cache and theme, and the sub-page of the current URL (the
 * registry, src/pages/), its code and texts loaded on first visit; nothing on other paths. The shell mounts
 * the area only after its route gate let the user in (plan flag useCampaigns, and admin for
 * /campaigns-config, from area.json); the API refuses the others anyway (403 ERR_FEATURE_NOT_IN_PLAN).
 */
export function Root() {
  const match = matchPage(CAMPAIGN_PAGES, usePathname());
  const Page = match?.page.component;
  return (
    <QueryClientProvider client={queryClient}>
      <AtendoThemeProvider>
        {Page ? (
          <Suspense fallback={<PageLoading />}>
            <Page key={match.page.path} params={match.params} />
          </Suspense>
        ) : null}
      </AtendoThemeProvider>
    </QueryClientProvider>
  );
}
