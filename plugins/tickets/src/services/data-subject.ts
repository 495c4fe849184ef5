import type { Knex } from 'knex';
import { iso } from '@atendo/sdk';
import type { ContactTicketsExport } from '../contract';
import type { TicketsDeps } from './deps';

/**
 * The data subject's rights over the tickets plugin's tables (issue 34 item 2; LGPD art. 18): the export
 * of a contact's conversations and their anonymization. Reached through the `tickets` service
 * (`exportForContact`, `anonymizeContact`), never by other plugins reading these tables.
 */

/** The ids of the tickets a contact's data lives in: its own tickets, and group tickets where it wrote. */
async function contactTicketIds(db: Knex | Knex.Transaction, companyId: number, contactId: number): Promise<number[]> {
  const own = await db('tickets').where({ companyId, contactId }).pluck('id');
  const groups = (await db('messages').where({ companyId, contactId }).distinct('ticketId')).map((r: { ticketId: number }) => r.ticketId);
  return [...new Set<number>([...own, ...groups])].sort((a, b) => a - b);
}

/** Every ticket of the contact with its messages (in groups: the contact's own messages only) and notes, oldest first. */
export async function exportForContact(deps: TicketsDeps, companyId: number, contactId: number): Promise<ContactTicketsExport> {
  const ids = await contactTicketIds(deps.db, companyId, contactId);
  if (!ids.length) return { tickets: [] };
  const tickets = await deps.db('tickets').where({ companyId }).whereIn('id', ids).orderBy('id');
  const messages = await deps.db('messages').where({ companyId }).whereIn('ticketId', ids).orderBy('id');
  const notes = await deps.db('ticketNotes').where({ companyId }).whereIn('ticketId', ids).orderBy('id');
  return {
    tickets: tickets.map((t: Record<string, unknown>) => {
      const own = t.contactId === contactId;
      return {
        id: Number(t.id),
        uuid: String(t.uuid ?? ''),
        status: String(t.status),
        queueId: (t.queueId as number | null) ?? null,
        userId: (t.userId as number | null) ?? null,
        whatsappId: (t.whatsappId as number | null) ?? null,
        channel: String(t.channel),
        isGroup: Boolean(t.isGroup),
        userRating: (t.userRating as number | null) ?? null,
        createdAt: iso(t.createdAt),
        updatedAt: iso(t.updatedAt),
        messages: messages
          .filter((m: Record<string, unknown>) => m.ticketId === t.id && (own || m.contactId === contactId))
          .map((m: Record<string, unknown>) => ({
            id: Number(m.id),
            fromMe: Boolean(m.fromMe),
            fromContact: !m.fromMe && (own || m.contactId === contactId),
            body: String(m.body ?? ''),
            mediaType: String(m.mediaType),
            mediaName: (m.mediaName as string | null) ?? null,
            mediaUrl: m.mediaPath ? deps.uploads.url(companyId, String(m.mediaPath)) : null,
            isDeleted: Boolean(m.isDeleted),
            isEdited: Boolean(m.isEdited),
            isPrivate: Boolean(m.isPrivate),
            createdAt: iso(m.createdAt),
          })),
        notes: own
          ? notes.filter((n: Record<string, unknown>) => n.ticketId === t.id).map((n: Record<string, unknown>) => ({ id: Number(n.id), userId: (n.userId as number | null) ?? null, note: String(n.note), createdAt: iso(n.createdAt) }))
          : [],
      };
    }),
  };
}

/**
 * Erases the contact's conversation contents inside `trx` (see the contract's `anonymizeContact`): in its
 * own tickets every message (ours too: they address the person), in group tickets its own messages only
 * (and the group's last message when it was the contact's).
 */
export async function anonymizeContact(deps: TicketsDeps, companyId: number, contactId: number, trx: Knex.Transaction): Promise<{ tickets: number; messages: number; lastMessageTicketIds: number[]; afterCommit: () => Promise<void> }> {
  const own: number[] = await trx('tickets').where({ companyId, contactId }).pluck('id');
  // Group tickets whose newest message is the contact's: their last message is its text (read before the erase).
  const groups: number[] = (
    await trx.raw(
      `SELECT t.id FROM tickets t
        WHERE t.company_id = ? AND t.contact_id <> ? AND t.id IN (SELECT ticket_id FROM messages WHERE company_id = ? AND contact_id = ?)
          AND (SELECT m.contact_id FROM messages m WHERE m.ticket_id = t.id ORDER BY m.id DESC LIMIT 1) = ?`,
      [companyId, contactId, companyId, contactId, contactId],
    )
  ).rows.map((r: { id: number }) => r.id);
  const inScope = (q: Knex.QueryBuilder) =>
    q.where({ companyId }).andWhere((w) => {
      if (own.length) void w.whereIn('ticketId', own);
      void w.orWhere({ contactId });
    });
  const media: string[] = (await inScope(trx('messages')).whereNotNull('mediaPath').distinct('mediaPath')).map((r: { mediaPath: string }) => r.mediaPath);
  const messages = await inScope(trx('messages')).update({ body: '', mediaPath: null, mediaName: null, dataJson: null, remoteJid: null, participant: null, reactions: JSON.stringify([]), updatedAt: trx.fn.now() });
  const lastMessageTicketIds = [...own, ...groups];
  // updatedAt kept: the lists' order stays.
  if (lastMessageTicketIds.length) await trx('tickets').where({ companyId }).whereIn('id', lastMessageTicketIds).update({ lastMessage: '' });
  if (own.length) await trx('ticketNotes').where({ companyId }).whereIn('ticketId', own).update({ note: '', updatedAt: trx.fn.now() });
  // A file another message still uses (a forward) stays.
  const shared = media.length ? new Set<string>((await trx('messages').where({ companyId }).whereIn('mediaPath', media).distinct('mediaPath')).map((r: { mediaPath: string }) => r.mediaPath)) : new Set<string>();
  const removable = media.filter((p) => !shared.has(p));
  return {
    tickets: own.length,
    messages,
    lastMessageTicketIds,
    afterCommit: async () => {
      for (const path of removable) await deps.uploads.remove(companyId, path).catch((err: unknown) => deps.log.warn({ err }, 'tickets: anonymized media removal failed'));
    },
  };
}

/** See the contract's `staleContactIds` (issue 34: retention). */
export async function staleContactIds(deps: TicketsDeps, companyId: number, before: Date, afterContactId: number, limit: number): Promise<number[]> {
  const res = await deps.db.raw(
    `SELECT contact_id FROM tickets
      WHERE company_id = ? AND is_group = false AND contact_id > ?
      GROUP BY contact_id
     HAVING bool_and(status = 'closed') AND max(updated_at) < ?
      ORDER BY contact_id
      LIMIT ?`,
    [companyId, afterContactId, before, Math.max(1, Math.min(1000, Math.floor(limit) || 1))],
  );
  return (res.rows as { contact_id: number }[]).map((r) => r.contact_id);
}
