import type { Knex } from 'knex';
import { AppError, iso } from '@atendo/sdk';
import type { Help } from '../contract';
import type { HelpBody } from '../schemas/helps';

/** A helps row as the API answers it (ISO timestamps, strings never null except `link`). */
export function helpOut(row: Record<string, unknown>): Help {
  return {
    id: row.id as number,
    title: String(row.title),
    video: String(row.video ?? ''),
    description: String(row.description ?? ''),
    link: (row.link as string | null) || null,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Columns from a create/update body: trimmed, blank title refused (400 ERR_VALIDATION), '' link -> null. */
function helpValues(body: HelpBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body.title !== undefined) {
    const title = body.title.trim();
    if (!title) throw new AppError('ERR_VALIDATION', 'title must not be blank');
    out.title = title;
  }
  if (body.video !== undefined) out.video = (body.video ?? '').trim();
  if (body.description !== undefined) out.description = body.description ?? '';
  if (body.link !== undefined) out.link = body.link?.trim() || null;
  return out;
}

/** Data access for the platform-wide `helps` table (no company: help entries are shared by all). */
export class HelpStore {
  constructor(private readonly db: Knex) {}

  /** Every help entry, ordered by title then id. */
  async list(): Promise<Help[]> {
    return (await this.db('helps').orderBy('title').orderBy('id')).map(helpOut);
  }

  /** One entry; 404 ERR_NO_HELP_FOUND. */
  async get(id: number): Promise<Help> {
    const row = await this.db('helps').where({ id }).first();
    if (!row) throw new AppError('ERR_NO_HELP_FOUND');
    return helpOut(row);
  }

  /** Creates an entry; 400 ERR_VALIDATION for a blank title. */
  async create(body: HelpBody): Promise<Help> {
    const [row] = await this.db('helps').insert(helpValues(body)).returning('*');
    return helpOut(row);
  }

  /** Updates the given fields; 404 ERR_NO_HELP_FOUND, 400 ERR_VALIDATION for a blank title. */
  async update(id: number, body: HelpBody): Promise<Help> {
    const [row] = await this.db('helps').where({ id }).update({ ...helpValues(body), updatedAt: this.db.fn.now() }).returning('*');
    if (!row) throw new AppError('ERR_NO_HELP_FOUND');
    return helpOut(row);
  }

  /** Deletes an entry and answers it as it was; 404 ERR_NO_HELP_FOUND. */
  async remove(id: number): Promise<Help> {
    const [row] = await this.db('helps').where({ id }).del().returning('*');
    if (!row) throw new AppError('ERR_NO_HELP_FOUND');
    return helpOut(row);
  }
}
