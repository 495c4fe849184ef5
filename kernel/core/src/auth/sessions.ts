import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { SessionGuard } from './session-guard';

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
 * Logout revokes the session (its whole family); a password change revokes every session of the user. Every
 * revocation tells the SessionGuard once it has committed, so access tokens issued from the revoked
 * sessions stop working at once on every node.
 */
export class SessionStore {
  constructor(private readonly db: Knex, private readonly days: number, private readonly guard?: SessionGuard) {}

  /** Opens a new session (new family) and returns the raw token for the cookie and the family id (the access token's `sid`). */
  async open(trx: Knex | Knex.Transaction, userId: number, companyId: number, meta: { userAgent?: string; ip?: string }): Promise<{ token: string; familyId: string }> {
    const familyId = randomUUID();
    return { token: await this.create(trx, userId, companyId, meta, familyId), familyId };
  }

  /** Opens a new session in `familyId` (a new family by default) and returns the raw token for the cookie. */
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
  async rotate(token: string, meta: { userAgent?: string; ip?: string }): Promise<{ token: string; userId: number; companyId: number; familyId: string } | undefined> {
    return this.db.transaction(async (trx) => {
      const row: SessionRow | undefined = await trx('authSessions').where({ tokenHash: hashToken(token) }).forUpdate().first();
      if (!row) return undefined;
      if (new Date(row.expiresAt).getTime() <= Date.now()) return undefined;
      if (row.revokedAt) {
        const age = (Date.now() - new Date(row.revokedAt).getTime()) / 1000;
        if (row.revokedReason !== 'rotated' || age > ROTATION_GRACE_SECONDS) {
          await trx('authSessions').where({ familyId: row.familyId }).whereNull('revokedAt').update({ revokedAt: trx.fn.now(), revokedReason: 'reuse' });
          await this.guard?.afterCommit(trx, { familyId: row.familyId, userId: row.userId });
          return undefined;
        }
      } else {
        await trx('authSessions').where({ id: row.id }).update({ revokedAt: trx.fn.now(), revokedReason: 'rotated', updatedAt: trx.fn.now() });
      }
      const next = await this.create(trx, row.userId, row.companyId, meta, row.familyId);
      return { token: next, userId: row.userId, companyId: row.companyId, familyId: row.familyId };
    });
  }

  /**
   * The live session of `token` without rotating it (the socket handshake of clients that authenticate by
   * the browser's session, see RealtimeHub): its user and company when the token is known, not expired,
   * and not revoked (a token rotated less than ROTATION_GRACE_SECONDS ago still counts: a refresh may race
   * the handshake). Undefined otherwise. Never revokes anything.
   */
  async peek(token: string): Promise<{ userId: number; companyId: number; familyId: string; expiresAt: number } | undefined> {
    const row: SessionRow | undefined = await this.db('authSessions').where({ tokenHash: hashToken(token) }).first();
    if (!row || new Date(row.expiresAt).getTime() <= Date.now()) return undefined;
    if (row.revokedAt) {
      const age = (Date.now() - new Date(row.revokedAt).getTime()) / 1000;
      if (row.revokedReason !== 'rotated' || age > ROTATION_GRACE_SECONDS) return undefined;
    }
    return { userId: row.userId, companyId: row.companyId, familyId: row.familyId, expiresAt: new Date(row.expiresAt).getTime() };
  }

  /** Revokes the session of `token` and its whole family (logout): access tokens issued from it stop working. */
  async revoke(token: string): Promise<void> {
    const row: SessionRow | undefined = await this.db('authSessions').where({ tokenHash: hashToken(token) }).first();
    if (!row) return;
    await this.db('authSessions').where({ familyId: row.familyId }).whereNull('revokedAt').update({ revokedAt: this.db.fn.now(), revokedReason: 'logout' });
    this.guard?.changed({ familyId: row.familyId, userId: row.userId });
  }

  /**
   * Revokes the refresh-session family `familyId` of `userId` (a logout that presents only its access
   * token, whose `sid` names the family): its tokens, cookie and sockets end at once.
   */
  async revokeFamily(familyId: string, userId: number): Promise<void> {
    if (!/^[0-9a-f-]{36}$/i.test(familyId)) return;
    const n = await this.db('authSessions').where({ familyId, userId }).whereNull('revokedAt').update({ revokedAt: this.db.fn.now(), revokedReason: 'logout' });
    if (n) this.guard?.changed({ familyId, userId });
  }

  /**
   * Revokes every session of a user (password change, user deleted) inside `trx`; once it commits, the
   * user's access tokens are re-checked everywhere (the caller also bumps `tokenVersion` or deletes the user).
   */
  async revokeUser(trx: Knex | Knex.Transaction, userId: number, companyId?: number): Promise<void> {
    await trx('authSessions').where({ userId }).whereNull('revokedAt').update({ revokedAt: trx.fn.now(), revokedReason: 'password' });
    await this.guard?.afterCommit(trx, { userId, companyId });
  }
}
