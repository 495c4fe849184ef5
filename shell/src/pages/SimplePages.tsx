import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import styled from 'styled-components';
import { Card, EmptyState, Icon, Muted, Title } from '@atendo/web-ui';
import { HOME_AFTER_LOGIN } from '../routes';


const Page = styled.div`
  padding: ${(p) => p.theme.space(3)};
  max-width: 960px;
`;

const Center = styled(Card)`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${(p) => p.theme.space(1.5)};
  padding: ${(p) => p.theme.space(6)} ${(p) => p.theme.space(3)};
  text-align: center;
  color: ${(p) => p.theme.colors.textMuted};
  svg { color: ${(p) => p.theme.colors.primary}; }
  h2 { margin: 0; color: ${(p) => p.theme.colors.text}; font-size: ${(p) => p.theme.font.size.xl}; }
`;

/**
 * The page of a route whose area is not built yet: the route's title and a "coming soon" note, inside the
 * layout (menu and top bar stay usable).
 */
export function ComingSoonPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Page>
      <Title>{t(titleKey)}</Title>
      <Center data-testid="coming-soon">
        <Icon name="construction" size={48} />
        <h2>{t('comingSoon.title')}</h2>
        <Muted>{t('comingSoon.text')}</Muted>
        <Link to={HOME_AFTER_LOGIN}>{t('comingSoon.back')}</Link>
      </Center>
    </Page>
  );
}

/** Unknown private address. */
export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Page>
      <Title>{t('notFound.title')}</Title>
      <Card>
        <EmptyState icon="warning" text={t('notFound.text')}>
          <Link to="/">{t('notFound.home')}</Link>
        </EmptyState>
      </Card>
    </Page>
  );
}
