/**
 * The whatsapp-sessions plugin's contract (import it as `@atendo/plugin-whatsapp-sessions/contract`): the
 * `whatsapp-sessions` service ref and interface, and the session-command topic it owns. Types and `define*`
 * calls only: importing it pulls neither fastify nor knex. It consumes the SDK's `message.send` (channel
 * 'whatsapp') and publishes `message.sent` / `message.failed` and the envelopes (`inboundTopic`).
 */
import { defineErrors, defineService, defineTopic } from '@atendo/sdk';

/**
 * Error codes owned by the whatsapp-sessions plugin (merged into the catalogue at boot): the WhatsApp Web
 * codes of the product family's wire (spec 2-tickets.md §8), which its clients translate.
 */
export const errors = defineErrors({
  ERR_WAPP_NOT_INITIALIZED: { status: 400, message: 'Connection not initialised' },
  ERR_WAPP_CHECK_CONTACT: { status: 400, message: 'Contact check failed' },
  ERR_WAPP_INVALID_CONTACT: { status: 400, message: 'Not a valid WhatsApp number' },
  ERR_WAPP_DOWNLOAD_MEDIA: { status: 400, message: 'Media download failed' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/**
 * What a caller can ask of a connection's session:
 * - `start`: start it (try again); a session already connecting or open is left alone;
 * - `reset`: new QR — log out when open, clear the auth state, start again;
 * - `disconnect`: log out when open, clear the auth state, status `DISCONNECTED`, stop;
 * - `restart`: close the socket and connect again on the stored auth state (starts a stopped one);
 * - `pair`: like `reset`, but pairing by phone number: the session pushes status `PAIRING` with the pairing
 *   code (in `qrcode`) instead of a QR code; needs `phone` (digits with the country code).
 */
export type SessionAction = 'start' | 'reset' | 'disconnect' | 'restart' | 'pair';

/** Payload of `whatsapp.session.command`: a session action forwarded to the node that runs the session. */
export interface SessionCommand {
  companyId: number;
  id: number;
  action: SessionAction;
  /** The phone number to pair with (`pair` only): digits with the country code. */
  phone?: string;
  /** The node that published the command (it ignores its own). */
  origin: string;
}

/** Session commands forwarded to the node that owns a connection (broadcast: every node gets each one). */
export const sessionCommand = defineTopic<SessionCommand>('whatsapp.session.command', 'run a session action on the node that owns the connection');

/**
 * The `whatsapp-sessions` service: `ctx.services.get(whatsappSessionsService)` after declaring
 * `dependsOn: ['whatsapp-sessions']`. Drives the WhatsApp (Baileys) session of a connection wherever it runs.
 */
export interface WhatsappSessionsService {
  /**
   * Checks that `id` is a WhatsApp (Baileys) connection of `companyId`: AppError 404 ERR_NO_WAPP_FOUND for
   * unknown ids and other companies' ids, 400 ERR_VALIDATION for connections of another channel.
   */
  assertWhatsapp(companyId: number, id: number): Promise<void>;
  /**
   * Runs `action` for a connection: here when this node runs its session or can take its lock, else (with
   * `forward`, the default) on the owning node through the bus. Answers where it ran. Check the connection
   * first (`assertWhatsapp`).
   */
  run(companyId: number, id: number, action: SessionAction, opts?: { forward?: boolean; phone?: string }): Promise<'local' | 'forwarded' | 'skipped'>;
  /** Connection ids whose sessions run on this node. */
  localIds(): number[];
}

/** The `whatsapp-sessions` service ref. */
export const whatsappSessionsService = defineService<WhatsappSessionsService>('whatsapp-sessions');
