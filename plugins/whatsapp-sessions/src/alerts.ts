import type { FastifyBaseLogger } from 'fastify';
import { businessTimeZone, defineJob, type Jobs } from '@atendo/sdk';
import type { SessionAlert } from '@atendo/channel-whatsapp';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import type { AdminNotice, NoticeLanguage, NotificationsService } from '@atendo/plugin-notifications/contract';

/** What a connection alert job carries. */
export interface ConnectionAlertData {
  companyId: number;
  connectionId: number;
  kind: Exclude<SessionAlert['kind'], 'recovered'>;
  reason: string;
  /** When it happened (ISO 8601). */
  at: string;
}

/** The durable job that tells the admins (keyed per connection: a later alert replaces a pending one). */
export const CONNECTION_ALERT_JOB = defineJob<ConnectionAlertData>('whatsapp-sessions.connection-alert');

const jobKey = (connectionId: number) => `connection-${connectionId}`;

type Texts = Record<NoticeLanguage, { title: string; body: string }>;

/** The alert texts in the app's four languages. `name`: the connection's name; `time`: when; `reason`: why. */
export function alertTexts(kind: ConnectionAlertData['kind'], v: { name: string; time: string; reason: string }): Texts {
  const { name, time, reason } = v;
  switch (kind) {
    case 'dropped':
      return {
        'pt-BR': { title: `Conexão "${name}" caiu`, body: `A conexão "${name}" caiu às ${time} (${reason}) e ainda não voltou. O Atendo continua tentando reconectar; veja em Conexões.` },
        en: { title: `Connection "${name}" dropped`, body: `The connection "${name}" dropped at ${time} (${reason}) and is not back yet. Atendo keeps trying to reconnect; see Connections.` },
        es: { title: `La conexión "${name}" se cayó`, body: `La conexión "${name}" se cayó a las ${time} (${reason}) y aún no volvió. Atendo sigue intentando reconectar; vea Conexiones.` },
        tr: { title: `"${name}" bağlantısı koptu`, body: `"${name}" bağlantısı ${time} saatinde koptu (${reason}) ve henüz geri gelmedi. Atendo yeniden bağlanmayı deniyor; Bağlantılar sayfasına bakın.` },
      };
    case 'needs-qr':
      return {
        'pt-BR': { title: `Conexão "${name}" precisa de um novo QR code`, body: `O WhatsApp encerrou a sessão da conexão "${name}" às ${time} (${reason}). Abra Conexões e leia o novo QR code com o celular.` },
        en: { title: `Connection "${name}" needs a new QR code`, body: `WhatsApp ended the session of the connection "${name}" at ${time} (${reason}). Open Connections and scan the new QR code with the phone.` },
        es: { title: `La conexión "${name}" necesita un nuevo código QR`, body: `WhatsApp cerró la sesión de la conexión "${name}" a las ${time} (${reason}). Abra Conexiones y lea el nuevo código QR con el teléfono.` },
        tr: { title: `"${name}" bağlantısı yeni bir QR kodu gerektiriyor`, body: `WhatsApp, "${name}" bağlantısının oturumunu ${time} saatinde kapattı (${reason}). Bağlantılar sayfasını açın ve yeni QR kodunu telefonla okutun.` },
      };
    case 'closed':
      return {
        'pt-BR': { title: `Conexão "${name}" foi encerrada pelo WhatsApp`, body: `O WhatsApp fechou a conexão "${name}" às ${time} (${reason}): o número pode estar aberto em outro lugar ou restrito. Abra Conexões para iniciá-la de novo.` },
        en: { title: `Connection "${name}" was closed by WhatsApp`, body: `WhatsApp closed the connection "${name}" at ${time} (${reason}): the number may be open elsewhere or restricted. Open Connections to start it again.` },
        es: { title: `WhatsApp cerró la conexión "${name}"`, body: `WhatsApp cerró la conexión "${name}" a las ${time} (${reason}): el número puede estar abierto en otro lugar o restringido. Abra Conexiones para iniciarla de nuevo.` },
        tr: { title: `"${name}" bağlantısı WhatsApp tarafından kapatıldı`, body: `WhatsApp "${name}" bağlantısını ${time} saatinde kapattı (${reason}): numara başka bir yerde açık veya kısıtlanmış olabilir. Yeniden başlatmak için Bağlantılar sayfasını açın.` },
      };
    case 'timeout':
      return {
        'pt-BR': { title: `Conexão "${name}" parou de tentar reconectar`, body: `A conexão "${name}" falhou várias vezes seguidas e parou às ${time} (${reason}). Abra Conexões e clique em "Tentar novamente".` },
        en: { title: `Connection "${name}" stopped trying to reconnect`, body: `The connection "${name}" failed several times in a row and stopped at ${time} (${reason}). Open Connections and click "Try again".` },
        es: { title: `La conexión "${name}" dejó de intentar reconectar`, body: `La conexión "${name}" falló varias veces seguidas y se detuvo a las ${time} (${reason}). Abra Conexiones y haga clic en "Intentar de nuevo".` },
        tr: { title: `"${name}" bağlantısı yeniden bağlanmayı bıraktı`, body: `"${name}" bağlantısı art arda birkaç kez başarısız oldu ve ${time} saatinde durdu (${reason}). Bağlantılar sayfasını açın ve "Tekrar dene"ye tıklayın.` },
      };
  }
}

