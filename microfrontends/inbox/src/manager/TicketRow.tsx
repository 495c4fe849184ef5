import { memo, useState, type MouseEvent, type ReactNode } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { ChannelIcon } from './ChannelIcon';
import { NO_QUEUE_COLOR, readableOn, safeColor } from '../lib/color';
import { previewText } from '@atendo/web-ui';
import { cut, formatTicketTime, initials, lastMessageKind, LAST_MESSAGE_CUT, NAME_CUT, ratingEmoji } from '../lib/format';
import { usePresence } from '../lib/presence';
import type { Viewer } from '../lib/viewer';
import type { Ticket } from '../types';
import { ticketChannelOf } from '@atendo/sdk/wire';
import { SlaBadge, type SlaAlert, type SlaBadgeTexts, type SlaTicket } from '@atendo/web-kit';
import type { TFunction } from 'i18next';

/** How many ticket tags a row shows before the '+N' counter. */
export const ROW_TAGS = 2;

const Row = styled.li<{ $stripe: string; $selected: boolean }>`
  position: relative;
  display: flex;
  align-items: stretch;
  list-style: none;
  border-left: 5px solid ${(p) => p.$stripe};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => (p.$selected ? p.theme.colors.primarySoft : p.theme.colors.surface)};
`;

const Main = styled.div`
  display: flex;
  flex: 1;
  min-width: 0;
  gap: ${(p) => p.theme.space(1.5)};
  padding: 10px ${(p) => p.theme.space(1.5)};
  border: none;
  background: transparent;
  color: inherit;
  text-align: left;
  font: inherit;
  &[data-clickable] { cursor: pointer; }
  &[data-clickable]:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
`;

const Avatar = styled.span`
  position: relative;
  flex: none;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 44px;
  height: 44px;
  border-radius: 50%;
  background: ${(p) => p.theme.colors.primarySoft};
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.bold};
  img { width: 44px; height: 44px; border-radius: 50%; object-fit: cover; }
`;

const UnreadDot = styled.span`
  position: absolute;
  top: -2px;
  right: -2px;
  width: 12px;
  height: 12px;
  border-radius: 50%;
  background: ${(p) => p.theme.colors.success};
  border: 2px solid ${(p) => p.theme.colors.surface};
`;

const Content = styled.span`
  display: flex;
  flex: 1;
  min-width: 0;
  flex-direction: column;
  gap: 3px;
`;

const Line = styled.span`
  display: flex;
  align-items: center;
  gap: 6px;
  min-width: 0;
`;

const Name = styled.span`
  flex: 1;
  min-width: 0;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
  font-weight: ${(p) => p.theme.font.weight.medium};
`;

const Time = styled.span<{ $unread: boolean }>`
  flex: none;
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => (p.$unread ? p.theme.colors.success : p.theme.colors.textMuted)};
  font-weight: ${(p) => (p.$unread ? p.theme.font.weight.bold : p.theme.font.weight.regular)};
`;

const Preview = styled.span<{ $presence: boolean }>`
  flex: 1;
  min-width: 0;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
  font-size: ${(p) => p.theme.font.size.sm};
  color: ${(p) => (p.$presence ? p.theme.colors.success : p.theme.colors.textMuted)};
  font-style: ${(p) => (p.$presence ? 'italic' : 'normal')};
`;

const UnreadCount = styled.span`
  flex: none;
  min-width: 20px;
  height: 20px;
  padding: 0 6px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.theme.colors.success};
  color: #fff;
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.bold};
  line-height: 20px;
  text-align: center;
`;

const Tags = styled.span`
  display: flex;
  flex-wrap: wrap;
  gap: 4px;
`;

const Chip = styled.span<{ $bg: string; $outline?: boolean }>`
  display: inline-block;
  max-width: 140px;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
  padding: 1px 6px;
  border-radius: ${(p) => p.theme.radius.sm};
  font-size: 0.6875rem;
  font-weight: ${(p) => p.theme.font.weight.medium};
  text-transform: uppercase;
  background: ${(p) => (p.$outline ? 'transparent' : p.$bg)};
  color: ${(p) => (p.$outline ? p.theme.colors.textMuted : readableOn(p.$bg))};
  border: 1px solid ${(p) => (p.$outline ? p.theme.colors.border : p.$bg)};
`;

const Actions = styled.span`
  display: flex;
  flex-direction: column;
  justify-content: center;
  gap: 4px;
  padding: 6px ${(p) => p.theme.space(1)} 6px 0;
`;

const ActionButton = styled.button<{ $tone: 'success' | 'danger' | 'info' }>`
  display: inline-flex;
  align-items: center;
  gap: 4px;
  min-height: 26px;
  padding: 0 8px;
  border: 1px solid ${(p) => p.theme.colors[p.$tone]};
  border-radius: ${(p) => p.theme.radius.sm};
  background: transparent;
  color: ${(p) => p.theme.colors[p.$tone]};
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.bold};
  text-transform: uppercase;
  cursor: pointer;
  &:hover:not(:disabled) { background: ${(p) => p.theme.colors.surfaceAlt}; }
  &:disabled { opacity: 0.5; cursor: not-allowed; }
`;

