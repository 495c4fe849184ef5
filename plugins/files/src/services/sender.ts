import type { TicketsService } from '@atendo/plugin-tickets/contract';
import type { SendListOptions } from '../contract';
import type { FileListStore } from './files';

/** Handler id of what this plugin sends (`message.stored` `by: {kind: 'bot', handlerId}`). */
export const HANDLER_ID = 'files';

/**
 * Sends a file list into a ticket through the tickets plugin's outbound path (stored in the conversation,
 * pushed, acks tracked): the list's message when not blank, then each option with a file, in order, its
 * name as caption. Behind `FilesService.sendList`, which the automation plugin calls for the chatbot's
 * `file` options and for queues with a `fileListId`.
 */
export async function sendList(store: FileListStore, tickets: TicketsService, companyId: number, fileListId: number, ticketId: number, opts: SendListOptions = {}): Promise<{ sent: number }> {
  const { list, options } = await store.filesToSend(companyId, fileListId);
  const fromBot = opts.fromBot ?? true;
  const send = fromBot ? { fromBot: true, handlerId: opts.handlerId ?? HANDLER_ID } : { fromBot: false, userId: opts.userId ?? null };
  let sent = 0;
  const message = String(list.message ?? '').trim();
  if (message) {
    await tickets.sendText(companyId, ticketId, message, send);
    sent++;
  }
  for (const o of options) {
    await tickets.sendMedia(companyId, ticketId, { path: o.path, fileName: o.mediaName || o.name, caption: o.name }, send);
    sent++;
  }
  return { sent };
}
