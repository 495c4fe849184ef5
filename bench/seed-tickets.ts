/**
 * Seeds the ticket-list benchmark database: one company ("Atendo Bench") with 20 users, 10 queues,
 * 4 connections, 30,000 contacts (300 of them groups), 100,000 tickets and about 1,000,000 messages.
 *
 *   npx tsx bench/seed-tickets.ts
 *
 * Database: DATABASE_URL when set (its database name must contain "bench": a partial seed is reset by
 * deleting the bench company), else an embedded PostgreSQL under /tmp/atendo-bench-pg (port
 * BENCH_PG_PORT, default 54339), database atendo_bench. The schema comes from a kernel built with the
 * real plugins and their migrations. Rows are generated inside PostgreSQL (INSERT ... SELECT
 * generate_series); the message indexes are dropped during the bulk insert and rebuilt after, then the
 * tables are VACUUM ANALYZEd. Idempotent: a complete seed is detected and left as it is.
 *
 * Ticket mix: ~2% pending, ~3% open, 1% group, the rest closed; active tickets updated within the last 3
 * days, closed ones over the previous 6 months; 5% without a queue; open and closed tickets assigned to
 * one of the 20 users; 1 to 19 messages per ticket (10 on average) with varied Portuguese bodies, about
 * one in ten containing the word "pedido" (the benchmark's search term).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Knex } from 'knex';
import type { PluginDefinition } from '@atendo/sdk';
import { buildKernel, type Kernel } from '@atendo/core/src/app';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from '@atendo/core/src/db';
import { hashPassword } from '@atendo/core/src/identity/service';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';

export const BENCH_COMPANY = 'Atendo Bench';
export const BENCH_PLAN = 'Atendo Bench plan';
export const BENCH_ADMIN_EMAIL = 'bench-admin@atendo.local';
/** The plain user of the benchmark: profile user, 3 queues, allowGroup on. */
export const BENCH_USER_EMAIL = 'bench-user@atendo.local';
export const BENCH_PASSWORD = 'bench-password';
/**
 * BENCH_SCALE (default 1) multiplies the contacts, groups and tickets (e.g. 0.02: 2,000 tickets for the
 * short CI runs); a seed of another scale is replaced.
 */
const SCALE = Math.min(1, Math.max(0.001, Number(process.env.BENCH_SCALE ?? 1) || 1));
export const SIZES = {
  users: 20,
  queues: 10,
  connections: 4,
  contacts: Math.round(30_000 * SCALE),
  groups: Math.max(2, Math.round(300 * SCALE)),
  tickets: Math.round(100_000 * SCALE),
  tags: 5,
};
/** The plugins of the benchmark kernel, in dependency order. */
export const BENCH_PLUGINS = [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin] as PluginDefinition[];

/** The benchmark database URL (starting the embedded server when DATABASE_URL is unset). */
export async function benchDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) {
    const url = process.env.DATABASE_URL;
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    if (!/bench/i.test(name)) throw new Error(`refusing to use database "${name}": the benchmark database name must contain "bench"`);
    await ensureDatabase(url);
    return { url, stop: async () => undefined };
  }
  const dir = '/tmp/atendo-bench-pg';
  mkdirSync(dir, { recursive: true });
  const server: EmbeddedServer = await startEmbeddedPostgres(dir, Number(process.env.BENCH_PG_PORT ?? 54339), 'atendo_bench');
  return server;
}

/** A kernel on the benchmark database with the tickets plugin and its dependencies (logger off). */
export function benchKernel(url: string): Promise<Kernel> {
  const dataDir = '/tmp/atendo-bench-data';
  mkdirSync(dataDir, { recursive: true });
  return buildKernel({
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      JWT_SECRET: process.env.JWT_SECRET ?? randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: process.env.JWT_REFRESH_SECRET ?? randomBytes(32).toString('hex'),
      ADMIN_PASSWORD: BENCH_PASSWORD,
      LOG_LEVEL: 'silent',
      DB_POOL_MAX: process.env.DB_POOL_MAX ?? '10',
      ...(process.env.TICKETS_LIST_CACHE_MS ? { TICKETS_LIST_CACHE_MS: process.env.TICKETS_LIST_CACHE_MS } : {}),
    },
    plugins: BENCH_PLUGINS,
    logger: false,
  });
}

