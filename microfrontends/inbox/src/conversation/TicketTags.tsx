import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { IconButton, Popover } from '@atendo/web-ui';
import { linkTicketTag, unlinkTicketTag } from '../lib/api';
import { TagPicker } from '../modals/TagPicker';
import { ConvIcon } from './icons';
import type { TagRef, Ticket } from './types';

const Chips = styled.span`
  display: inline-flex;
  align-items: center;
  gap: 4px;
  max-width: 220px;
  overflow: hidden;
  @media (max-width: 720px) { display: none; }
`;

const Chip = styled.span<{ $color: string }>`
  padding: 1px 8px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.$color};
  color: #fff;
  font-size: ${(p) => p.theme.font.size.xs};
  white-space: nowrap;
`;

const Panel = styled.div`
  padding: 12px;
  h3 { margin: 0 0 8px; font-size: ${(p) => p.theme.font.size.sm}; }
`;

/**
 * The ticket's tags in the conversation header (issue 20 item 2): its tags as chips and a button opening the
 * tag selector; a toggle links or unlinks the tag (`PUT`/`DELETE /ticket-tags/:ticketId/:tagId`, with the
 * kanban move's toasts); the ticket update event keeps every open view live.
 */
export function TicketTags({ ticket, onTicketChange }: { ticket: Ticket; onTicketChange: (t: Ticket) => void }) {
  const { t } = useTranslation('inbox');
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  const tags = ticket.tags ?? [];
  const toggle = async (tag: TagRef, on: boolean) => {
    setBusy(true);
    try {
      if (on) await linkTicketTag(ticket.id, tag.id);
      else await unlinkTicketTag(ticket.id, tag.id);
      const next = on ? [...tags.filter((x) => x.id !== tag.id), { id: tag.id, name: tag.name, color: tag.color }] : tags.filter((x) => x.id !== tag.id);
      onTicketChange({ ...ticket, tags: next });
      toast.success(on ? t('tags.added') : t('tags.removed'), { toastId: `ticket-tag-${ticket.id}-${tag.id}` });
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Chips data-testid="ticket-tags">
        {tags.slice(0, 3).map((tag) => (
          <Chip key={tag.id} $color={tag.color || '#7C7C7C'} data-testid="ticket-tag">
            {tag.name}
          </Chip>
        ))}
        {tags.length > 3 ? <Chip $color="#7C7C7C">+{tags.length - 3}</Chip> : null}
      </Chips>
      <IconButton ref={anchor} label={t('tags.ticket')} tone="default" aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="action-tags">
        <ConvIcon name="tag" />
      </IconButton>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('tags.ticket')} width={320}>
        <Panel>
          <h3>{t('tags.ticket')}</h3>
          <TagPicker selected={tags.map((x) => x.id)} onToggle={(tag, on) => void toggle(tag, on)} busy={busy} testId="ticket-tag-picker" />
        </Panel>
      </Popover>
    </>
  );
}
