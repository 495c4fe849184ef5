import { Fragment, memo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styled, { css } from 'styled-components';
import { formatWhatsApp, MenuItem, Popover } from '@atendo/web-ui';
import { canDeleteMessage, canEditMessage, contactCardsOf, deliveryStateOf, editBlockedByChannel, formatTime, locationOf, type VCardContact } from './format';
import { ConvIcon } from './icons';
import { AudioMedia, ContactCard, FileMedia, ImageMedia, LocationCard, VideoMedia } from './media';
import type { DeliveryState, Message, Reaction } from './types';
import './i18n';

/** What a bubble can ask its conversation to do. */
export interface BubbleActions {
  onReply?: (m: Message) => void;
  onForward?: (m: Message) => void;
  onDelete?: (m: Message) => void;
  onEdit?: (m: Message) => void;
  /** Resends a failed send of ours (POST /messages/:id/resend); may return a promise (the button waits). */
  onRetry?: (m: Message) => void | Promise<void>;
  /** A click on the quoted block: scroll to the quoted message. */
  onQuoteClick?: (id: number) => void;
  /** The Chat button of a shared-contact card. */
  onChatContact?: (c: VCardContact) => void;
  /** Our reaction to a message ('' removes it). */
  onReact?: (m: Message, emoji: string) => void;
  /** The ticket's channel: "edit" is offered only where its provider can edit a message already sent. */
  channel?: string | null;
  /** The reactions the ticket's channel takes (empty: none; Instagram only ❤️). */
  reactionChoices?: readonly string[];
}

export interface MessageBubbleProps extends BubbleActions {
  message: Message;
  /** The signed-in user (edit/delete permissions). */
  userId?: number;
  admin?: boolean;
  /** Whether the conversation is a group (shows the sender's name on inbound messages). */
  isGroup?: boolean;
  /** Forward selection mode: a checkbox instead of the menu. */
  selectable?: boolean;
  selected?: boolean;
  onToggleSelect?: (m: Message) => void;
  /** Briefly highlighted (scrolled to from a quote). */
  highlighted?: boolean;
}

const Row = styled.div<{ $fromMe: boolean; $highlighted: boolean }>`
  display: flex;
  flex-direction: column;
  align-items: ${(p) => (p.$fromMe ? 'flex-end' : 'flex-start')};
  padding: 2px 12px;
  border-radius: ${(p) => p.theme.radius.md};
  transition: background 0.4s ease;
  ${(p) => p.$highlighted && css`background: ${p.theme.colors.primarySoft};`}
  .line { display: flex; align-items: center; gap: 6px; max-width: 100%; flex-direction: ${(p) => (p.$fromMe ? 'row-reverse' : 'row')}; }
`;

const Bubble = styled.div<{ $fromMe: boolean; $private: boolean; $deleted: boolean; $failed: boolean }>`
  position: relative;
  min-width: 90px;
  max-width: min(560px, 78vw);
  padding: 6px 10px 4px;
  border-radius: 10px;
  box-shadow: ${(p) => p.theme.shadow.sm};
  word-break: break-word;
  background: ${(p) => (p.$fromMe ? (p.theme.mode === 'dark' ? '#3a2a14' : '#FFF1DD') : p.theme.colors.surface)};
  color: ${(p) => p.theme.colors.text};
  ${(p) =>
    p.$private &&
    css`
      background: ${p.theme.mode === 'dark' ? '#3b3517' : '#FFF8C4'};
      border: 1px dashed ${p.theme.colors.warning};
    `}
  ${(p) => p.$failed && css`border: 1px solid ${p.theme.colors.danger};`}
  ${(p) => p.$deleted && css`opacity: 0.75;`}
  &:hover .menu-button { opacity: 1; }
`;

const Marker = styled.div<{ $tone?: 'warning' | 'muted' | 'danger' }>`
  display: flex;
  align-items: center;
  gap: 4px;
  margin-bottom: 2px;
  font-size: ${(p) => p.theme.font.size.xs};
  font-style: italic;
  color: ${(p) => (p.$tone === 'warning' ? p.theme.colors.warning : p.$tone === 'danger' ? p.theme.colors.danger : p.theme.colors.textMuted)};
`;

const Sender = styled.div`
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.bold};
  color: ${(p) => p.theme.colors.primary};
  margin-bottom: 2px;
`;

const Quoted = styled.button<{ $fromMe: boolean }>`
  display: block;
  width: 100%;
  margin: 2px 0 6px;
  padding: 4px 8px;
  border: none;
  border-left: 4px solid ${(p) => (p.$fromMe ? p.theme.colors.primary : p.theme.colors.info)};
  border-radius: ${(p) => p.theme.radius.sm};
  background: rgba(127, 127, 127, 0.12);
  color: inherit;
  text-align: left;
  cursor: pointer;
  .who { font-size: ${(p) => p.theme.font.size.xs}; font-weight: ${(p) => p.theme.font.weight.bold}; color: ${(p) => (p.$fromMe ? p.theme.colors.primary : p.theme.colors.info)}; }
  .what { font-size: ${(p) => p.theme.font.size.sm}; color: ${(p) => p.theme.colors.textMuted}; overflow: hidden; text-overflow: ellipsis; display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; }
`;

const Text = styled.div<{ $deleted: boolean }>`
  white-space: pre-wrap;
  ${(p) => p.$deleted && css`text-decoration: line-through; color: ${p.theme.colors.textMuted};`}
`;

const Meta = styled.div`
  display: flex;
  justify-content: flex-end;
  align-items: center;
  gap: 4px;
  margin-top: 2px;
  font-size: 11px;
  color: ${(p) => p.theme.colors.textMuted};
`;

const Ack = styled.span<{ $level: DeliveryState }>`
  display: inline-flex;
  color: ${(p) => (p.$level === 'read' || p.$level === 'played' ? '#34B7F1' : p.$level === 'failed' ? p.theme.colors.danger : p.theme.colors.textMuted)};
`;

const Reason = styled.div`
  margin-top: 2px;
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => p.theme.colors.danger};
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;

const FailHint = styled.div`
  display: flex;
  align-items: center;
  gap: 6px;
  margin-top: 4px;
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => p.theme.colors.danger};
  button {
    border: none;
    background: none;
    padding: 0;
    color: inherit;
    font-weight: ${(p) => p.theme.font.weight.bold};
    text-decoration: underline;
    cursor: pointer;
  }
