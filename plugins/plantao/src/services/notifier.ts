import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { sendTopic, type Bus, type Channel, type IdentityService, type SendCommand } from '@atendo/sdk';
import type { TicketsService } from '@atendo/plugin-tickets/contract';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import type { ContactsService } from '@atendo/plugin-contacts/contract';
import type { PlantaoDay } from '../contract';
import type { PlantaoRow } from './plantao';

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';
/** A tick may run a little before a full interval since the last one (cron jitter): this much counts as the interval. */
const SLACK_MS = 10_000;

/** The weekday (`monday`..`sunday`) and `HH:MM` of `now` on the wall clock of `timeZone`. */
export function wallClock(now: Date, timeZone: string): { weekdayEn: string; hhmm: string } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return { weekdayEn: get('weekday').toLowerCase(), hhmm: `${get('hour')}:${get('minute')}` };
}

/**
 * True when `now` (wall clock of `timeZone`) is inside the entry's hours of that weekday: start <= time <
 * end, or for hours crossing midnight (start > end) time >= start or time < end.
 */
export function onDuty(days: readonly PlantaoDay[], now: Date, timeZone: string): boolean {
  const { weekdayEn, hhmm } = wallClock(now, timeZone);
  const d = days.find((x) => x.weekdayEn === weekdayEn);
  if (!d?.startTime || !d.endTime) return false;
  return d.startTime <= d.endTime ? hhmm >= d.startTime && hhmm < d.endTime : hhmm >= d.startTime || hhmm < d.endTime;
}

/** The notification text: how many tickets wait and the oldest (its id, contact and minutes waiting). */
export function notificationText(count: number, oldest: { id: number; contactName: string; minutes: number }): string {
  const head = count === 1 ? '1 ticket aguardando atendimento' : `${count} tickets aguardando atendimento`;
  return `🔔 Plantão: ${head}. O mais antigo é o #${oldest.id} (${oldest.contactName}), aguardando há ${oldest.minutes} min.`;
}

export interface NotifierDeps {
  db: Knex;
  bus: Bus;
  log: FastifyBaseLogger;
  identity: IdentityService;
  tickets: () => TicketsService;
  connections: () => ConnectionsService;
  contacts: () => ContactsService;
  now: () => Date;
}

/**
 * One notifier tick (the `plantao.tick` job; see contract.ts): per company with roster entries, the
 * entries on duty now (company setting `timeZone`, default America/Sao_Paulo) whose interval has passed
 * since their last notification get one text, from the company's default connection through `message.send`
 * (a system message: not stored in a ticket), when pending tickets without a user have waited at least
 * the interval. `last_notified_at` is claimed with a conditional update before publishing, so a tick run
 * twice sends once. Returns the commands published.
 */
export async function runTick(d: NotifierDeps): Promise<SendCommand[]> {
  const now = d.now();
  const rows = (await d.db('plantaoEntries').orderBy(['companyId', 'id'])) as PlantaoRow[];
  const byCompany = new Map<number, PlantaoRow[]>();
  for (const r of rows) byCompany.set(r.companyId, [...(byCompany.get(r.companyId) ?? []), r]);
  const sent: SendCommand[] = [];
  for (const [companyId, entries] of byCompany) {
    try {
      let tz = (await d.identity.getCompanySetting(companyId, 'timeZone').catch(() => '')) || DEFAULT_TIME_ZONE;
      try {
        wallClock(now, tz);
      } catch {
        tz = DEFAULT_TIME_ZONE;
      }
      const due = entries.filter((e) => onDuty(e.days, now, tz) && (!e.lastNotifiedAt || now.getTime() - new Date(e.lastNotifiedAt).getTime() >= e.interval * 60_000 - SLACK_MS));
      if (!due.length) continue;
      const waitingSummary = d.tickets().waitingSummary;
      if (!waitingSummary) return sent;
      let conn: Awaited<ReturnType<ConnectionsService['getDefault']>> | null = null;
      for (const e of due) {
        const summary = await waitingSummary(companyId, new Date(now.getTime() - e.interval * 60_000));
        if (!summary.count || !summary.oldest) continue;
        conn ??= (await d.connections().getDefault(companyId)) ?? null;
        if (!conn) {
          d.log.warn({ companyId }, 'plantao: the company has no default connection; on-duty notifications are not sent');
          break;
        }
        const claimed = await d.db('plantaoEntries')
          .where({ id: e.id, companyId })
          .andWhere((q) => (e.lastNotifiedAt ? q.where('lastNotifiedAt', e.lastNotifiedAt) : q.whereNull('lastNotifiedAt')))
          .update({ lastNotifiedAt: now });
        if (!claimed) continue;
        const contact = await d.contacts().get(companyId, summary.oldest.contactId);
        const minutes = Math.max(0, Math.floor((now.getTime() - new Date(summary.oldest.createdAt).getTime()) / 60_000));
        const cmd: SendCommand = {
          companyId,
          messageId: 0,
          ticketId: 0,
          connectionId: conn.id,
          channel: conn.channel as Channel,
          to: e.phone,
          isGroup: false,
          body: notificationText(summary.count, { id: summary.oldest.id, contactName: contact?.name ?? '', minutes }),
          remoteJid: null,
          lid: null,
          mediaType: 'conversation',
          isForwarded: false,
        };
        await d.bus.publish(sendTopic(cmd.channel), cmd, { id: `message.send:plantao:${e.id}:${now.getTime()}` });
        sent.push(cmd);
      }
    } catch (err) {
      d.log.error({ err, companyId }, 'plantao: notifier tick failed for a company');
    }
  }
  return sent;
}
