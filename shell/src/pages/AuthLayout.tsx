import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Card } from '@atendo/web-ui';
import { LanguageMenu } from '../LanguageMenu';

const Screen = styled.main`
  min-height: 100%;
  display: flex;
  align-items: center;
  justify-content: center;
  padding: ${(p) => p.theme.space(3)} ${(p) => p.theme.space(2)};
  background:
    radial-gradient(1200px 600px at 10% -10%, ${(p) => p.theme.colors.primarySoft}, transparent 60%),
    ${(p) => p.theme.colors.background};
`;

const Panel = styled(Card)`
  width: 100%;
  max-width: 440px;
  padding: ${(p) => p.theme.space(4)};
`;

const Brand = styled.div`
  display: flex;
  align-items: center;
  gap: 12px;
  margin-bottom: ${(p) => p.theme.space(3)};
  font-size: ${(p) => p.theme.font.size.xl};
  font-weight: ${(p) => p.theme.font.weight.bold};
  color: ${(p) => p.theme.colors.primary};
`;

const Logo = styled.span`
  display: inline-flex;
  width: 40px;
  height: 40px;
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.primary};
  color: ${(p) => p.theme.colors.onPrimary};
  align-items: center;
  justify-content: center;
  font-size: 22px;
`;

const Heading = styled.h1`
  margin: 0;
  font-size: ${(p) => p.theme.font.size.xl};
  color: ${(p) => p.theme.colors.text};
`;

const Sub = styled.p`
  margin: 4px 0 ${(p) => p.theme.space(3)};
  color: ${(p) => p.theme.colors.textMuted};
`;

const Footer = styled.div`
  display: flex;
  justify-content: flex-end;
  margin-top: ${(p) => p.theme.space(2)};
  color: ${(p) => p.theme.colors.textMuted};
`;

/** The frame of the public pages (sign-in, sign-up): brand, title, content, language menu. */
export function AuthLayout({ title, subtitle, children }: { title: string; subtitle?: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Screen>
      <Panel>
        <Brand>
          <Logo aria-hidden="true">A</Logo>
          {t('appName')}
        </Brand>
        <Heading>{title}</Heading>
        {subtitle ? <Sub>{subtitle}</Sub> : null}
        {children}
        <Footer>
          <LanguageMenu tone="default" />
        </Footer>
      </Panel>
    </Screen>
  );
}
