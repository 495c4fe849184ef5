/**
 * The notifications plugin's contract (import it as `@atendo/plugin-notifications/contract`): in-app
 * notifications for users, and the service other plugins call to tell a company's admins about something
 * (in the app, and by a WhatsApp message or an e-mail). Types and `define*` calls only: importing it pulls
 * neither fastify nor knex, so a web area can import it too.
 */
import { defineErrors, defineService, Nullable, Type, type Static } from '@atendo/sdk';

// ---- error codes: owned here, merged into the catalogue at boot

export const errors = defineErrors({
  ERR_NO_NOTIFICATION_FOUND: { status: 404, message: 'Notification not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

// ---- wire shapes

/** A notification as every answer and event shows it (its recipient's own). Timestamps are ISO 8601. */
export const NotificationSchema = Type.Object(
  {
    id: Type.Integer(),
    /** What happened, `<area>.<event>`: `connection.dropped`, `connection.needs-qr`, `connection.closed`, `connection.timeout`. */
    kind: Type.String(),
    /** Text in the recipient's language (pt-BR when it has none). */
    title: Type.String(),
    body: Type.String(),
    /** The app path to open (e.g. `/connections`), or null. */
    link: Nullable(Type.String()),
    /** The facts behind it (e.g. `{connectionId, connectionName, reason}`), or null. */
    data: Nullable(Type.Object({}, { additionalProperties: true })),
    /** When the recipient marked it read, or null. */
    readAt: Nullable(Type.String()),
    createdAt: Type.String(),
  },
  { additionalProperties: false },
);
export type Notification = Static<typeof NotificationSchema>;

/** The socket.io event of a user's notifications (sent to that user's sockets only): `{action: 'create', record}` / `{action: 'read', ids}`. */
export const notificationEvent = (companyId: number) => `company-${companyId}-notification`;

// ---- the service other plugins use (they declare `dependsOn` or `optionalDependsOn: ['notifications']`)

/** The languages texts are given in (the app's four); pt-BR is the default. */
export type NoticeLanguage = 'pt-BR' | 'en' | 'es' | 'tr';

/** Something to tell a company's admins. */
export interface AdminNotice {
  /** `<area>.<event>` (1..100 characters). */
  kind: string;
  /** Title (≤ 200) and body (≤ 2000) per language; pt-BR is required, each admin gets its own language or pt-BR. */
  text: { 'pt-BR': { title: string; body: string } } & Partial<Record<NoticeLanguage, { title: string; body: string }>>;
  /** The app path to open (≤ 500). */
  link?: string | null;
  /** Facts behind it (JSON). */
  data?: Record<string, unknown>;
  /** A connection the WhatsApp message must not go out on (the one the notice is about). */
  avoidConnectionId?: number;
}

/** What `notifyAdmins` did: ids of the notifications created, and how many WhatsApp messages and e-mails went out. */
export interface NotifyResult {
  notificationIds: number[];
  whatsapp: number;
  email: number;
}

export interface NotificationsService {
  /**
   * Tells every admin of `companyId`: a notification each (pushed to their sockets after commit), then a
   * WhatsApp message to each admin whose `wpp` number is set (through a CONNECTED WhatsApp connection of the
   * company other than `avoidConnectionId`, else of the platform company 1), and an e-mail to the others when
   * SMTP is configured (`NOTIFICATIONS_SMTP_URL`). External deliveries fail soft (logged). A company without
   * admins gets nothing. Throws AppError ERR_VALIDATION for a bad notice.
   */
  notifyAdmins(companyId: number, notice: AdminNotice): Promise<NotifyResult>;
}

/** The typed handle: `ctx.services.get(notificationsService)`. */
export const notificationsService = defineService<NotificationsService>('notifications');