const Rating = styled.span`
  flex: none;
  font-size: 1rem;
  line-height: 1;
`;

export interface TicketRowProps {
  ticket: Ticket;
  viewer: Viewer;
  /** The row of the conversation shown on the right. */
  selected?: boolean;
  /** A call on this ticket is in flight (its buttons are disabled). */
  busy?: boolean;
  /** Clicking an open, group or closed row (never a pending one). */
  onOpen: (t: Ticket) => void;
  onAccept: (t: Ticket) => void;
  onIgnore: (t: Ticket) => void;
  onTransfer: (t: Ticket) => void;
  onCloseTicket: (t: Ticket) => void;
  onReopen: (t: Ticket) => void;
  /** "Today" for the time column (tests). */
  now?: Date;
  /** The ticket's SLA due times (plugins/sla), when it has some. */
  sla?: SlaTicket;
  /** The clock the SLA badge reads (renewed every 30 s by the list). */
  slaNow?: Date;
}

/** The SLA badge's texts: "SLA 12 min" while near, "SLA estourado" once breached; the due time in the tooltip. */
export function slaBadgeTexts(t: TFunction, language: string): SlaBadgeTexts {
  const when = new Intl.DateTimeFormat(language, { dateStyle: 'short', timeStyle: 'short' });
  return {
    label: (a: SlaAlert) => (a.level === 'breached' ? t('sla.breached') : t('sla.near', { minutes: Math.max(0, a.minutes) })),
    title: (a: SlaAlert) => t(a.target === 'firstResponse' ? 'sla.firstResponse' : 'sla.resolution', { time: when.format(new Date(a.dueAt)) }),
  };
}

function ContactAvatar({ ticket }: { ticket: Ticket }) {
  const src = ticket.contact?.urlPicture || ticket.contact?.profilePicUrl || '';
  const [failed, setFailed] = useState<string | null>(null);
  const name = ticket.contact?.name ?? '';
  return src && failed !== src ? (
    <img src={src} alt="" data-testid="contact-picture" loading="lazy" referrerPolicy="no-referrer" onError={() => setFailed(src)} />
  ) : (
    <span data-testid="contact-initials" aria-hidden="true">
      {initials(name)}
    </span>
  );
}

/**
 * One row of the ticket lists (spec 2-tickets.md §2 "Ticket card / row"): department colour stripe,
 * channel icon, contact picture (or initials), name cut at 60, last message cut at 40 ('Localização' for a
 * location, 'Contato' for a contact card) or the typing / recording indicator, the queue tag (or 'SEM
 * FILA'), the connection name tag, unread badge and count, the rating emoji of a closed ticket (1..5), the
 * group tag, the assigned-user tag (admins only), the first two tags plus '+N', the time (HH:mm today,
 * else dd/MM/yyyy) and the action buttons of its status: pending -> accept, ignore, transfer; open/group
 * -> transfer, close; closed -> reopen. A pending row cannot be opened by clicking it; other rows open
 * their conversation. The SLA badge (issue 34 item 5) leads the tags while a target of the ticket is near
 * its due time (amber, the minutes left) or past it (red).
 */
