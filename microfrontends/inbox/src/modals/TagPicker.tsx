import { useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { toastError } from '@atendo/web-api';
import { Spinner } from '@atendo/web-ui';
import { createTag, inboxKeys, useTagsList } from '../lib/api';
import type { Tag } from '../types';

/** Shortest name of a tag created by typing (spec 2-tickets.md §5: 'Tag muito curta!'). */
export const TAG_NAME_MIN = 3;

const Box = styled.div`
  display: flex;
  flex-direction: column;
  gap: 8px;
  input[type='search'] {
    height: 34px;
    padding: 0 10px;
    border: 1px solid ${(p) => p.theme.colors.border};
    border-radius: ${(p) => p.theme.radius.md};
    background: ${(p) => p.theme.colors.surface};
    color: ${(p) => p.theme.colors.text};
  }
`;

const List = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  max-height: 220px;
  overflow-y: auto;
`;

const Chip = styled.button<{ $color: string; $on: boolean }>`
  display: inline-flex;
  align-items: center;
  gap: 4px;
  padding: 3px 10px;
  border: 1px solid ${(p) => p.$color};
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => (p.$on ? p.$color : 'transparent')};
  color: ${(p) => (p.$on ? '#fff' : p.theme.colors.text)};
  font-size: ${(p) => p.theme.font.size.sm};
  cursor: pointer;
  &:disabled { opacity: 0.6; cursor: default; }
`;

const Hint = styled.span`
  color: ${(p) => p.theme.colors.textMuted};
  font-size: ${(p) => p.theme.font.size.sm};
`;

const PALETTE = ['#E91E63', '#9C27B0', '#3F51B5', '#009688', '#4CAF50', '#FF9800', '#795548', '#607D8B'];

/**
 * A tag selector (issue 20 item 2): the company's tags (GET /tags/list; `kanban` narrows to one kind) as
 * chips that toggle, a search box that also creates a tag from 3 characters ('Tag muito curta!' below).
 * `onToggle(tag, on)` applies one change; `busy` disables the chips while it runs.
 */
export function TagPicker({ selected, onToggle, busy = false, kanban, testId = 'tag-picker' }: { selected: number[]; onToggle: (tag: Tag, on: boolean) => void; busy?: boolean; kanban?: 0 | 1; testId?: string }) {
  const { t } = useTranslation('inbox');
  const client = useQueryClient();
  const tags = useTagsList(true);
  const [term, setTerm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const options = useMemo(() => {
    const all = (tags.data ?? []).filter((x) => kanban === undefined || Number((x as Tag & { kanban?: number }).kanban ?? 0) === kanban);
    const q = term.trim().toLowerCase();
    return q ? all.filter((x) => x.name.toLowerCase().includes(q)) : all;
  }, [tags.data, term, kanban]);
  const exact = (tags.data ?? []).some((x) => x.name.toLowerCase() === term.trim().toLowerCase());

  const create = async () => {
    const name = term.trim();
    if (name.length < TAG_NAME_MIN) {
      setError(t('tags.tooShort'));
      return;
    }
    setCreating(true);
    try {
      const tag = await createTag(name, PALETTE[(tags.data?.length ?? 0) % PALETTE.length]);
      client.setQueryData<Tag[]>(inboxKeys.tags, (list) => [...(list ?? []), tag]);
      setTerm('');
      onToggle(tag, true);
    } catch (err) {
      toastError(err);
    } finally {
      setCreating(false);
    }
  };

  return (
    <Box data-testid={testId}>
      <input
        type="search"
        value={term}
        maxLength={60}
        placeholder={t('tags.search')}
        aria-label={t('tags.search')}
        onChange={(e) => {
          setTerm(e.target.value);
          setError(null);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            if (term.trim() && !exact) void create();
          }
        }}
        data-testid={`${testId}-search`}
      />
      {error ? <Hint role="alert">{error}</Hint> : null}
      {tags.isPending ? <Spinner size={20} label={t('loading')} /> : null}
      <List role="group" aria-label={t('tags.title')}>
        {options.map((tag) => {
          const on = selected.includes(tag.id);
          return (
            <Chip key={tag.id} type="button" $color={tag.color || '#7C7C7C'} $on={on} aria-pressed={on} disabled={busy || creating} onClick={() => onToggle(tag, !on)} data-testid="tag-option" data-tag-id={tag.id}>
              {tag.name}
            </Chip>
          );
        })}
        {term.trim() && !exact ? (
          <Chip type="button" $color="#9E9E9E" $on={false} disabled={busy || creating} onClick={() => void create()} data-testid="tag-create">
            {t('tags.create', { name: term.trim() })}
          </Chip>
        ) : null}
        {!tags.isPending && !options.length && !term.trim() ? <Hint>{t('tags.none')}</Hint> : null}
      </List>
    </Box>
  );
}
