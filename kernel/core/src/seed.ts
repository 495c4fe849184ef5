import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import type { KernelConfig } from './config';
import { hashPassword } from './identity/service';
import { PLATFORM_COMPANY_ID, PLATFORM_DUE_DATE } from './identity/defaults';

/** Demo attendants seeded into company 1 when SEED_DEMO is on (password generated and printed once). */
export const DEMO_USERS = [
  { name: 'Ana Atendente', email: 'ana@example.com', profile: 'user' },
  { name: 'Bruno Atendente', email: 'bruno@example.com', profile: 'user' },
  { name: 'Carla Supervisora', email: 'carla@example.com', profile: 'supervisor' },
] as const;

const generate = () => randomBytes(12).toString('base64url');

/**
 * First start: creates the full-feature platform plan, a public starter plan for sign-up, company 1
 * (never expires) and its super admin from ADMIN_EMAIL / ADMIN_PASSWORD. When ADMIN_PASSWORD is unset a
 * password is generated; the credentials are returned (to be printed once) and written to DATA_DIR/initial-credentials.txt
 * (mode 0600). With SEED_DEMO, demo attendants are added. Idempotent: does nothing once company 1 exists.
 */
export async function seedPlatform({ db, config, log }: { db: Knex; config: KernelConfig; log: FastifyBaseLogger }): Promise<string[] | undefined> {
  const lines: string[] = [];
  await db.transaction(async (trx) => {
    // Serialise concurrent first starts of several nodes.
    await trx.raw('SELECT pg_advisory_xact_lock(4242001)');
    if (await trx('companies').where({ id: PLATFORM_COMPANY_ID }).first('id')) return undefined;
    const [full] = await trx('plans')
      .insert({ name: 'Plataforma', users: 1000, connections: 100, queues: 500, amount: 0, isPublic: false })
      .onConflict('name').merge().returning('id');
    await trx('plans')
      .insert({ name: 'Essencial', users: 5, connections: 2, queues: 5, amount: 99.9, isPublic: true, useCampaigns: false, useOpenAi: false, useIntegration: false, useExternalApi: false })
      .onConflict('name').ignore();
    await trx('companies').insert({ id: PLATFORM_COMPANY_ID, name: 'Atendo', email: config.ADMIN_EMAIL, planId: full.id, status: true, dueDate: PLATFORM_DUE_DATE, recurrence: 'YEARLY' });
    await trx.raw(`SELECT setval(pg_get_serial_sequence('companies', 'id'), GREATEST((SELECT MAX(id) FROM companies), 1))`);
    const password = config.ADMIN_PASSWORD ?? generate();
    await trx('users').insert({ companyId: PLATFORM_COMPANY_ID, name: 'Admin', email: config.ADMIN_EMAIL.toLowerCase(), passwordHash: await hashPassword(password), profile: 'admin', super: true });
    lines.push(`super admin: ${config.ADMIN_EMAIL} / ${config.ADMIN_PASSWORD ? '(ADMIN_PASSWORD)' : password}`);
    if (config.SEED_DEMO) {
      const demoPassword = generate();
      for (const u of DEMO_USERS) {
        await trx('users').insert({ companyId: PLATFORM_COMPANY_ID, name: u.name, email: u.email, passwordHash: await hashPassword(demoPassword), profile: u.profile }).onConflict().ignore();
      }
      lines.push(`demo attendants (${DEMO_USERS.map((u) => u.email).join(', ')}): ${demoPassword}`);
    }
  });
  if (lines.length) {
    const file = join(config.dataDir, 'initial-credentials.txt');
    writeFileSync(file, lines.join('\n') + '\n', { mode: 0o600 });
    log.info({ file }, 'platform seeded: company 1, plans and super admin');
    return lines;
  }
  return undefined;
}
