import type { Knex } from 'knex';
import type { ContactsService } from '@atendo/plugin-contacts/contract';
import type { TicketsService } from '@atendo/plugin-tickets/contract';
import type { DataSubject } from './data-subject';

const DAY_MS = 86_400_000;
const PAGE = 500;

/**
 * Retention (issue 34 item 3): a company with `retentionDays` set has the contacts whose conversations are
 * all closed and untouched for that many days anonymized by a daily job (`compliance.retention`, 03:17 UTC,
 * once across nodes), as the data subject's anonymization does (audited as `system`, label `retention`).
 * The preview counts them for a number of days without changing anything (shown before it is switched on).
 */
export class Retention {
  constructor(
    private readonly db: Knex,
    private readonly contacts: ContactsService,
    private readonly tickets: TicketsService,
    private readonly subject: DataSubject,
  ) {}

  /** The contacts of `companyId` that `days` of retention would anonymize now (not anonymized yet), ascending. */
  async candidates(companyId: number, days: number, now = new Date()): Promise<number[]> {
    if (!this.tickets.staleContactIds || !this.contacts.privacyOf) return [];
    const before = new Date(now.getTime() - days * DAY_MS);
    const out: number[] = [];
    for (let after = 0; ; ) {
      const ids = await this.tickets.staleContactIds(companyId, before, after, PAGE);
      if (!ids.length) break;
      const privacy = await this.contacts.privacyOf(companyId, ids);
      for (const id of ids) if (privacy.get(id) && !privacy.get(id)!.anonymizedAt) out.push(id);
      after = ids[ids.length - 1];
      if (ids.length < PAGE) break;
    }
    return out;
  }

  /** The dry run: how many contacts `days` would anonymize now. */
  async preview(companyId: number, days: number): Promise<{ days: number; contacts: number }> {
    return { days, contacts: (await this.candidates(companyId, days)).length };
  }

  /** Runs retention for every company that has it on; answers how many contacts were anonymized per company. */
  async runAll(now = new Date()): Promise<Map<number, number>> {
    const rows = (await this.db('complianceSettings').whereNotNull('retentionDays').select('companyId', 'retentionDays')) as { companyId: number; retentionDays: number }[];
    const done = new Map<number, number>();
    for (const r of rows) {
      let n = 0;
      for (const id of await this.candidates(r.companyId, r.retentionDays, now)) {
        await this.subject.anonymizeIn(r.companyId, id, { actor: { kind: 'system', label: 'retention' } });
        n++;
      }
      done.set(r.companyId, n);
    }
    return done;
  }
}