`;

const MenuButton = styled.button`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 28px;
  height: 28px;
  padding: 0;
  border: none;
  border-radius: 50%;
  background: transparent;
  color: ${(p) => p.theme.colors.textMuted};
  cursor: pointer;
  opacity: 0.35;
  &:hover, &:focus-visible, &[aria-expanded='true'] { opacity: 1; background: rgba(127, 127, 127, 0.16); }
`;

const Reactions = styled.div<{ $fromMe: boolean }>`
  display: flex;
  gap: 4px;
  margin-top: -4px;
  padding: 0 8px;
  z-index: 1;
  span {
    display: inline-flex;
    align-items: center;
    gap: 2px;
    padding: 0 6px;
    border-radius: ${(p) => p.theme.radius.round};
    background: ${(p) => p.theme.colors.surface};
    border: 1px solid ${(p) => p.theme.colors.border};
    font-size: 13px;
    line-height: 20px;
  }
`;

const ReactionRow = styled.div`
  display: flex;
  gap: 2px;
  padding: 4px 8px 6px;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  button {
    width: 32px;
    height: 32px;
    border: none;
    border-radius: 50%;
    background: transparent;
    font-size: 18px;
    cursor: pointer;
  }
  button:hover, button[aria-pressed='true'] { background: ${(p) => p.theme.colors.primarySoft}; }
`;

const Select = styled.input`
  width: 18px;
  height: 18px;
  flex: none;
  accent-color: ${(p) => p.theme.colors.primary};
`;

const CallLine = styled.div`
  display: flex;
  align-items: center;
  gap: 6px;
  color: ${(p) => p.theme.colors.danger};
