import { iso } from '@atendo/sdk';
import type { Ticket } from '@atendo/sdk/wire';
import { ACTIVE_STATUSES, type TicketRow } from '../model';
import type { Knex } from 'knex';
import type { UserExtension } from '@atendo/sdk';
import type { ContactDecorator } from '@atendo/plugin-contacts/contract';
import type { TicketsDeps } from './deps';

/**
 * Keys the product family's client reads from answers of other owners (wire-shapes §4), added by the
 * tickets plugin through their owners' extension points (it never writes their routes; `userTickets`
 * and `contactTickets`):
 * - `GET /users` (kernel): `users[].tickets`, the user's active tickets (open, pending, group) as full
 *   rows, oldest first; the real-time panel reads `tickets.length`.
 * - `GET /contacts` (contacts plugin): `contacts[].tickets`, `[{id, status, createdAt, updatedAt}]` of every
 *   ticket of the contact, oldest activity first; the contacts page shows `tickets[last].updatedAt`.
 * Both read one query per page, scoped to the company.
 */
export function userTickets(deps: TicketsDeps): UserExtension {
  return {
    name: 'tickets',
    decorate: async () => undefined,
    decorateList: async (companyId, users) => {
      const ids = users.map((u) => u.id);
      const rows = (await deps.db('tickets')
        .where({ companyId })
        .whereIn('userId', ids)
        .whereIn('status', ACTIVE_STATUSES)
        .orderBy([{ column: 'updatedAt', order: 'asc' }, { column: 'id', order: 'asc' }])) as TicketRow[];
      const byUser = new Map<number, Record<string, unknown>[]>();
      for (const r of rows) byUser.set(r.userId as number, [...(byUser.get(r.userId as number) ?? []), wireTicketRow(r)]);
      for (const u of users) (u as unknown as Record<string, unknown>).tickets = byUser.get(u.id) ?? [];
    },
  };
}

/** The `contacts.decorators` contribution: `contacts[].tickets` of a `GET /contacts` page (see above). */
export function contactTickets(db: Knex): ContactDecorator {
  return async (companyId, contacts) => {
    const rows = (await db('tickets')
      .where({ companyId })
      .whereIn('contactId', contacts.map((c) => c.id))
      .orderBy([{ column: 'updatedAt', order: 'asc' }, { column: 'id', order: 'asc' }])
      .select('id', 'contactId', 'status', 'createdAt', 'updatedAt')) as Pick<TicketRow, 'id' | 'contactId' | 'status' | 'createdAt' | 'updatedAt'>[];
    const byContact = new Map<number, Record<string, unknown>[]>();
    for (const r of rows) byContact.set(r.contactId, [...(byContact.get(r.contactId) ?? []), { id: r.id, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt }]);
    for (const c of contacts) c.tickets = byContact.get(c.id) ?? [];
  };
}

/** A tickets row as the wire shows it: the ticket's own columns of the wire `Ticket`. */
export type WireTicketRow = Omit<Ticket, 'contact' | 'queue' | 'user' | 'tags' | 'whatsapp' | 'company' | 'queueIntegration'>;

const isoOrNull = (v: Date | string | null | undefined): string | null => (v === null || v === undefined ? null : iso(v));

/**
 * A tickets row as the wire spells it: `amountUsedBotQueuesNPS` (the column maps to `amountUsedBotQueuesNps`
 * in camelCase) and timestamps as ISO strings (what JSON made of them anyway). Columns the row type does not
 * name (`lgpdSendMessageAt`, `sendInactiveMessage`, ...) pass through, their timestamps as ISO strings too.
 */
export function wireTicketRow(row: TicketRow): WireTicketRow {
  // One pass over the row's own keys (this runs for every ticket of every list page and live event).
  const src = row as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in src) {
    const v = src[k];
    if (k === 'amountUsedBotQueuesNps') out.amountUsedBotQueuesNPS = v;
    else if (ISO_OR_NULL.has(k)) out[k] = isoOrNull(v as Date | null);
    else out[k] = v;
  }
  out.createdAt = iso(row.createdAt);
  out.updatedAt = iso(row.updatedAt);
  if (!('closedAt' in out)) out.closedAt = null;
  if (!('acceptedAt' in out)) out.acceptedAt = null;
  if (!('amountUsedBotQueuesNPS' in out)) out.amountUsedBotQueuesNPS = undefined;
  // The family's enum (wire-shapes §2 Ticket.channel): a WhatsApp Cloud ticket is a WhatsApp ticket there (its
  // client shows the Facebook/Instagram 24-hour banner for any other value); `whatsapp.channel` tells them apart.
  if (out.channel === 'whatsappapi') out.channel = 'whatsapp';
  return out as unknown as WireTicketRow;
}

/** Timestamp columns of a ticket row that may be null (ISO string or null on the wire). */
const ISO_OR_NULL = new Set(['closedAt', 'acceptedAt', 'lgpdSendMessageAt', 'lgpdAcceptedAt']);
