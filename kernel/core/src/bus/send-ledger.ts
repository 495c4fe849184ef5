import type { Knex } from 'knex';
import type { SendLedger } from '@atendo/sdk';

/** How long a send is remembered (days): longer than any redelivery or retry window (SEND_RETRY_HOURS, 24 h). */
const KEEP_DAYS = 7;

/**
 * The kernel's `ctx.sends` (SDK `SendLedger`) on the `outbound_sends` table: one row per command a channel adapter
 * handed to its provider, kept `KEEP_DAYS` days (pruned every hour by the node that runs it).
 */
export class KernelSendLedger implements SendLedger {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Knex) {}

  async find(key: string): Promise<string | undefined> {
    const { rows } = (await this.db.raw('SELECT external_id FROM outbound_sends WHERE key = ?', [key])) as { rows: { external_id: string }[] };
    return rows[0]?.external_id;
  }

  async record(companyId: number, key: string, externalId: string): Promise<void> {
    await this.db.raw('INSERT INTO outbound_sends (key, company_id, external_id) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING', [key.slice(0, 255), companyId, externalId.slice(0, 255)]);
  }

  /** Deletes what is older than KEEP_DAYS now and every hour. */
  startPruning(): void {
    const prune = () => {
      this.db.raw(`DELETE FROM outbound_sends WHERE sent_at < now() - interval '${KEEP_DAYS} days'`).catch(() => undefined);
    };
    prune();
    this.timer = setInterval(prune, 3_600_000);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