export const TicketRow = memo(function TicketRow({ ticket, viewer, selected = false, busy = false, onOpen, onAccept, onIgnore, onTransfer, onCloseTicket, onReopen, now, sla, slaNow }: TicketRowProps) {
  const { t, i18n } = useTranslation('inbox');
  const presence = usePresence(ticket.id);
  const pending = ticket.status === 'pending';
  const closed = ticket.status === 'closed';
  const unread = ticket.unreadMessages > 0;
  const name = cut(ticket.contact?.name ?? '', NAME_CUT);
  const kind = lastMessageKind(ticket.lastMessage);
  // WhatsApp formatting is not shown as markup: a signed reply reads "Ana: texto" (issue 20 item 9).
  const preview = kind === 'location' ? t('row.location') : kind === 'vcard' ? t('row.vcard') : cut(previewText(ticket.lastMessage), LAST_MESSAGE_CUT);
  const emoji = closed ? ratingEmoji(ticket.userRating) : undefined;
  const tags = ticket.tags ?? [];
  const stripe = ticket.queue ? safeColor(ticket.queue.color, NO_QUEUE_COLOR) : NO_QUEUE_COLOR;
  const channel = ticketChannelOf(ticket);
  const channelLabel = t(`row.channel.${['whatsapp', 'whatsappapi', 'facebook', 'instagram'].includes(channel) ? channel : 'whatsapp'}`);

  const act = (fn: (x: Ticket) => void) => (e: MouseEvent) => {
    e.stopPropagation();
    fn(ticket);
  };

  let actions: ReactNode = null;
  if (pending) {
    actions = (
      <>
        <ActionButton type="button" $tone="success" disabled={busy} onClick={act(onAccept)} data-testid="ticket-accept">
          {t('row.accept')}
        </ActionButton>
        <ActionButton type="button" $tone="danger" disabled={busy} onClick={act(onIgnore)} data-testid="ticket-ignore">
          {t('row.ignore')}
        </ActionButton>
        <ActionButton type="button" $tone="info" disabled={busy} onClick={act(onTransfer)} data-testid="ticket-transfer">
          {t('row.transfer')}
        </ActionButton>
      </>
    );
  } else if (ticket.status === 'open' || ticket.status === 'group') {
    actions = (
      <>
        <ActionButton type="button" $tone="info" disabled={busy} onClick={act(onTransfer)} data-testid="ticket-transfer">
          {t('row.transfer')}
        </ActionButton>
        <ActionButton type="button" $tone="danger" disabled={busy} onClick={act(onCloseTicket)} data-testid="ticket-close">
          {t('row.close')}
        </ActionButton>
      </>
    );
  } else if (closed) {
    actions = (
      <ActionButton type="button" $tone="success" disabled={busy} onClick={act(onReopen)} data-testid="ticket-reopen">
        {t('row.reopen')}
      </ActionButton>
    );
  }

  const body = (
    <>
      <Avatar>
        <ContactAvatar ticket={ticket} />
        {unread ? <UnreadDot data-testid="unread-badge" aria-hidden="true" /> : null}
      </Avatar>
      <Content>
        <Line>
          <ChannelIcon channel={channel} label={channelLabel} />
          <Name data-testid="ticket-name" title={ticket.contact?.name ?? ''}>
            {name}
          </Name>
          <Time data-testid="ticket-time" $unread={unread}>
            {formatTicketTime(ticket.updatedAt, now)}
          </Time>
        </Line>
        <Line>
          {presence ? (
            <Preview data-testid="ticket-presence" $presence>
              {presence === 'recording' ? t('row.recording') : t('row.typing')}
            </Preview>
          ) : (
            <Preview data-testid="ticket-last-message" $presence={false}>
              {preview}
            </Preview>
          )}
          {emoji ? (
            <Rating data-testid="ticket-rating" role="img" aria-label={t('row.rating', { rating: ticket.userRating })} title={t('row.rating', { rating: ticket.userRating })}>
              {emoji}
            </Rating>
          ) : null}
          {unread ? (
            <UnreadCount data-testid="unread-count" aria-label={t('row.unread', { count: ticket.unreadMessages })}>
              {ticket.unreadMessages}
            </UnreadCount>
          ) : null}
        </Line>
        <Tags>
          {sla ? <SlaBadge sla={sla} now={slaNow ?? new Date()} texts={slaBadgeTexts(t, i18n.language)} /> : null}
          {ticket.queue ? (
            <Chip data-testid="queue-tag" $bg={stripe}>
              {ticket.queue.name}
            </Chip>
          ) : (
            <Chip data-testid="queue-tag" $bg={NO_QUEUE_COLOR}>
              {t('row.noQueue')}
            </Chip>
          )}
          {ticket.whatsapp?.name ? (
            <Chip data-testid="connection-tag" $bg="" $outline title={t('row.connection', { name: ticket.whatsapp.name })}>
              {ticket.whatsapp.name}
            </Chip>
          ) : null}
          {ticket.isGroup ? (
            <Chip data-testid="group-tag" $bg="#6A1B9A">
              {t('row.group')}
            </Chip>
          ) : null}
          {viewer.admin && ticket.user?.name ? (
            <Chip data-testid="user-tag" $bg="#37474F" title={t('row.assignedTo', { name: ticket.user.name })}>
              {ticket.user.name}
            </Chip>
          ) : null}
          {tags.slice(0, ROW_TAGS).map((tag) => (
            <Chip key={tag.id} data-testid="ticket-tag" $bg={safeColor(tag.color, NO_QUEUE_COLOR)}>
              {tag.name}
            </Chip>
          ))}
          {tags.length > ROW_TAGS ? (
            <Chip data-testid="more-tags" $bg="" $outline title={tags.slice(ROW_TAGS).map((x) => x.name).join(', ')}>
              {`+${tags.length - ROW_TAGS}`}
            </Chip>
          ) : null}
        </Tags>
      </Content>
    </>
  );

  return (
    <Row
      $stripe={stripe}
      $selected={selected}
      data-testid="ticket-row"
      data-ticket-id={ticket.id}
      data-status={ticket.status}
      aria-current={selected ? 'true' : undefined}
    >
      {pending ? (
        <Main data-testid="ticket-main">{body}</Main>
      ) : (
        <Main
          as="button"
          type="button"
          data-testid="ticket-main"
          data-clickable=""
          title={t('row.openConversation', { name: ticket.contact?.name ?? '' })}
          onClick={() => onOpen(ticket)}
        >
          {body}
        </Main>
      )}
      {actions ? <Actions>{actions}</Actions> : null}
    </Row>
  );
});
