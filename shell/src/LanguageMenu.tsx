import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon, IconButton, MenuItem, Popover } from '@atendo/web-ui';
import { LANGUAGES, setLanguage } from './i18n';

/** The language menu (pt-BR, en, es, tr): a button opening a list; the choice is remembered. */
export function LanguageMenu({ tone = 'inherit' }: { tone?: 'inherit' | 'default' }) {
  const { t, i18n } = useTranslation();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  return (
    <>
      <IconButton ref={anchor} label={t('topbar.language')} tone={tone} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="language-button">
        <Icon name="language" />
      </IconButton>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('topbar.language')} role="menu" width={220}>
        {LANGUAGES.map((lng) => (
          <MenuItem
            key={lng}
            lang={lng}
            $active={i18n.language === lng}
            aria-current={i18n.language === lng ? 'true' : undefined}
            data-lng={lng}
            onClick={() => {
              setOpen(false);
              void setLanguage(lng);
            }}
          >
            {t(`languages.${lng}`)}
          </MenuItem>
        ))}
      </Popover>
    </>
  );
}
