import type { Knex } from 'knex';
import { ticketDeleted, ticketUpdated } from '../contract';
import { CONVERSATION_STATUSES, type TicketRow } from '../model';
import { emitTicketDelete, emitTicketUpdate, ticketBusEvent } from './core';
import type { TicketsDeps } from './deps';

/**
 * The tickets plugin's part of merging duplicate contacts (issue 33 item 5, "one contact per person"):
 * reached through the `tickets` service (`previewContactMerge`, `mergeContacts`) and contributed to the
 * contacts plugin's `contacts.mergers` extension point, which runs it inside the merge's one transaction.
 *
 * What moves from the source contacts to the target: their tickets (all statuses), the messages they wrote
 * (in their tickets and, as participants, in groups) and their ticket notes. When two of the contacts have a
 * conversation ticket (open, pending, group, nps, lgpd) on the same connection - the measured defect: a
 * second contact got a second ticket - the conversation is joined into one ticket, the one an attendant
 * holds (else the target's, else the latest): the other's messages, notes, log entries and tags move into it,
 * its unread count adds up, its newer last message wins, and the emptied ticket is deleted (`ticket.deleted`).
 * Moved tickets publish `ticket.updated` with `fields: ['contactId']` (read models such as the dashboard
 * re-read them). Bus events leave with the transaction (outbox); socket pushes follow the commit.
 */

/** What a merge moves or would move: `tickets` (moved to the target), `ticketsJoined` (emptied into another and deleted), `messages`, `ticketNotes`. */
export type ContactMergeCounts = { tickets: number; ticketsJoined: number; messages: number; ticketNotes: number };

/** The conversation tickets joined into another: each duplicate with the ticket it joins. */
function joins(conversations: TicketRow[], targetId: number): { keep: TicketRow; dups: TicketRow[] }[] {
  const byConnection = new Map<number, TicketRow[]>();
  for (const t of conversations) byConnection.set(t.whatsappId ?? 0, [...(byConnection.get(t.whatsappId ?? 0) ?? []), t]);
  const out: { keep: TicketRow; dups: TicketRow[] }[] = [];
  for (const list of byConnection.values()) {
    if (list.length < 2) continue;
    const rank = (t: TicketRow) => [t.userId !== null ? 0 : 1, t.contactId === targetId ? 0 : 1, -new Date(t.updatedAt).getTime(), t.id];
    const sorted = [...list].sort((a, b) => {
      const ra = rank(a);
      const rb = rank(b);
      for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
      return 0;
    });
    out.push({ keep: sorted[0], dups: sorted.slice(1) });
  }
  return out;
}

/** The counts of a merge as the tables are now, read through `db`. */
async function countsOf(db: Knex | Knex.Transaction, companyId: number, targetId: number, sourceIds: number[]): Promise<ContactMergeCounts> {
  const all = [targetId, ...sourceIds];
  const [tickets, conversations, own, inGroups, notes] = await Promise.all([
    db('tickets').where({ companyId }).whereIn('contactId', sourceIds).count({ n: '*' }),
    db('tickets').where({ companyId }).whereIn('contactId', all).whereIn('status', CONVERSATION_STATUSES) as Promise<TicketRow[]>,
    db('messages').where({ companyId }).whereIn('ticketId', db('tickets').where({ companyId }).whereIn('contactId', sourceIds).select('id')).count({ n: '*' }),
    db('messages').where({ companyId }).whereIn('contactId', sourceIds).whereIn('ticketId', db('tickets').where({ companyId, isGroup: true }).select('id')).count({ n: '*' }),
    db('ticketNotes').where({ companyId }).whereIn('contactId', sourceIds).count({ n: '*' }),
  ]);
  return {
    tickets: Number(tickets[0].n),
    ticketsJoined: joins(conversations, targetId).reduce((n, j) => n + j.dups.length, 0),
    messages: Number(own[0].n) + Number(inGroups[0].n),
    ticketNotes: Number(notes[0].n),
  };
}