const FIRST = ['Ana', 'Bruno', 'Carla', 'Daniel', 'Eduarda', 'Felipe', 'Gabriela', 'Henrique', 'Isabela', 'João', 'Karina', 'Lucas', 'Mariana', 'Nicolas', 'Otávio', 'Patrícia', 'Rafael', 'Sofia', 'Thiago', 'Vitória', 'Maria', 'José', 'Francisca', 'Antônio', 'Luiza', 'Pedro', 'Juliana', 'Marcos', 'Fernanda', 'Paulo'];
const LAST = ['Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes', 'Costa', 'Ribeiro', 'Martins', 'Carvalho', 'Almeida', 'Lopes', 'Soares', 'Fernandes', 'Vieira', 'Barbosa', 'Rocha', 'Dias', 'Nascimento', 'Andrade', 'Moreira', 'Nunes', 'Marques', 'Machado', 'Mendes', 'Freitas'];
const PHRASES = [
  'Olá, bom dia!', 'Boa tarde, tudo bem?', 'Boa noite, preciso de ajuda', 'Gostaria de saber o valor do produto',
  'Qual o status do meu pedido?', 'Meu pedido chegou com defeito', 'O pedido foi enviado hoje pela transportadora', 'Poderia confirmar o número do pedido?',
  'Vocês entregam no interior de São Paulo?', 'Quanto tempo demora a entrega?', 'Aceitam pagamento por Pix?', 'Segue o comprovante de pagamento',
  'Preciso da segunda via do boleto', 'O boleto venceu ontem, como faço?', 'Quero cancelar a assinatura', 'Como altero meu endereço de cadastro?',
  'Estou sem acesso ao aplicativo', 'A senha não funciona', 'Recebi uma cobrança indevida', 'Gostaria de falar com um atendente',
  'Obrigado pelo atendimento!', 'Perfeito, muito obrigada', 'Vou verificar e retorno em seguida', 'Um momento, por favor',
  'Estamos verificando sua solicitação', 'Sua solicitação foi registrada com sucesso', 'Pode me enviar uma foto do produto?', 'O produto está disponível em outras cores?',
  'Tem garantia de quanto tempo?', 'A nota fiscal foi enviada por e-mail', 'Qual o horário de funcionamento da loja?', 'Vocês abrem aos sábados?',
  'Preciso trocar o tamanho', 'O reembolso já foi processado', 'Quando chega o técnico?', 'A instalação ficou agendada para amanhã',
  'Não recebi o código de rastreio', 'O endereço de entrega está correto', 'Pode confirmar o CPF do titular?', 'Atendimento encerrado, até logo!',
];
const TAILS = ['', '', '', ' Obrigado!', ' Aguardo retorno.', ' Por favor.', ' É urgente.', ' Valeu!', ' Att.', ' Grato.'];

/** A text[] literal for knex.raw (quotes doubled, `?` escaped so knex does not take it for a binding). */
const sqlArray = (items: string[]) => `ARRAY[${items.map((s) => `'${s.replace(/'/g, "''").replace(/\?/g, '\\?')}'`).join(', ')}]::text[]`;

/** The benchmark company's id when its seed is complete, else undefined. */
async function completeSeed(db: Knex): Promise<number | undefined> {
  const company = await db('companies').where({ name: BENCH_COMPANY }).first('id');
  if (!company) return undefined;
  const { rows } = await db.raw(
    `SELECT (SELECT count(*) FROM tickets WHERE company_id = ?)::int AS tickets,
            (SELECT count(*) FROM messages WHERE company_id = ?)::int AS messages,
            (SELECT count(*) FROM contacts WHERE company_id = ?)::int AS contacts,
            (SELECT count(*) FROM pg_indexes WHERE indexname = 'messages_company_body_trgm')::int AS trgm`,
    [company.id, company.id, company.id],
  );
  const r = rows[0] as { tickets: number; messages: number; contacts: number; trgm: number };
  return r.tickets === SIZES.tickets && r.messages > SIZES.tickets * 9 && r.contacts === SIZES.contacts && r.trgm === 1 ? company.id : undefined;
}

