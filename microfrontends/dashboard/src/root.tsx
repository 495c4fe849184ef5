import { QueryClientProvider } from '@tanstack/react-query';
import styled from 'styled-components';
import { queryClient } from '@atendo/web-api';
import { AtendoThemeProvider } from '@atendo/web-ui';
import { usePathname } from '@atendo/web-kit';
import { DashboardPage } from './pages/DashboardPage';
import { ReportsPage } from './pages/ReportsPage';

const Page = styled.div`
  padding: ${(p) => p.theme.space(3)};
  max-width: 1400px;
`;

/** The dashboard area's root: the shared query cache and theme, then the page of the path (/ or /reports). */
export function Root() {
  const path = usePathname().toLowerCase().replace(/\/+$/, '') || '/';
  return (
    <QueryClientProvider client={queryClient}>
      <AtendoThemeProvider>
        <Page>{path === '/reports' ? <ReportsPage /> : <DashboardPage />}</Page>
      </AtendoThemeProvider>
    </QueryClientProvider>
  );
}
