import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, iso, page, sendTopic, type Bus, type Channel, type IdentityService, type PublicUser, type Realtime, type SendCommand } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import { notificationEvent, type AdminNotice, type NoticeLanguage, type Notification, type NotificationsService, type NotifyResult } from '../contract';
import type { Mailer } from './mail';

/** The platform company: its WhatsApp connection is the fallback sender of admin messages (like reset codes). */
export const PLATFORM_COMPANY_ID = 1;
/** Channels a WhatsApp message to an admin can go out on. */
const WHATSAPP_CHANNELS: readonly string[] = ['whatsapp', 'whatsappapi'];
const LANGUAGES: readonly NoticeLanguage[] = ['pt-BR', 'en', 'es', 'tr'];

/** A `notifications` row as the API shows it. */
function toNotification(row: Record<string, unknown>): Notification {
  return {
    id: Number(row.id),
    kind: String(row.kind),
    title: String(row.title),
    body: String(row.body),
    link: (row.link as string | null) ?? null,
    data: (row.data as Record<string, unknown> | null) ?? null,
    readAt: row.readAt ? iso(row.readAt) : null,
    createdAt: iso(row.createdAt),
  };
}

/** A user's language as one of the notice languages (`pt-BR` for none or another). */
export function noticeLanguage(language: string | null | undefined): NoticeLanguage {
  const l = String(language ?? '').trim();
  const exact = LANGUAGES.find((x) => x.toLowerCase() === l.toLowerCase());
  if (exact) return exact;
  const base = l.split(/[-_]/)[0].toLowerCase();
  return LANGUAGES.find((x) => x === base) ?? (base === 'pt' ? 'pt-BR' : 'pt-BR');
}

/** A WhatsApp number as digits with the country code (8..15 digits), or undefined. */
export function whatsappDigits(wpp: string | null | undefined): string | undefined {
  const d = String(wpp ?? '').replace(/\D/g, '');
  return /^\d{8,15}$/.test(d) ? d : undefined;
}

export interface NotificationStoreDeps {
  db: Knex;
  realtime: Realtime;
  bus: Bus;
  identity: IdentityService;
  log: FastifyBaseLogger;
  pageSize: number;
  /** The connections service when the connections plugin is loaded (WhatsApp messages need it). */
  connections?: Pick<ConnectionsService, 'list'>;
  /** E-mail sender when SMTP is configured. */
  mailer?: Mailer;
}

/**
 * In-app notifications (`notifications`) and admin alerts. Every read and write of the routes is scoped to
 * the caller's company and user; `notifyAdmins` writes one row per admin of the company in one transaction
 * and pushes them after commit.
 */
export class NotificationStore implements NotificationsService {
  constructor(private readonly d: NotificationStoreDeps) {}