/** `dd/MM/yyyy HH:mm` of `iso` in the business time zone (TZ_BUSINESS). */
function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-GB', { timeZone: businessTimeZone(), year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(d).map((x) => [x.type, x.value]));
  return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`;
}

export interface ConnectionAlertsOptions {
  jobs: Jobs;
  log: FastifyBaseLogger;
  connections: Pick<ConnectionsService, 'get'>;
  /** The notifications service (absent: alerts are only logged). */
  notifications?: NotificationsService;
  /** How long a dropped connection may stay down before the admins are told, ms (0: at once). */
  dropDelayMs: number;
}

/**
 * Session alerts to the company's admins (issue 33 item 3), through a durable job keyed per connection so
 * they survive a node's death and run once across nodes:
 * - `dropped`: the job is scheduled `dropDelayMs` later; if the connection is CONNECTED again by then (on any
 *   node) nobody is told; a `recovered` before it cancels it;
 * - `needs-qr`, `closed`, `timeout`: told at once (replacing a pending `dropped`).
 * Telling = `notifications.notifyAdmins` with `connection.<kind>` in the four languages, link `/connections`,
 * never sending the WhatsApp message through the connection concerned.
 */
export class ConnectionAlerts {
  constructor(private readonly o: ConnectionAlertsOptions) {}

  /** A session's alert (never throws: failures are logged). */
  async onAlert(companyId: number, connectionId: number, alert: SessionAlert): Promise<void> {
    try {
      if (alert.kind === 'recovered') {
        await this.o.jobs.cancel(CONNECTION_ALERT_JOB, jobKey(connectionId));
        return;
      }
      const data: ConnectionAlertData = { companyId, connectionId, kind: alert.kind, reason: alert.reason, at: alert.at };
      await this.o.jobs.schedule(CONNECTION_ALERT_JOB, data, { key: jobKey(connectionId), delayMs: alert.kind === 'dropped' ? this.o.dropDelayMs : 0 });
    } catch (err) {
      this.o.log.error({ err, companyId, connectionId, alert }, 'whatsapp-sessions: scheduling a connection alert failed');
    }
  }

  /** The job: tells the admins unless the connection is gone, or (for a drop) connected again. */
  async run(data: ConnectionAlertData): Promise<void> {
    const conn = await this.o.connections.get(data.companyId, data.connectionId);
    if (!conn) return;
    if (data.kind === 'dropped' && conn.status === 'CONNECTED') return;
    const notice: AdminNotice = {
      kind: `connection.${data.kind}`,
      text: alertTexts(data.kind, { name: conn.name, time: localTime(data.at), reason: data.reason }),
      link: '/connections',
      data: { connectionId: conn.id, connectionName: conn.name, reason: data.reason, status: conn.status, at: data.at },
      avoidConnectionId: conn.id,
    };
    this.o.log.warn({ companyId: data.companyId, connectionId: data.connectionId, kind: data.kind, reason: data.reason }, 'whatsapp-sessions: telling the admins about the connection');
    if (!this.o.notifications) return;
    await this.o.notifications.notifyAdmins(data.companyId, notice);
  }
}
