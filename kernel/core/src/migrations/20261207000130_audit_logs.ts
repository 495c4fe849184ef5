import type { Knex } from 'knex';

/**
 * The audit log (issue 34 item 1; kernel/core/src/audit.ts): `audit_logs` is append-only. A trigger
 * refuses every UPDATE and DELETE of a row and a statement trigger refuses TRUNCATE, so no route, role or
 * plugin can change or remove an entry (only a superuser dropping the triggers could). `company_id` and
 * `user_id` carry no foreign key on purpose: an entry outlives the user and the company it names (a
 * cascade would be a DELETE, which the trigger refuses).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE audit_logs (
      id bigserial PRIMARY KEY,
      company_id integer NOT NULL,
      actor_kind varchar(10) NOT NULL CHECK (actor_kind IN ('user', 'system', 'bot', 'api')),
      user_id integer,
      actor_label varchar(200),
      entity varchar(40) NOT NULL,
      entity_id varchar(100),
      action varchar(40) NOT NULL,
      before jsonb,
      after jsonb,
      ip varchar(64),
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw('CREATE INDEX audit_logs_company_created ON audit_logs (company_id, created_at DESC, id DESC)');
  await knex.raw('CREATE INDEX audit_logs_company_entity ON audit_logs (company_id, entity, entity_id)');
  await knex.raw('CREATE INDEX audit_logs_company_user ON audit_logs (company_id, user_id)');
  await knex.raw(`
    CREATE FUNCTION audit_logs_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_logs is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$`);
  await knex.raw('CREATE TRIGGER audit_logs_no_change BEFORE UPDATE OR DELETE ON audit_logs FOR EACH ROW EXECUTE FUNCTION audit_logs_append_only()');
  await knex.raw('CREATE TRIGGER audit_logs_no_truncate BEFORE TRUNCATE ON audit_logs FOR EACH STATEMENT EXECUTE FUNCTION audit_logs_append_only()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS audit_logs');
  await knex.raw('DROP FUNCTION IF EXISTS audit_logs_append_only()');
}