  /** A page of the user's notifications, newest first (`unread`: only those not read), with the unread count. */
  async list(companyId: number, userId: number, q: { pageNumber?: number; unread?: boolean }): Promise<{ records: Notification[]; count: number; unread: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, this.d.pageSize);
    const mine = () => this.d.db('notifications').where({ companyId, userId });
    const base = q.unread ? mine().whereNull('readAt') : mine();
    const [{ n }] = await base.clone().count({ n: '*' });
    const [{ u }] = await mine().whereNull('readAt').count({ u: '*' });
    const rows = await base.clone().orderBy('id', 'desc').offset(offset).limit(limit);
    const count = Number(n);
    return { records: rows.map(toNotification), count, unread: Number(u), hasMore: hasMore(count, rows.length) };
  }

  /** Marks one of the user's notifications read (once); 404 ERR_NO_NOTIFICATION_FOUND for anyone else's. */
  async markRead(companyId: number, userId: number, id: number): Promise<Notification> {
    const [row] = await this.d.db('notifications')
      .where({ companyId, userId, id })
      .update({ readAt: this.d.db.raw('coalesce(read_at, now())') })
      .returning('*');
    if (!row) throw new AppError('ERR_NO_NOTIFICATION_FOUND');
    this.d.realtime.emitToCompany(companyId, notificationEvent(companyId), { action: 'read', ids: [Number(row.id)] }, { userId });
    return toNotification(row);
  }

  /** Marks every unread notification of the user read; answers how many changed. */
  async markAllRead(companyId: number, userId: number): Promise<number> {
    const rows = (await this.d.db('notifications').where({ companyId, userId }).whereNull('readAt').update({ readAt: this.d.db.fn.now() }).returning('id')) as { id: number }[];
    if (rows.length) this.d.realtime.emitToCompany(companyId, notificationEvent(companyId), { action: 'read', ids: rows.map((r) => Number(r.id)) }, { userId });
    return rows.length;
  }

  async notifyAdmins(companyId: number, notice: AdminNotice): Promise<NotifyResult> {
    validate(notice);
    const admins = (await this.d.identity.listUsers(companyId)).filter((u) => u.profile === 'admin' && u.companyId === companyId);
    if (!admins.length) {
      this.d.log.warn({ companyId, kind: notice.kind }, 'notifications: the company has no admin to tell');
      return { notificationIds: [], whatsapp: 0, email: 0 };
    }
    const textFor = (u: PublicUser) => notice.text[noticeLanguage(u.language)] ?? notice.text['pt-BR'];
    const rows = await this.d.db.transaction(async (trx) =>
      trx('notifications')
        .insert(admins.map((u) => ({ companyId, userId: u.id, kind: notice.kind, title: textFor(u).title, body: textFor(u).body, link: notice.link ?? null, data: notice.data ? JSON.stringify(notice.data) : null })))
        .returning('*'),
    );
    for (const row of rows) this.d.realtime.emitToCompany(companyId, notificationEvent(companyId), { action: 'create', record: toNotification(row) }, { userId: Number(row.userId) });
    const result: NotifyResult = { notificationIds: rows.map((r: Record<string, unknown>) => Number(r.id)), whatsapp: 0, email: 0 };

    // Outside the app: WhatsApp where the admin has a number and a connection can send it, else e-mail.
    const sender = await this.whatsappSender(companyId, notice.avoidConnectionId).catch((err: unknown) => {
      this.d.log.error({ err, companyId }, 'notifications: looking for a connection to send from failed');
      return undefined;
    });
    for (const [i, u] of admins.entries()) {
      const text = textFor(u);
      const to = whatsappDigits(u.wpp);
      const notificationId = result.notificationIds[i];
      if (to && sender) {
        try {
          const cmd: SendCommand = {
            companyId: sender.companyId,
            messageId: 0,
            ticketId: 0,
            connectionId: sender.id,
            channel: sender.channel as Channel,
            to,
            isGroup: false,
            body: `*${text.title}*\n${text.body}`,
            remoteJid: null,
            lid: null,
            mediaType: 'conversation',
            isForwarded: false,
          };
          await this.d.bus.publish(sendTopic(cmd.channel), cmd, { id: `message.send:notification:${notificationId}` });
          result.whatsapp++;
          continue;
        } catch (err) {
          this.d.log.error({ err, companyId, userId: u.id }, 'notifications: handing the WhatsApp message to the channel failed');
        }
      }
      if (this.d.mailer && u.email) {
        try {
          await this.d.mailer.send({ to: u.email, subject: text.title, text: text.body });
          result.email++;
        } catch (err) {
          this.d.log.error({ err, companyId, userId: u.id }, 'notifications: sending the e-mail failed');
        }
      }
    }
    return result;
  }

  /**
   * The connection a WhatsApp message to an admin goes out on: the company's CONNECTED WhatsApp (Baileys or
   * Cloud) connection other than `avoid`, the default first, then the oldest; else the platform company's.
   */
  private async whatsappSender(companyId: number, avoid?: number): Promise<{ id: number; companyId: number; channel: string } | undefined> {
    const connections = this.d.connections;
    if (!connections) return undefined;
    const pick = async (cid: number) =>
      (await connections.list(cid))
        .filter((c) => WHATSAPP_CHANNELS.includes(c.channel) && c.status === 'CONNECTED' && c.id !== avoid)
        .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.id - b.id)[0];
    const own = await pick(companyId);
    if (own) return { id: own.id, companyId, channel: own.channel };
    if (companyId === PLATFORM_COMPANY_ID) return undefined;
    const platform = await pick(PLATFORM_COMPANY_ID);
    return platform ? { id: platform.id, companyId: PLATFORM_COMPANY_ID, channel: platform.channel } : undefined;
  }

  /** The narrow service other plugins get. */
  service(): NotificationsService {
    return { notifyAdmins: (c, n) => this.notifyAdmins(c, n) };
  }
}

function validate(n: AdminNotice): void {
  const bad = (msg: string): never => {
    throw new AppError('ERR_VALIDATION', msg);
  };
  if (typeof n?.kind !== 'string' || !/^[a-z0-9][a-z0-9.-]{0,99}$/.test(n.kind)) bad('kind must be 1..100 of a-z, 0-9, "." and "-"');
  if (!n.text?.['pt-BR']) bad('the pt-BR text is required');
  for (const [lang, t] of Object.entries(n.text)) {
    if (!LANGUAGES.includes(lang as NoticeLanguage)) bad(`unknown language ${lang}`);
    if (typeof t?.title !== 'string' || !t.title.trim() || t.title.length > 200) bad('title must be 1..200 characters');
    if (typeof t?.body !== 'string' || t.body.length > 2000) bad('body must be at most 2000 characters');
  }
  if (n.link != null && (typeof n.link !== 'string' || n.link.length > 500 || !n.link.startsWith('/'))) bad('link must be an app path of at most 500 characters');
}