`;

/** The icon of each delivery state. */
const STATE_ICON: Record<DeliveryState, 'clock' | 'check' | 'doubleCheck' | 'alert'> = { pending: 'clock', sent: 'check', delivered: 'doubleCheck', read: 'doubleCheck', played: 'doubleCheck', failed: 'alert' };

/**
 * The delivery state of an outgoing message: pending clock, sent check, delivered double check, read / played
 * coloured double check, failed red alert (with the provider's reason as its title). `state` wins over `ack`.
 */
export function AckIcon({ ack, state, reason }: { ack: number; state?: DeliveryState; reason?: string | null }) {
  const { t } = useTranslation('inbox');
  const level = state ?? deliveryStateOf({ ack });
  const label = t(`conversation.ack.${level}`);
  const title = level === 'failed' && reason ? `${label}: ${reason}` : label;
  return (
    <Ack $level={level} data-testid="ack" data-ack={level} title={title} aria-label={title} role="img">
      <ConvIcon name={STATE_ICON[level]} size={15} />
    </Ack>
  );
}

/** Reactions grouped by emoji with their count. */
export function groupReactions(reactions: Reaction[] | undefined): { emoji: string; count: number }[] {
  const out = new Map<string, number>();
  for (const r of reactions ?? []) if (r?.emoji) out.set(r.emoji, (out.get(r.emoji) ?? 0) + 1);
  return [...out.entries()].map(([emoji, count]) => ({ emoji, count }));
}

/** WhatsApp's formatting of a text (bold, italic, strikethrough, monospace), rendered (web-ui). */
function formatText(text: string): ReactNode {
  return formatWhatsApp(text);
}

const MEDIA_LABELS: Record<string, string> = {
  image: 'conversation.media.image',
  audio: 'conversation.media.audio',
  video: 'conversation.media.video',
  application: 'conversation.media.file',
  document: 'conversation.media.file',
  locationMessage: 'conversation.media.location',
  contactMessage: 'conversation.media.contact',
  multi_vcard: 'conversation.media.contact',
};

/** The content of a message by media type. */
function Content({ message, onChatContact }: { message: Message; onChatContact?: (c: VCardContact) => void }) {
  const { t } = useTranslation('inbox');
  const { mediaType, mediaUrl, body } = message;
  const caption = body && body !== message.mediaName ? <Text $deleted={message.isDeleted}>{formatText(body)}</Text> : null;
  if (mediaType === 'locationMessage') {
    const point = locationOf(message);
    if (point) return <LocationCard point={point} />;
  }
  if (mediaType === 'contactMessage' || mediaType === 'multi_vcard') {
    const cards = contactCardsOf(message);
    if (cards.length)
      return (
        <div style={{ display: 'grid', gap: 6 }}>
          {cards.map((c, i) => (
            <ContactCard key={`${c.number}-${i}`} contact={c} onChat={onChatContact} />
          ))}
        </div>
      );
  }
  if (mediaType === 'call_log') {
    return (
      <CallLine data-testid="missed-call">
        <ConvIcon name="phoneMissed" size={18} />
        {t('conversation.media.missedCall', { time: formatTime(message.createdAt) })}
      </CallLine>
    );
  }
  if (mediaUrl) {
    if (mediaType === 'image' || mediaType === 'sticker') {
      return (
        <>
          <ImageMedia url={mediaUrl} alt={message.mediaName ?? t('conversation.media.image')} />
          {caption}
        </>
      );
    }
    if (mediaType === 'audio') return <AudioMedia url={mediaUrl} />;
    if (mediaType === 'video') {
      return (
        <>
          <VideoMedia url={mediaUrl} />
          {caption}
        </>
      );
    }
    return (
      <>
        <FileMedia url={mediaUrl} name={message.mediaName || body || t('conversation.media.file')} />
        {caption}
      </>
    );
  }
  if (!(body ?? '').trim()) {
    // A message the customer deleted and the company erases (LGPD), or a kind we cannot show.
    if (message.isDeleted && !message.fromMe) return <Marker data-testid="erased-message">{t('messageKind.erased')}</Marker>;
    if (!KNOWN_TYPES.includes(mediaType)) return <Marker data-testid="unsupported-message">{t('messageKind.unsupported', { type: mediaType || '?' })}</Marker>;
  }
  return <Text $deleted={message.isDeleted}>{formatText(body ?? '')}</Text>;
}

/** Media types the bubble shows (text, media with a file, locations, contact cards, calls, reactions). */
const KNOWN_TYPES = ['conversation', 'extendedTextMessage', 'chat', '', 'image', 'sticker', 'audio', 'video', 'application', 'document', 'locationMessage', 'contactMessage', 'multi_vcard', 'call_log', 'reactionMessage'];

/** A one-line summary of a quoted message. */
function quotedSummary(q: NonNullable<Message['quotedMsg']>, t: (k: string) => string): string {
  if (q.isDeleted) return t('conversation.deleted');
  if (q.mediaType === 'contactMessage' || q.mediaType === 'multi_vcard') return t('conversation.media.contact');
  if (q.mediaType === 'locationMessage') return t('conversation.media.location');
  if (q.body && !/^BEGIN:VCARD/i.test(q.body)) return q.body;
  const key = MEDIA_LABELS[q.mediaType];
  return key ? t(key) : q.body ?? '';
}

/**
 * One message of the conversation (spec 2-tickets.md §2): private notes visibly distinct, forwarded /
 * edited / deleted markers, the quoted block (a click scrolls to the quoted message), media, time and ack
 * icon, reactions under the bubble, a failed send with a retry hint, and the options menu (reply, forward,
 * edit own text within 15 minutes, delete own messages).
 */
export const MessageBubble = memo(function MessageBubble(props: MessageBubbleProps) {
  const { message: m, userId, admin = false, isGroup, selectable, selected, onToggleSelect, highlighted } = props;
  const { t } = useTranslation('inbox');
  const [menuOpen, setMenuOpen] = useState(false);
  const menuAnchor = useRef<HTMLButtonElement>(null);
  const reactions = groupReactions(m.reactions);
  const mine = (m.reactions ?? []).find((r) => r.fromMe)?.emoji;
  const editable = canEditMessage(m, userId);
  const deletable = canDeleteMessage(m, userId, admin);
  const state = deliveryStateOf(m);
  const failed = state === 'failed' && m.fromMe && !m.isPrivate;
  const reason = m.sendErrorDetail?.trim() || null;
  // A sent message on a channel that cannot edit: "edit" shows disabled, saying why (the server refuses it).
  const editBlocked = editable && editBlockedByChannel(m, props.channel);
  const [showReason, setShowReason] = useState(false);
  const [resending, setResending] = useState(false);
  const resend = async () => {
    if (resending) return;
    setResending(true);
    try {
      await props.onRetry?.(m);
    } finally {
      setResending(false);
    }
  };
  const run = (fn?: (x: Message) => void) => () => {
    setMenuOpen(false);
    fn?.(m);
  };
  return (
    <Row
      $fromMe={m.fromMe}
      $highlighted={Boolean(highlighted)}
      id={`message-${m.id}`}
      data-testid="message"
      data-message-id={m.id}
      data-from-me={m.fromMe}
      data-private={m.isPrivate || undefined}
      data-delivery={m.fromMe && !m.isPrivate ? state : undefined}
    >
      <div className="line">
        {selectable ? (
          <Select type="checkbox" checked={Boolean(selected)} onChange={() => onToggleSelect?.(m)} aria-label={t('conversation.forward.select')} data-testid="message-select" />
        ) : null}
        <Bubble $fromMe={m.fromMe} $private={m.isPrivate} $deleted={m.isDeleted} $failed={failed} data-testid="bubble">
          {m.isPrivate ? (
            <Marker $tone="warning" data-testid="private-marker">
              <ConvIcon name="lock" size={12} />
              {t('conversation.private')}
            </Marker>
          ) : null}
          {m.isForwarded ? (
            <Marker data-testid="forwarded-marker">
              <ConvIcon name="forward" size={12} />
              {t('conversation.forwarded')}
            </Marker>
          ) : null}
          {!m.fromMe && isGroup && m.contact?.name ? <Sender>{m.contact.name}</Sender> : null}
          {m.quotedMsg ? (
            <Quoted type="button" $fromMe={m.quotedMsg.fromMe} onClick={() => props.onQuoteClick?.(m.quotedMsg!.id)} data-testid="quoted" data-quoted-id={m.quotedMsg.id}>
              <div className="who">{m.quotedMsg.fromMe ? t('conversation.you') : (m.quotedMsg.contact?.name ?? '')}</div>
              <div className="what">{quotedSummary(m.quotedMsg, t)}</div>
            </Quoted>
          ) : null}
          {m.isDeleted ? (
            <Marker $tone="danger" data-testid="deleted-marker">
              <ConvIcon name="block" size={12} />
              {t('conversation.deleted')}
            </Marker>
          ) : null}
          <Content message={m} onChatContact={props.onChatContact} />
          <Meta>
            {m.isEdited ? <span data-testid="edited-marker">{t('conversation.edited')}</span> : null}
            <time dateTime={m.createdAt}>{formatTime(m.createdAt)}</time>
            {m.fromMe && !m.isPrivate ? <AckIcon ack={m.ack} state={state} reason={reason} /> : null}
          </Meta>
          {failed ? (
            <FailHint role="alert" data-testid="send-error" title={reason ? t('conversation.sendErrorReason', { reason }) : t('conversation.sendErrorNoReason')}>
              <ConvIcon name="alert" size={14} />
              <button type="button" className="reason-toggle" aria-expanded={showReason} onClick={() => setShowReason((v) => !v)} data-testid="send-error-toggle">
                {t('conversation.sendError')}
              </button>
              {props.onRetry && !m.isDeleted ? (
                <button type="button" onClick={() => void resend()} disabled={resending} data-testid="resend">
                  {resending ? t('conversation.resending') : t('conversation.retry')}
                </button>
              ) : null}
            </FailHint>
          ) : null}
          {failed && showReason ? (
            <Reason data-testid="send-error-reason">{reason ? t('conversation.sendErrorReason', { reason }) : t('conversation.sendErrorNoReason')}</Reason>
          ) : null}
        </Bubble>
        {!selectable && (props.onReply || props.onForward || props.onReact || (editable && props.onEdit) || (deletable && props.onDelete)) ? (
          <MenuButton
            ref={menuAnchor}
            type="button"
            className="menu-button"
            aria-label={t('conversation.menu.open')}
            aria-haspopup="menu"
            aria-expanded={menuOpen}
            onClick={() => setMenuOpen((o) => !o)}
            data-testid="message-menu"
          >
            <ConvIcon name="more" size={18} />
          </MenuButton>
        ) : null}
      </div>
      {reactions.length ? (
        <Reactions $fromMe={m.fromMe} data-testid="reactions" aria-label={t('conversation.reactions')}>
          {reactions.map((r) => (
            <span key={r.emoji} data-testid="reaction">
              {r.emoji}
              {r.count > 1 ? <small>{r.count}</small> : null}
            </span>
          ))}
        </Reactions>
      ) : null}
      <Popover open={menuOpen} onClose={() => setMenuOpen(false)} anchorRef={menuAnchor} label={t('conversation.menu.open')} role="menu" align={m.fromMe ? 'end' : 'start'} width={200}>
        {props.onReply && !m.isDeleted ? (
          <MenuItem onClick={run(props.onReply)}>
            <ConvIcon name="reply" size={18} />
            {t('conversation.menu.reply')}
          </MenuItem>
        ) : null}
        {props.onForward && !m.isDeleted ? (
          <MenuItem onClick={run(props.onForward)}>
            <ConvIcon name="forward" size={18} />
            {t('conversation.menu.forward')}
          </MenuItem>
        ) : null}
        {props.onReact && props.reactionChoices?.length && m.wid && !m.isPrivate && !m.isDeleted ? (
          <ReactionRow role="group" aria-label={t('reactions.pick')} data-testid="reaction-choices">
            {props.reactionChoices.map((emoji) => (
              <button
                key={emoji}
                type="button"
                aria-pressed={mine === emoji}
                title={mine === emoji ? t('reactions.remove') : t('reactions.react')}
                onClick={() => {
                  setMenuOpen(false);
                  props.onReact?.(m, mine === emoji ? '' : emoji);
                }}
                data-testid="reaction-choice"
              >
                {emoji}
              </button>
            ))}
          </ReactionRow>
        ) : null}
        {editable && props.onEdit && !editBlocked ? (
          <MenuItem onClick={run(props.onEdit)}>
            <ConvIcon name="edit" size={18} />
            {t('conversation.menu.edit')}
          </MenuItem>
        ) : null}
        {editBlocked && props.onEdit ? (
          <MenuItem disabled aria-disabled="true" title={t('conversation.cannotEditChannel')} style={{ opacity: 0.6, cursor: 'not-allowed', flexWrap: 'wrap' }} data-testid="edit-blocked">
            <ConvIcon name="edit" size={18} />
            {t('conversation.menu.edit')}
            <small style={{ flexBasis: '100%', whiteSpace: 'normal' }}>{t('conversation.cannotEditChannel')}</small>
          </MenuItem>
        ) : null}
        {deletable && props.onDelete ? (
          <MenuItem onClick={run(props.onDelete)}>
            <ConvIcon name="trash" size={18} />
            {t('conversation.menu.delete')}
          </MenuItem>
        ) : null}
      </Popover>
    </Row>
  );
});
