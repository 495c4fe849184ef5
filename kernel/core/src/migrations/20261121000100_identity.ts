import type { Knex } from 'knex';

/** Kernel identity store: plans, companies, users, refresh sessions, settings and company settings. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('plans', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable().unique();
    t.integer('users').notNullable().defaultTo(1);
    t.integer('connections').notNullable().defaultTo(1);
    t.integer('queues').notNullable().defaultTo(1);
    t.decimal('amount', 12, 2).notNullable().defaultTo(0);
    t.boolean('is_public').notNullable().defaultTo(true);
    for (const f of ['use_whatsapp', 'use_facebook', 'use_instagram', 'use_campaigns', 'use_schedules', 'use_internal_chat', 'use_external_api', 'use_kanban', 'use_open_ai', 'use_integration']) {
      t.boolean(f).notNullable().defaultTo(true);
    }
    t.timestamps(true, true);
  });

  await knex.schema.createTable('companies', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable().unique();
    t.string('email', 255);
    t.string('phone', 50);
    t.string('document', 50);
    t.string('payment_method', 50);
    t.boolean('status').notNullable().defaultTo(true);
    t.date('due_date');
    t.string('recurrence', 20);
    t.jsonb('schedules').notNullable().defaultTo('[]');
    t.integer('plan_id').references('plans.id').onDelete('RESTRICT');
    t.timestamp('last_login', { useTz: true });
    t.timestamps(true, true);
    t.index(['plan_id']);
  });

  await knex.schema.createTable('users', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    t.string('email', 255).notNullable();
    t.string('password_hash', 255).notNullable();
    t.integer('token_version').notNullable().defaultTo(0);
    t.string('profile', 20).notNullable().defaultTo('user');
    t.boolean('super').notNullable().defaultTo(false);
    t.boolean('online').notNullable().defaultTo(false);
    t.string('profile_image', 255);
    t.integer('whatsapp_id');
    t.string('start_work', 5).notNullable().defaultTo('00:00');
    t.string('end_work', 5).notNullable().defaultTo('23:59');
    t.string('all_ticket', 10).notNullable().defaultTo('disable');
    t.boolean('allow_group').notNullable().defaultTo(false);
    t.string('default_theme', 10).notNullable().defaultTo('light');
    t.string('default_menu', 10).notNullable().defaultTo('closed');
    t.text('farewell_message');
    t.string('language', 10);
    t.string('color', 20);
    t.string('wpp', 50);
    t.timestamp('last_seen_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['company_id']);
  });
  // e-mail is the login name: unique across the platform, case-insensitively.
  await knex.raw('CREATE UNIQUE INDEX users_email_lower_unique ON users (lower(email))');

  await knex.schema.createTable('auth_sessions', (t) => {
    t.uuid('id').primary();
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.uuid('family_id').notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.string('revoked_reason', 20);
    t.string('user_agent', 255);
    t.string('ip', 64);
    t.timestamps(true, true);
    t.index(['user_id']);
    t.index(['family_id']);
    t.index(['company_id']);
  });

  await knex.schema.createTable('settings', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('key', 100).notNullable();
    t.text('value').notNullable().defaultTo('');
    t.timestamps(true, true);
    t.unique(['company_id', 'key']);
  });

  await knex.schema.createTable('company_settings', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.string('key', 100).notNullable();
    t.text('value').notNullable().defaultTo('');
    t.timestamps(true, true);
    t.unique(['company_id', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['company_settings', 'settings', 'auth_sessions', 'users', 'companies', 'plans']) await knex.schema.dropTableIfExists(t);
}
