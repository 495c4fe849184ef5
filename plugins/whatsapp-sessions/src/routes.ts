import type { FastifyInstance } from 'fastify';
import { ErrorResponse, IdParams, Type } from '@atendo/sdk';
import type { SessionAction, WhatsappSessions } from './sessions';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };
/** `{message}`: the product family's answer to session calls. */
export const SessionAnswer = Type.Object({ message: Type.String() });
/** These calls take no body (old clients send none); anything sent is ignored. */
const NoBody = Type.Unsafe<unknown>({ description: 'No body; anything sent is ignored' });

/**
 * Session routes of WhatsApp (QR code) connections (spec 2-tickets.md §2 "Connections page", §4 "Connection
 * status", §7 "Connections"). Admin only (403 ERR_NO_PERMISSION otherwise), scoped to the caller's company:
 * an id of another company or an unknown id answers 404 ERR_NO_WAPP_FOUND; a connection of another channel
 * 400 ERR_VALIDATION. Progress is pushed on `company-{id}-whatsappSession` / `company-{id}-whatsapp` as the
 * session moves (OPENING -> qrcode -> CONNECTED, or DISCONNECTED / TIMEOUT).
 *
 * - `POST /whatsappsession/:id` (try again): starts the session (status `OPENING`, then `qrcode` with the QR
 *   text or `CONNECTED` with stored credentials). A session already connecting or open is left alone.
 *   200 `{message: 'Starting session.'}`.
 * - `PUT /whatsappsession/:id` (new QR): logs out when connected, clears the stored auth state and starts
 *   again (a new QR follows). 200 `{message: 'Starting session.'}`.
 * - `DELETE /whatsappsession/:id` (disconnect): logs out when connected, clears the auth state, status
 *   `DISCONNECTED` (qrcode '', retries 0). 200 `{message: 'Session disconnected.'}`.
 * - `POST /whatsapp-restart/` (restart all): closes and reopens the socket of every WhatsApp (QR code)
 *   connection of the caller's company on its stored auth state (stopped ones are started). 200
 *   `{message: 'Whatsapp restart.'}`.
 * A session running on another node is handled there (the command is forwarded on the bus).
 */
export async function sessionRoutes(app: FastifyInstance, deps: { sessions: WhatsappSessions; listConnections(companyId: number): Promise<{ id: number; channel: string }[]> }): Promise<void> {
  const { sessions } = deps;
  const one = (action: SessionAction, message: string) => async (req: { auth: { companyId: number }; params: unknown }) => {
    const { id } = req.params as IdParams;
    const companyId = req.auth.companyId;
    await sessions.assertWhatsapp(companyId, id);
    await sessions.run(companyId, id, action);
    return { message };
  };
  const schema = (summary: string) => ({ tags: ['whatsapp-sessions'], summary, params: IdParams, body: NoBody, response: { 200: SessionAnswer, ...errors } });

  app.post('/whatsappsession/:id', { config: { role: 'admin' }, schema: schema('Start the session of a WhatsApp connection (try again)') }, one('start', 'Starting session.'));
  app.put('/whatsappsession/:id', { config: { role: 'admin' }, schema: schema('New QR code: clear the stored session and start again') }, one('reset', 'Starting session.'));
  app.delete('/whatsappsession/:id', { config: { role: 'admin' }, schema: schema('Disconnect: log out and clear the stored session') }, one('disconnect', 'Session disconnected.'));

  for (const url of ['/whatsapp-restart', '/whatsapp-restart/']) {
    app.post(url, {
      config: { role: 'admin' },
      schema: { tags: ['whatsapp-sessions'], summary: "Restart every WhatsApp (QR code) session of the caller's company", body: NoBody, response: { 200: SessionAnswer, ...errors } },
    }, async (req) => {
      const companyId = req.auth.companyId;
      const list = (await deps.listConnections(companyId)).filter((c) => c.channel === 'whatsapp');
      for (const c of list) await sessions.run(companyId, c.id, 'restart');
      return { message: 'Whatsapp restart.' };
    });
  }
}
