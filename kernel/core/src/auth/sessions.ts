import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/** Seconds during which a just-rotated refresh token may still be used once more (parallel tabs/requests). */
export const ROTATION_GRACE_SECONDS = 10;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface SessionRow {
  id: string;
  userId: number;
  companyId: number;
  familyId: string;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

/**
 * Refresh sessions: an opaque 256-bit token in the `jrt` cookie, stored only as its SHA-256 in
 * `auth_sessions`. Each use rotates it (the old row is revoked, a new one joins the same family). A revoked
 * token presented again outside the short grace window is treated as theft: the whole family is revoked.
 * Logout revokes the session; a password change revokes every session of the user.
 */
export class SessionStore {
  constructor(private readonly db: Knex, private readonly days: number) {}

  /** Opens a new session (new family) and returns the raw token for the cookie. */
  async create(trx: Knex | Knex.Transaction, userId: number, companyId: number, meta: { userAgent?: string; ip?: string }, familyId: string = randomUUID()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await trx('authSessions').insert({
      id: randomUUID(),
      userId,
      companyId,
      familyId,
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.now() + this.days * 86400_000),
      userAgent: meta.userAgent?.slice(0, 255) ?? null,
      ip: meta.ip?.slice(0, 64) ?? null,
    });
    return token;
  }

  /**
   * Rotates `token`: returns the new raw token and the session's user, or undefined when the token is
   * unknown, expired or revoked (revoking the family on reuse).
   */
  async rotate(token: string, meta: { userAgent?: string; ip?: string }): Promise<{ token: string; userId: number; companyId: number } | undefined> {
    return this.db.transaction(async (trx) => {
      const row: SessionRow | undefined = await trx('authSessions').where({ tokenHash: hashToken(token) }).forUpdate().first();
      if (!row) return undefined;
      if (new Date(row.expiresAt).getTime() <= Date.now()) return undefined;
      if (row.revokedAt) {
        const age = (Date.now() - new Date(row.revokedAt).getTime()) / 1000;
        if (row.revokedReason !== 'rotated' || age > ROTATION_GRACE_SECONDS) {
          await trx('authSessions').where({ familyId: row.familyId }).whereNull('revokedAt').update({ revokedAt: trx.fn.now(), revokedReason: 'reuse' });
          return undefined;
        }
      } else {
        await trx('authSessions').where({ id: row.id }).update({ revokedAt: trx.fn.now(), revokedReason: 'rotated', updatedAt: trx.fn.now() });
      }
      const next = await this.create(trx, row.userId, row.companyId, meta, row.familyId);
      return { token: next, userId: row.userId, companyId: row.companyId };
    });
  }

  /** Revokes the session of `token` (logout). */
  async revoke(token: string): Promise<void> {
    await this.db('authSessions').where({ tokenHash: hashToken(token) }).whereNull('revokedAt').update({ revokedAt: this.db.fn.now(), revokedReason: 'logout' });
  }

  /** Revokes every session of a user (password change, user deleted). */
  async revokeUser(trx: Knex | Knex.Transaction, userId: number): Promise<void> {
    await trx('authSessions').where({ userId }).whereNull('revokedAt').update({ revokedAt: trx.fn.now(), revokedReason: 'password' });
  }
}
