import type { Knex } from 'knex';
import { AppError, iso, type IdentityService, type Realtime } from '@atendo/sdk';
import { PLANTAO_MESSAGES, plantaoEvent, WEEKDAYS, type Plantao, type PlantaoDay } from '../contract';
import type { PlantaoBody } from '../schemas/plantao';

/** A `plantao_entries` row (camelCase through the kernel's knex). */
export interface PlantaoRow {
  id: number;
  companyId: number;
  userId: number;
  phone: string;
  interval: number;
  days: PlantaoDay[];
  lastNotifiedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Checks a body beyond its schema with the spec's messages (400 ERR_VALIDATION): phone present (digits
 * 8..20 once cleaned), the seven weekdays once each, a day with one time has the other, at least one day
 * with both. Returns the cleaned phone and the days in Monday..Sunday order with the canonical names.
 */
export function checkPlantao(body: PlantaoBody): { phone: string; interval: number; days: PlantaoDay[] } {
  const phone = String(body.phone ?? '').replace(/\D/g, '');
  if (!phone) throw new AppError('ERR_VALIDATION', PLANTAO_MESSAGES.phone);
  if (phone.length < 8 || phone.length > 20) throw new AppError('ERR_VALIDATION', PLANTAO_MESSAGES.phone);
  const byDay = new Map(body.days.map((d) => [d.weekdayEn.toLowerCase(), d]));
  if (byDay.size !== 7) throw new AppError('ERR_VALIDATION', 'days must list the seven weekdays once each');
  const days = WEEKDAYS.map(({ weekday, weekdayEn }) => {
    const d = byDay.get(weekdayEn)!;
    const startTime = d.startTime || null;
    const endTime = d.endTime || null;
    if (startTime && !endTime) throw new AppError('ERR_VALIDATION', PLANTAO_MESSAGES.end);
    if (!startTime && endTime) throw new AppError('ERR_VALIDATION', PLANTAO_MESSAGES.start);
    return { weekday, weekdayEn, startTime, endTime };
  });
  if (!days.some((d) => d.startTime && d.endTime)) throw new AppError('ERR_VALIDATION', PLANTAO_MESSAGES.oneDay);
  return { phone, interval: body.interval ?? 1, days };
}

/**
 * The roster's data access. Every method takes the caller's `companyId` and filters on it (another
 * company's id is a 404 ERR_NO_PLANTAO_FOUND); socket events `company-{id}-plantao` after the write.
 */
export class PlantaoStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly identity: IdentityService,
  ) {}

  private async answer(companyId: number, rows: PlantaoRow[]): Promise<Plantao[]> {
    const users = new Map((await this.identity.listUsers(companyId, [...new Set(rows.map((r) => r.userId))])).map((u) => [u.id, u]));
    return rows.map((r) => ({
      id: r.id,
      companyId: r.companyId,
      userId: r.userId,
      user: { id: r.userId, name: users.get(r.userId)?.name ?? '' },
      phone: r.phone,
      interval: r.interval,
      days: r.days,
      lastNotifiedAt: r.lastNotifiedAt ? iso(r.lastNotifiedAt) : null,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
    }));
  }

  /** The company's roster, by id. */
  async list(companyId: number): Promise<Plantao[]> {
    return this.answer(companyId, (await this.db('plantaoEntries').where({ companyId }).orderBy('id')) as PlantaoRow[]);
  }

  /** One entry; 404 ERR_NO_PLANTAO_FOUND. */
  async get(companyId: number, id: number): Promise<Plantao> {
    const row = (await this.db('plantaoEntries').where({ companyId, id }).first()) as PlantaoRow | undefined;
    if (!row) throw new AppError('ERR_NO_PLANTAO_FOUND');
    return (await this.answer(companyId, [row]))[0];
  }

  private async checkUser(companyId: number, userId: number): Promise<void> {
    if (!(await this.identity.getUser(companyId, userId))) throw new AppError('ERR_NO_USER_FOUND', PLANTAO_MESSAGES.user);
  }

  /** Creates an entry (see `checkPlantao`; 404 ERR_NO_USER_FOUND for a user outside the company). */
  async create(companyId: number, body: PlantaoBody): Promise<Plantao> {
    const v = checkPlantao(body);
    await this.checkUser(companyId, body.userId);
    const [row] = (await this.db('plantaoEntries').insert({ companyId, userId: body.userId, phone: v.phone, interval: v.interval, days: JSON.stringify(v.days) }).returning('*')) as PlantaoRow[];
    const record = (await this.answer(companyId, [row]))[0];
    this.realtime.emitToCompany(companyId, plantaoEvent(companyId), { action: 'create', record });
    return record;
  }

  /** Replaces an entry's fields; 404 ERR_NO_PLANTAO_FOUND / ERR_NO_USER_FOUND. */
  async update(companyId: number, id: number, body: PlantaoBody): Promise<Plantao> {
    const v = checkPlantao(body);
    await this.checkUser(companyId, body.userId);
    const [row] = (await this.db('plantaoEntries')
      .where({ companyId, id })
      .update({ userId: body.userId, phone: v.phone, interval: v.interval, days: JSON.stringify(v.days), updatedAt: this.db.fn.now() })
      .returning('*')) as PlantaoRow[];
    if (!row) throw new AppError('ERR_NO_PLANTAO_FOUND');
    const record = (await this.answer(companyId, [row]))[0];
    this.realtime.emitToCompany(companyId, plantaoEvent(companyId), { action: 'update', record });
    return record;
  }

  /** Deletes an entry; 404 ERR_NO_PLANTAO_FOUND. */
  async remove(companyId: number, id: number): Promise<void> {
    const n = await this.db('plantaoEntries').where({ companyId, id }).del();
    if (!n) throw new AppError('ERR_NO_PLANTAO_FOUND');
    this.realtime.emitToCompany(companyId, plantaoEvent(companyId), { action: 'delete', id });
  }
}
