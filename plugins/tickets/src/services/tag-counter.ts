import type { Knex } from 'knex';
import type { TagCounter } from '@atendo/plugin-tags/contract';

/** The `ticketsCount` counter tickets contributes to `tags.counters`: ticket links per tag, scoped to the company. */
export function ticketsPerTag(db: Knex): TagCounter {
  return {
    key: 'ticketsCount',
    async count(companyId, tagIds) {
      const out = new Map<number, number>();
      if (!tagIds.length) return out;
      const rows: { tagId: number; n: string }[] = await db('ticketTags').where({ companyId }).whereIn('tagId', tagIds).groupBy('tagId').select('tagId').count({ n: '*' });
      for (const r of rows) out.set(r.tagId, Number(r.n));
      return out;
    },
  };
}