/**
 * Seeds the benchmark company (see the file's docstring) unless a complete seed exists. Returns its id
 * and whether rows were written.
 */
export async function seedTickets(db: Knex, log: (line: string) => void = console.log): Promise<{ companyId: number; seeded: boolean }> {
  const existing = await completeSeed(db);
  if (existing) {
    log(`bench company ${existing} already seeded`);
    return { companyId: existing, seeded: false };
  }
  const t0 = Date.now();
  const step = (what: string) => log(`  ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const passwordHash = await hashPassword(BENCH_PASSWORD);

  // A partial seed (an interrupted run) is removed first; FKs cascade from tickets and companies.
  const old = await db('companies').where({ name: BENCH_COMPANY }).first('id');
  if (old) {
    log(`removing the incomplete bench company ${old.id}`);
    await db('tickets').where({ companyId: old.id }).del();
    await db('companies').where({ id: old.id }).del();
  }
  await db('plans').where({ name: BENCH_PLAN }).del();

  // Messages' secondary indexes are rebuilt after the bulk insert (much faster than maintaining them).
  const { rows: idx } = await db.raw(
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'messages' AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'messages'::regclass)",
  );
  const messageIndexes = idx as { indexname: string; indexdef: string }[];

  let companyId = 0;
  await db.transaction(async (trx) => {
    await trx.raw("SET LOCAL synchronous_commit = off");
    await trx.raw("SET LOCAL maintenance_work_mem = '512MB'");
    await trx.raw('SELECT setseed(0.4242)');
    const [plan] = await trx('plans')
      .insert({ name: BENCH_PLAN, users: 100, connections: 20, queues: 50, amount: 0, isPublic: false })
      .returning('id');
    const [company] = await trx('companies')
      .insert({ name: BENCH_COMPANY, email: 'bench@atendo.local', planId: plan.id, status: true, dueDate: '2999-01-01', recurrence: 'MONTHLY' })
      .returning('id');
    companyId = company.id;
    const cid = companyId;

    // users: #1 admin, #2 the plain benchmark user, #3..#20 plain users
    const users = Array.from({ length: SIZES.users }, (_, i) => ({
      companyId: cid,
      name: i === 0 ? 'Bench Admin' : `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]}`,
      email: i === 0 ? BENCH_ADMIN_EMAIL : i === 1 ? BENCH_USER_EMAIL : `bench-agent-${i}@atendo.local`,
      passwordHash,
      profile: i === 0 ? 'admin' : 'user',
      allowGroup: i === 1,
    }));
    const userIds: number[] = (await trx('users').insert(users).returning('id')).map((r: { id: number }) => r.id);
    const queueIds: number[] = (
      await trx('queues')
        .insert(Array.from({ length: SIZES.queues }, (_, i) => ({ companyId: cid, name: `Fila ${i + 1}`, color: `#${(0x203040 + i * 0x0f1d2b).toString(16).slice(-6)}`, orderQueue: i + 1 })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const memberships: { userId: number; queueId: number; companyId: number }[] = [];
    userIds.forEach((userId, i) => {
      if (i === 0) return; // the admin sees everything anyway
      const own = i === 1 ? [0, 1, 2] : [i % SIZES.queues, (i + 3) % SIZES.queues];
      for (const q of own) memberships.push({ userId, queueId: queueIds[q], companyId: cid });
    });
    await trx('userQueues').insert(memberships);
    const connectionIds: number[] = (
      await trx('whatsapps')
        .insert(
          Array.from({ length: SIZES.connections }, (_, i) => ({
            companyId: cid,
            name: `Conexão ${i + 1}`,
            channel: 'whatsapp',
            isDefault: i === 0,
            status: 'CONNECTED',
            number: `5511990000${i}0`,
            token: randomBytes(15).toString('hex').toUpperCase(),
          })),
        )
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const tagIds: number[] = (
      await trx('tags')
        .insert(Array.from({ length: SIZES.tags }, (_, i) => ({ companyId: cid, name: `Etapa ${i + 1}`, color: '#A4CCCC', kanban: 1, userId: userIds[0] })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    step('users, queues, connections, tags');

    const persons = SIZES.contacts - SIZES.groups;
    await trx.raw(
      `INSERT INTO contacts (company_id, name, number, is_group, channel, created_at, updated_at)
       SELECT ?, (${sqlArray(FIRST)})[1 + (i * 7) % ${FIRST.length}] || ' ' || (${sqlArray(LAST)})[1 + (i * 13) % ${LAST.length}]
                 || CASE WHEN i % 3 = 0 THEN ' ' || (${sqlArray(LAST)})[1 + (i * 17) % ${LAST.length}] ELSE '' END,
              '55' || (11 + i % 89)::text || '9' || lpad(i::text, 8, '0'), false, 'whatsapp',
              now() - random() * interval '365 days', now() - random() * interval '180 days'
       FROM generate_series(1, ?) i`,
      [cid, persons],
    );
    await trx.raw(
      `INSERT INTO contacts (company_id, name, number, is_group, channel)
       SELECT ?, 'Grupo ' || (${sqlArray(LAST)})[1 + i % ${LAST.length}] || ' ' || i, '1203630' || lpad(i::text, 11, '0'), true, 'whatsapp'
       FROM generate_series(1, ?) i`,
      [cid, SIZES.groups],
    );
    await trx.raw(`CREATE TEMP TABLE bench_person ON COMMIT DROP AS SELECT (row_number() OVER (ORDER BY id) - 1)::int AS idx, id FROM contacts WHERE company_id = ? AND NOT is_group`, [cid]);
    await trx.raw(`CREATE TEMP TABLE bench_group ON COMMIT DROP AS SELECT (row_number() OVER (ORDER BY id) - 1)::int AS idx, id FROM contacts WHERE company_id = ? AND is_group`, [cid]);
    await trx.raw('CREATE UNIQUE INDEX ON bench_person (idx)');
    await trx.raw('CREATE UNIQUE INDEX ON bench_group (idx)');
    step(`${SIZES.contacts} contacts`);

    // Each (contact, connection) pair holds at most one active ticket: person tickets walk the pairs in
    // order (29,700 contacts x 4 connections > 100,000), group tickets likewise (300 x 4 > 1,000).
    const arr = (ids: number[]) => `(ARRAY[${ids.join(',')}]::int[])`;
    await trx.raw(
      `INSERT INTO tickets (uuid, company_id, contact_id, whatsapp_id, queue_id, user_id, status, unread_messages, last_message,
                            is_group, channel, created_at, updated_at, closed_at, accepted_at)
       SELECT gen_random_uuid(), ?, c.id, w.ids[1 + s.widx], CASE WHEN s.i % 20 = 7 THEN NULL ELSE ${arr(queueIds)}[1 + (s.i * 7) % ${queueIds.length}] END,
              CASE WHEN s.status = 'pending' THEN NULL ELSE ${arr(userIds)}[1 + floor(random() * ${userIds.length})::int] END,
              s.status, CASE s.status WHEN 'pending' THEN 1 + s.i % 4 WHEN 'open' THEN s.i % 3 ELSE 0 END,
              (${sqlArray(PHRASES)})[1 + (s.i * 11) % ${PHRASES.length}], s.status = 'group', 'whatsapp',
              s.updated_at - random() * interval '2 days', s.updated_at,
              CASE WHEN s.status = 'closed' THEN s.updated_at END,
              CASE WHEN s.status IN ('open', 'group', 'closed') THEN s.updated_at - random() * interval '1 day' END
       FROM (
         SELECT i, st AS status,
                CASE WHEN st = 'group' THEN (((i - 1) / 100) / ${SIZES.groups}) % 4 ELSE ((i - 1) / ${persons}) % 4 END AS widx,
                CASE WHEN st = 'group' THEN ((i - 1) / 100) % ${SIZES.groups} ELSE (i - 1) % ${persons} END AS cidx,
                CASE WHEN st = 'closed' THEN now() - interval '3 days' - random() * interval '177 days' ELSE now() - random() * interval '72 hours' END AS updated_at
         FROM (SELECT i, CASE WHEN i % 100 < 2 THEN 'pending' WHEN i % 100 < 5 THEN 'open' WHEN i % 100 = 5 THEN 'group' ELSE 'closed' END AS st
               FROM generate_series(1, ?) i) g
       ) s
       CROSS JOIN (SELECT ${arr(connectionIds)} AS ids) w
       JOIN LATERAL (SELECT id FROM bench_person WHERE s.status <> 'group' AND idx = s.cidx
                     UNION ALL SELECT id FROM bench_group WHERE s.status = 'group' AND idx = s.cidx) c ON true`,
      [cid, SIZES.tickets],
    );
    step(`${SIZES.tickets} tickets`);
    await trx.raw(
      `INSERT INTO ticket_tags (ticket_id, tag_id, company_id)
       SELECT id, ${arr(tagIds)}[1 + id % ${tagIds.length}], company_id FROM tickets WHERE company_id = ? AND id % 10 = 0`,
      [cid],
    );

    for (const i of messageIndexes) await trx.raw(`DROP INDEX IF EXISTS "${i.indexname}"`);
    await trx.raw(
      `INSERT INTO messages (company_id, ticket_id, contact_id, from_me, body, ack, read, media_type, created_at, updated_at)
       SELECT t.company_id, t.id, CASE WHEN g % 2 = 0 THEN NULL ELSE t.contact_id END, g % 2 = 0,
              (${sqlArray(PHRASES)})[1 + floor(random() * ${PHRASES.length})::int] || (${sqlArray(TAILS)})[1 + floor(random() * ${TAILS.length})::int]
                || CASE WHEN random() < 0.15 THEN ' Protocolo ' || (100000 + floor(random() * 900000))::int ELSE '' END,
              3, NOT (t.unread_messages > 0 AND g % 2 = 1), 'conversation',
              t.created_at + g * interval '2 minutes', t.created_at + g * interval '2 minutes'
       FROM tickets t CROSS JOIN LATERAL generate_series(1, 1 + (t.id * 7) % 19) g
       WHERE t.company_id = ?`,
      [cid],
    );
    step('messages');
    for (const i of messageIndexes) {
      await trx.raw(i.indexdef);
      step(`index ${i.indexname}`);
    }
  });
  for (const table of ['tickets', 'messages', 'contacts', 'ticket_tags', 'users', 'user_queues', 'queues', 'whatsapps', 'tags']) {
    await db.raw(`VACUUM (ANALYZE) ${table}`);
  }
  step('VACUUM ANALYZE');
  return { companyId, seeded: true };
}

async function main(): Promise<void> {
  const started = Date.now();
  const database = await benchDatabase();
  let kernel: Kernel | undefined;
  try {
    kernel = await benchKernel(database.url);
    console.log(`seeding ${new URL(database.url).pathname.slice(1)} ...`);
    const { companyId, seeded } = await seedTickets(kernel.db);
    const { rows } = await kernel.db.raw(
      'SELECT status, count(*)::int AS n FROM tickets WHERE company_id = ? GROUP BY status ORDER BY status',
      [companyId],
    );
    const { rows: m } = await kernel.db.raw('SELECT count(*)::int AS n FROM messages WHERE company_id = ?', [companyId]);
    console.log(`company ${companyId}: ${rows.map((r: { status: string; n: number }) => `${r.status} ${r.n}`).join(', ')}; messages ${m[0].n}`);
    console.log(`${seeded ? 'seeded' : 'nothing to do'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await kernel?.close();
    await database.stop();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
