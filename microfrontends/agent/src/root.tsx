import { Suspense } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { queryClient } from '@atendo/web-api';
import { AtendoThemeProvider, Loading } from '@atendo/web-ui';
import { usePathname } from '@atendo/web-kit';
import { AGENT_PAGES } from './pages';
import { matchPage } from './pages/registry';

function PageLoading() {
  const { t } = useTranslation('agent');
  return <Loading label={t('common.loading')} />;
}

/**
 * The agent area's root: the shared query cache and theme, and the sub-page of the current URL (the
 * registry, src/pages/), its code and texts loaded on first visit; nothing on other paths. The shell mounts
 * the area only after its route gate let the user in (role and plan feature from area.json); the API
 * refuses the others anyway.
 */
export function Root() {
  const match = matchPage(AGENT_PAGES, usePathname());
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
