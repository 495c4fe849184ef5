import { AppError, errorResponses, IdParams, iso, Type, type PluginApp } from '@atendo/sdk';
import type { TicketsDeps } from '../services/deps';
import { showTicket } from '../services/tickets';
import { guardNote } from '../services/guard';
import { isAdmin } from '../visibility';
import { CreateNoteBody, DeletedAnswer, ListNotesQuery, NoteSchema } from '../schemas/tickets';

const errors = errorResponses(400, 401, 403, 404);

interface NoteRow {
  id: number;
  companyId: number;
  ticketId: number;
  contactId: number;
  userId: number | null;
  note: string;
  createdAt: Date;
}

/** Notes as answers show them: `{id, note, createdAt, user: {id, name}|null, ticketId, contactId}`. */
async function serializeNotes(deps: TicketsDeps, companyId: number, rows: NoteRow[]) {
  const userIds = [...new Set(rows.map((r) => r.userId).filter((x): x is number => x !== null))];
  const users = userIds.length ? await deps.identity.listUsers(companyId, userIds) : [];
  const byId = new Map(users.map((u) => [u.id, { id: u.id, name: u.name }]));
  return rows.map((r) => ({ id: r.id, note: r.note, createdAt: iso(r.createdAt), user: r.userId !== null ? (byId.get(r.userId) ?? null) : null, ticketId: r.ticketId, contactId: r.contactId }));
}

/**
 * Ticket notes (spec 2-tickets.md §3 "Ticket note", §5 "min 2", §7 "Contacts and notes"). A note belongs
 * to a ticket and its contact; reading or writing needs a ticket the caller can see (404
 * ERR_NO_TICKET_FOUND outside the company, 403 ERR_NO_PERMISSION otherwise).
 * - `POST /ticket-notes` {note (2..5000 chars, trimmed), ticketId, contactId (the ticket's contact, else 400
 *   ERR_VALIDATION)} -> the note.
 * - `GET /ticket-notes/list?ticketId&contactId` -> the ticket's notes, newest first.
 * - `DELETE /ticket-notes/:id` -> {message}; only the author or an admin, on a ticket they can see (403
 *   ERR_NO_PERMISSION); 404 ERR_NO_NOTE_FOUND outside the company.
 */
export async function ticketNoteRoutes(app: PluginApp, deps: TicketsDeps): Promise<void> {
  app.post('/ticket-notes', {
    schema: { tags: ['ticket notes'], summary: 'Add a note to a ticket', body: CreateNoteBody, response: { 200: NoteSchema, ...errors } },
  }, async (req) => {
    const body = req.body;
    const note = body.note.trim();
    if (note.length < 2) throw new AppError('ERR_VALIDATION', 'Too Short!: a note needs at least 2 characters');
    const t = await showTicket(deps, req.auth, { id: body.ticketId });
    if (t.contactId !== body.contactId) throw new AppError('ERR_VALIDATION', "contactId is not the ticket's contact");
    const [row] = (await deps.db('ticketNotes')
      .insert({ companyId: t.companyId, ticketId: t.id, contactId: t.contactId, userId: req.auth.id, note })
      .returning('*')) as NoteRow[];
    const [out] = await serializeNotes(deps, t.companyId, [row]);
    return out;
  });

  app.get('/ticket-notes/list', {
    schema: { tags: ['ticket notes'], summary: "A ticket's notes, newest first", querystring: ListNotesQuery, response: { 200: Type.Array(NoteSchema), ...errors } },
  }, async (req) => {
    const query = req.query;
    const t = await showTicket(deps, req.auth, { id: query.ticketId });
    const q = deps.db('ticketNotes').where({ companyId: t.companyId, ticketId: t.id });
    if (query.contactId !== undefined) q.where({ contactId: query.contactId });
    const rows = (await q.orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(1000)) as NoteRow[];
    return serializeNotes(deps, t.companyId, rows);
  });

  app.delete('/ticket-notes/:id', {
    schema: { tags: ['ticket notes'], summary: 'Delete a note (its author or an admin)', params: IdParams, response: { 200: DeletedAnswer, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    const companyId = req.auth.companyId;
    const { note: row } = await guardNote<NoteRow>(deps, req.auth, id);
    if (row.userId !== req.auth.id && !isAdmin(req.auth)) throw new AppError('ERR_NO_PERMISSION', 'Only the author or an admin may delete a note');
    await deps.db('ticketNotes').where({ id, companyId }).del();
    return { message: 'Note deleted' };
  });
}
