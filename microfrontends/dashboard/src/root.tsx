import { QueryClientProvider } from '@tanstack/react-query';
import styled from 'styled-components';
import { queryClient } from '@atendo/web-api';
import { AtendoThemeProvider } from '@atendo/web-ui';
import { GreetingCard } from './GreetingCard';

const Page = styled.div`
  padding: ${(p) => p.theme.space(3)};
  max-width: 1200px;
`;

/** The dashboard area's root: the shared query cache and theme, then the page. */
export function Root() {
  return (
    <QueryClientProvider client={queryClient}>
      <AtendoThemeProvider>
        <Page>
          <GreetingCard />
        </Page>
      </AtendoThemeProvider>
    </QueryClientProvider>
  );
}
