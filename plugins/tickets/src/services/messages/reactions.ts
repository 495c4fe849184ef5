import { AppError, sendTopic, type AuthUser, type SendCommand } from '@atendo/sdk';
import type { TicketsDeps } from '../deps';
import { applyReaction } from './results';
import { serializeMessages, type SerializedMessage } from './serialize';
import { providerRef, visibleMessage } from './commands';

/** Channels whose provider takes reactions of ours (Instagram: only ❤️, sent as `love`). */
export const REACTION_CHANNELS = ['whatsapp', 'whatsappapi', 'instagram'] as const;
/** Longest reaction (one emoji, possibly with modifiers). */
export const REACTION_MAX = 32;

/**
 * PUT /messages/:id/reaction {emoji}: the caller's reaction to a message of a ticket it may see and send in
 * (`emoji` '' removes ours). The message must have a provider id and not be a private note (400
 * ERR_VALIDATION), its channel must take reactions (400 ERR_VALIDATION: Messenger does not); the reaction
 * is stored as ours (one per message: a new one replaces it), `appMessage` {action:'update'} is pushed, and
 * it is sent through the channel (`message.send` with `reaction` and messageId 0). Errors also: 404
 * ERR_NO_MESSAGE_FOUND, 403 ERR_NO_PERMISSION, 400 ERR_TICKET_NOT_OPEN. Returns the message.
 */
export async function reactToMessage(deps: TicketsDeps, auth: AuthUser, id: number, rawEmoji: string): Promise<SerializedMessage> {
  const emoji = String(rawEmoji ?? '').trim();
  if ([...emoji].length > 8 || emoji.length > REACTION_MAX || /[\x00-\x1f\x7f]/.test(emoji)) throw new AppError('ERR_VALIDATION', 'emoji must be one emoji');
  const { message, ticket } = await visibleMessage(deps, auth, id);
  if (!['open', 'group'].includes(ticket.status)) throw new AppError('ERR_TICKET_NOT_OPEN');
  if (message.isPrivate || !message.wid) throw new AppError('ERR_VALIDATION', 'Only messages the channel knows can get a reaction');
  if (!(REACTION_CHANNELS as readonly string[]).includes(ticket.channel)) throw new AppError('ERR_VALIDATION', `The ${ticket.channel} channel does not take reactions`);
  if (ticket.whatsappId === null) throw new AppError('ERR_NO_WAPP_FOUND');
  const ref = await providerRef(deps, ticket, message);
  const cmd: SendCommand = {
    companyId: ticket.companyId,
    messageId: 0,
    ticketId: 0,
    connectionId: ticket.whatsappId,
    channel: ticket.channel as SendCommand['channel'],
    to: ref.to,
    isGroup: ref.isGroup,
    remoteJid: ref.remoteJid,
    reaction: { wid: message.wid, emoji, fromMe: message.fromMe },
  };
  // Stored and sent together: the command leaves with the reaction's transaction (one command per change).
  await applyReaction(deps, auth.companyId, message.wid, { emoji, fromMe: true }, (trx) => deps.bus.publish(sendTopic(cmd.channel), cmd, { trx }));
  const row = (await deps.db('messages').where({ id: message.id, companyId: auth.companyId }).first()) ?? message;
  const [serialized] = await serializeMessages(deps, auth.companyId, [row]);
  return serialized;
}