/** See the contract's `previewContactMerge`. */
export function previewContactMerge(deps: TicketsDeps, companyId: number, targetId: number, sourceIds: number[]): Promise<ContactMergeCounts> {
  return countsOf(deps.db, companyId, targetId, sourceIds);
}

/** See the contract's `mergeContacts`. */
export async function mergeContacts(deps: TicketsDeps, companyId: number, targetId: number, sourceIds: number[], trx: Knex.Transaction): Promise<{ counts: ContactMergeCounts; afterCommit: () => Promise<void> }> {
  const all = [targetId, ...sourceIds];
  // The conversation tickets of every contact involved, locked (in id order) for the join and the move.
  const conversations = (await trx('tickets').where({ companyId }).whereIn('contactId', all).whereIn('status', CONVERSATION_STATUSES).orderBy('id').forUpdate()) as TicketRow[];
  const counts = await countsOf(trx, companyId, targetId, sourceIds);
  const deleted: TicketRow[] = [];
  const kept: number[] = [];
  for (const { keep, dups } of joins(conversations, targetId)) {
    let unread = keep.unreadMessages;
    let latest = keep;
    for (const dup of dups) {
      await trx('messages').where({ companyId, ticketId: dup.id }).update({ ticketId: keep.id });
      await trx('ticketNotes').where({ companyId, ticketId: dup.id }).update({ ticketId: keep.id });
      await trx('ticketLogs').where({ companyId, ticketId: dup.id }).update({ ticketId: keep.id });
      await trx.raw(
        `INSERT INTO ticket_tags (ticket_id, tag_id, company_id, created_at, updated_at)
         SELECT ?, tag_id, company_id, created_at, now() FROM ticket_tags WHERE company_id = ? AND ticket_id = ?
         ON CONFLICT (ticket_id, tag_id) DO NOTHING`,
        [keep.id, companyId, dup.id],
      );
      unread += dup.unreadMessages;
      if (new Date(dup.updatedAt).getTime() > new Date(latest.updatedAt).getTime()) latest = dup;
      await trx('tickets').where({ companyId, id: dup.id }).del();
      await deps.bus.publish(ticketDeleted, ticketBusEvent(dup), { trx });
      deleted.push(dup);
    }
    await trx('tickets').where({ companyId, id: keep.id }).update({ unreadMessages: unread, lastMessage: latest.lastMessage, updatedAt: latest.updatedAt });
    kept.push(keep.id);
  }
  // The sources' tickets (the kept ones included) become the target's.
  const moved = (await trx('tickets').where({ companyId }).whereIn('contactId', sourceIds).update({ contactId: targetId }).returning('*')) as TicketRow[];
  for (const t of moved) await deps.bus.publish(ticketUpdated, ticketBusEvent(t, { fields: ['contactId'] }), { trx });
  // Their messages (the target's tickets now) and the sources' messages in groups.
  await trx('messages')
    .where({ companyId })
    .whereIn('contactId', sourceIds)
    .whereIn('ticketId', trx('tickets').where({ companyId }).where((w) => void w.where({ contactId: targetId }).orWhere({ isGroup: true })).select('id'))
    .update({ contactId: targetId });
  await trx('ticketNotes').where({ companyId }).whereIn('contactId', sourceIds).update({ contactId: targetId });
  const pushIds = [...new Set([...kept, ...moved.filter((t) => CONVERSATION_STATUSES.includes(t.status)).map((t) => t.id)])];
  return {
    counts,
    afterCommit: async () => {
      for (const t of deleted) emitTicketDelete(deps, t);
      if (!pushIds.length) return;
      const rows = (await deps.db('tickets').where({ companyId }).whereIn('id', pushIds)) as TicketRow[];
      for (const t of rows) {
        try {
          await emitTicketUpdate(deps, t);
        } catch (err) {
          deps.log.error({ err, ticketId: t.id }, 'tickets: push after a contact merge failed');
        }
      }
    },
  };
}
