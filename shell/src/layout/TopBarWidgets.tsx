import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { EmptyState, Icon, IconButton, MenuItem, Popover, setVolume, useVolume } from '@atendo/web-ui';

const PanelHeader = styled.div`
  padding: 12px 16px;
  font-weight: ${(p) => p.theme.font.weight.medium};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
`;

/** Notification popover max height (spec 1-platform.md §9). */
export const NOTIFICATIONS_MAX_HEIGHT = 350;

/**
 * The notifications bell and its popover. `items` are rendered as the list (the inbox area fills it);
 * without items it shows the empty state.
 */
export function NotificationsPopover({ items = [] }: { items?: ReactNode[] }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  return (
    <>
      <IconButton ref={anchor} label={t('topbar.notifications')} aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="notifications-button">
        <Icon name="bell" />
      </IconButton>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('notifications.title')} width={340} maxHeight={NOTIFICATIONS_MAX_HEIGHT}>
        <PanelHeader>{t('notifications.title')}</PanelHeader>
        {items.length ? <div>{items}</div> : <EmptyState icon="bell" text={t('notifications.empty')} data-testid="notifications-empty" />}
      </Popover>
    </>
  );
}

const VolumeBox = styled.div`
  display: flex;
  align-items: center;
  gap: 12px;
  padding: 16px;
  input { flex: 1; accent-color: ${(p) => p.theme.colors.primary}; }
  output { min-width: 2.5em; text-align: right; font-variant-numeric: tabular-nums; }
`;

/** The notification volume slider (0..1, step 0.1, remembered in localStorage `volume`). */
export function VolumeControl() {
  const { t } = useTranslation();
  const volume = useVolume();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  return (
    <>
      <IconButton ref={anchor} label={t('topbar.volume')} aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="volume-button">
        <Icon name={volume === 0 ? 'volumeOff' : 'volume'} />
      </IconButton>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('topbar.volume')} width={260}>
        <VolumeBox>
          <Icon name="volumeOff" size={18} />
          <input type="range" min={0} max={1} step={0.1} value={volume} aria-label={t('topbar.volume')} onChange={(e) => setVolume(Number(e.target.value))} />
          <Icon name="volume" size={18} />
          <output aria-live="polite">{Math.round(volume * 100)}%</output>
        </VolumeBox>
      </Popover>
    </>
  );
}

const Avatar = styled.span`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 32px;
  height: 32px;
  border-radius: 50%;
  background: ${(p) => p.theme.colors.surface};
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.bold};
`;

const Who = styled.div`
  padding: 12px 16px;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  strong { display: block; }
  span { color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; }
`;

/** The avatar menu: who is signed in, Profile and Logout. */
export function UserMenu({ name, email, onProfile, onLogout }: { name: string; email: string; onProfile: () => void; onLogout: () => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  return (
    <>
      <IconButton ref={anchor} label={t('topbar.account')} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="user-menu-button">
        <Avatar aria-hidden="true">{(name.trim()[0] ?? '?').toUpperCase()}</Avatar>
      </IconButton>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('topbar.account')} role="menu" width={240}>
        <Who>
          <strong>{name}</strong>
          <span>{email}</span>
        </Who>
        <MenuItem
          onClick={() => {
            setOpen(false);
            onProfile();
          }}
        >
          <Icon name="user" size={18} />
          {t('topbar.profile')}
        </MenuItem>
        <MenuItem
          onClick={() => {
            setOpen(false);
            onLogout();
          }}
          data-testid="logout"
        >
          <Icon name="logout" size={18} />
          {t('topbar.logout')}
        </MenuItem>
      </Popover>
    </>
  );
}
