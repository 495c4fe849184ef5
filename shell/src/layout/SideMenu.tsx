import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';
import styled from 'styled-components';
import { Badge, Icon } from '@atendo/web-ui';
import { useChatUnread } from '../hooks/useChats';
import type { MenuSection } from '../menu';

const Nav = styled.nav<{ $open: boolean }>`
  flex: none;
  width: ${(p) => (p.$open ? p.theme.layout.menuWidth : p.theme.layout.menuCollapsedWidth)}px;
  height: 100%;
  overflow-x: hidden;
  overflow-y: auto;
  background: ${(p) => p.theme.colors.menu};
  border-right: 1px solid ${(p) => p.theme.colors.border};
  transition: width 0.2s ease;
  padding: ${(p) => p.theme.space(1)} 0;
`;

const SectionTitle = styled.h2<{ $open: boolean }>`
  margin: ${(p) => p.theme.space(2)} 0 4px;
  padding: 0 ${(p) => p.theme.space(2.5)};
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.medium};
  text-transform: uppercase;
  letter-spacing: 0.06em;
  white-space: nowrap;
  color: ${(p) => p.theme.colors.textMuted};
  ${(p) => (p.$open ? '' : 'height: 1px; overflow: hidden; margin: 8px 12px; background: ' + p.theme.colors.border + '; color: transparent;')}
`;

const List = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
`;

const Item = styled(NavLink)`
  position: relative;
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(2)};
  height: 44px;
  margin: 2px ${(p) => p.theme.space(1)};
  padding: 0 ${(p) => p.theme.space(1.25)};
  border-radius: ${(p) => p.theme.radius.md};
  color: ${(p) => p.theme.colors.text};
  text-decoration: none;
  white-space: nowrap;
  &:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
  &.active {
    background: ${(p) => p.theme.colors.menuActive};
    color: ${(p) => p.theme.colors.primary};
    font-weight: ${(p) => p.theme.font.weight.medium};
  }
  svg { flex: none; }
`;

const IconBox = styled.span`
  position: relative;
  display: inline-flex;
  span { top: -4px; right: -4px; }
`;

export interface SideMenuProps {
  open: boolean;
  sections: MenuSection[];
  /** Any connection needs attention: warning badge on Connections. */
  connectionsWarning?: boolean;
}

/** The side menu: the visible sections (see `visibleMenu`), collapsed to icons when closed. */
export function SideMenu({ open, sections, connectionsWarning = false }: SideMenuProps) {
  const { t } = useTranslation();
  const chatUnread = useChatUnread();
  return (
    <Nav $open={open} aria-label={t('menu.navigation')} data-testid="side-menu">
      {sections.map((section) => (
        <div key={section.key} data-section={section.key}>
          {section.titleKey ? (
            <SectionTitle $open={open} id={`menu-section-${section.key}`}>
              {t(section.titleKey)}
            </SectionTitle>
          ) : null}
          <List aria-labelledby={section.titleKey ? `menu-section-${section.key}` : undefined}>
            {section.entries.map((entry) => {
              const label = t(entry.labelKey);
              const warn = entry.badge === 'connections' && connectionsWarning;
              return (
                <li key={entry.key}>
                  <Item to={entry.to} end={entry.to === '/'} title={open ? undefined : label} aria-label={open ? undefined : label} data-testid={`menu-${entry.key}`}>
                    <IconBox>
                      <Icon name={entry.icon} />
                      {warn ? <Badge $tone="warning" role="status" aria-label={t('menu.connectionsWarning')} title={t('menu.connectionsWarning')} data-testid="connections-warning" /> : null}
                      {entry.badge === 'chats' && chatUnread ? <Badge role="status" aria-label={t('menu.chatsUnread')} title={t('menu.chatsUnread')} data-testid="chats-unread" /> : null}
                    </IconBox>
                    {open ? <span>{label}</span> : null}
                  </Item>
                </li>
              );
            })}
          </List>
        </div>
      ))}
    </Nav>
  );
}
