import type { FastifyRequest } from 'fastify';
import { AppError, errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import type { SessionAction, WhatsappSessionsService } from './contract';

const errors = errorResponses(400, 401, 403, 404);
/** `{message}`: the product family's answer to session calls. */
export const SessionAnswer = Type.Object({ message: Type.String() });
/** These calls take no body (old clients send none); anything sent is ignored. */
const NoBody = Type.Unsafe<unknown>({ description: 'No body; anything sent is ignored' });
/** Body of the pairing-code call: the WhatsApp account's number with the country code. */
const PairingBody = Type.Object({ phoneNumber: Type.String({ minLength: 10, maxLength: 25, pattern: '^[0-9+()\\s-]+$' }) }, { additionalProperties: false });

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
 * - `POST /whatsappsession/:id/pairing-code` `{phoneNumber}` (pair by phone number instead of the QR code):
 *   like the new QR above, but the session pushes status `PAIRING` with the 8-character pairing code in
 *   `qrcode` (admins only), which the phone's owner types in WhatsApp > Linked devices > Link with phone
 *   number. `phoneNumber`: the account's number with the country code (digits, spaces, `+`, `-`, `()`;
 *   10 to 15 digits, else 400 ERR_VALIDATION). 200 `{message: 'Starting session.'}`.
 * A session running on another node is handled there (the command is forwarded on the bus).
 */
export async function sessionRoutes(app: PluginApp, deps: { sessions: WhatsappSessionsService; listConnections(companyId: number): Promise<{ id: number; channel: string }[]> }): Promise<void> {
  const { sessions } = deps;
  const one = (action: SessionAction, message: string) => async (req: FastifyRequest<{ Params: IdParams }>) => {
    const { id } = req.params;
    const companyId = req.auth.companyId;
    await sessions.assertWhatsapp(companyId, id);
    await sessions.run(companyId, id, action);
    return { message };
  };
  const schema = (summary: string) => ({ tags: ['whatsapp-sessions'], summary, params: IdParams, body: NoBody, response: { 200: SessionAnswer, ...errors } });

  app.post('/whatsappsession/:id', { config: { role: 'admin' }, schema: schema('Start the session of a WhatsApp connection (try again)') }, one('start', 'Starting session.'));
  app.put('/whatsappsession/:id', { config: { role: 'admin' }, schema: schema('New QR code: clear the stored session and start again') }, one('reset', 'Starting session.'));
  app.delete('/whatsappsession/:id', { config: { role: 'admin' }, schema: schema('Disconnect: log out and clear the stored session') }, one('disconnect', 'Session disconnected.'));

  app.post('/whatsappsession/:id/pairing-code', {
    config: { role: 'admin' },
    schema: {
      tags: ['whatsapp-sessions'],
      summary: 'Pair by phone number: clear the stored session and start again, pushing a pairing code (status PAIRING) instead of a QR code',
      params: IdParams,
      body: PairingBody,
      response: { 200: SessionAnswer, ...errors },
    },
  }, async (req) => {
    const { id } = req.params;
    const companyId = req.auth.companyId;
    const phone = req.body.phoneNumber.replace(/\D/g, '');
    if (phone.length < 10 || phone.length > 15) throw new AppError('ERR_VALIDATION', 'phoneNumber must have 10 to 15 digits with the country code');
    await sessions.assertWhatsapp(companyId, id);
    await sessions.run(companyId, id, 'pair', { phone });
    return { message: 'Starting session.' };
  });

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
