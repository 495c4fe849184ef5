import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Muted, Spinner, TextField } from '@atendo/web-ui';
import { searchContacts } from './api';
import { Avatar, ChoiceList } from './parts';
import type { ContactListItem } from './types';
import './i18n';

/** Contact search starts at this many characters (spec §5, §9). */
export const CONTACT_SEARCH_MIN = 3;
/** Search debounce (spec §9: 500 ms). */
export const CONTACT_SEARCH_DEBOUNCE_MS = 500;

const Box = styled.div`
  display: grid;
  gap: ${(p) => p.theme.space(1)};
  .who { display: flex; flex-direction: column; }
  .num { font-size: ${(p) => p.theme.font.size.xs}; color: ${(p) => p.theme.colors.textMuted}; }
`;

/**
 * A contact search (`GET /contacts?searchParam`, from 3 characters, debounced 500 ms) with a result list;
 * `onPick` receives the chosen contact, `selectedId` marks it.
 */
export function ContactPicker({ onPick, selectedId, autoFocus }: { onPick: (c: ContactListItem) => void; selectedId?: number; autoFocus?: boolean }) {
  const { t } = useTranslation('inbox');
  const [term, setTerm] = useState('');
  const [results, setResults] = useState<ContactListItem[]>([]);
  const [loading, setLoading] = useState(false);
  const trimmed = term.trim();
  useEffect(() => {
    if (trimmed.length < CONTACT_SEARCH_MIN) {
      setResults([]);
      setLoading(false);
      return undefined;
    }
    const ctrl = new AbortController();
    setLoading(true);
    const timer = setTimeout(() => {
      searchContacts(trimmed.toLowerCase(), ctrl.signal).then(
        (answer) => {
          setResults(Array.isArray(answer?.contacts) ? answer.contacts : []);
          setLoading(false);
        },
        (err) => {
          if ((err as { name?: string })?.name === 'AbortError') return;
          setLoading(false);
          toastError(err);
        },
      );
    }, CONTACT_SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [trimmed]);
  return (
    <Box>
      <TextField
        label={t('conversation.contactSearch.label')}
        value={term}
        onChange={(e) => setTerm(e.target.value)}
        helperText={trimmed.length < CONTACT_SEARCH_MIN ? t('conversation.contactSearch.minChars') : undefined}
        autoFocus={autoFocus}
        data-testid="contact-search"
      />
      {loading ? <Spinner size={20} label={t('conversation.loading')} /> : null}
      {!loading && trimmed.length >= CONTACT_SEARCH_MIN && results.length === 0 ? <Muted>{t('conversation.contactSearch.none')}</Muted> : null}
      {results.length ? (
        <ChoiceList role="listbox" aria-label={t('conversation.contactSearch.label')}>
          {results.map((c) => (
            <li key={c.id}>
              <button type="button" role="option" aria-selected={selectedId === c.id} onClick={() => onPick(c)} data-testid="contact-option">
                <Avatar name={c.name} size={28} />
                <span className="who">
                  <span>{c.name}</span>
                  <span className="num">{c.number}</span>
                </span>
              </button>
            </li>
          ))}
        </ChoiceList>
      ) : null}
    </Box>
  );
}
