import type { Knex } from 'knex';

/**
 * `tickets_conversation_claim(company, ticket, message, record, catch_up_after, running_after)`: the
 * conversation chain's claim of a ticket's next turn (services/conversation.ts `claimNext`) as one
 * statement instead of a six-round-trip transaction. In the caller's transaction (autocommit: its own),
 * holding the ticket's advisory lock until it ends:
 * 1. with `record`, queues the turn of `message` and of the ticket's earlier inbound messages stored after
 *    `catch_up_after` that have none (ON CONFLICT DO NOTHING);
 * 2. answers `busy` when a turn of the ticket is `running` and was updated after `running_after` (a live
 *    lease);
 * 3. else claims the oldest `pending`/`failed` turn up to `message` (state `running`, attempts + 1) and
 *    returns it; no row when nothing is left.
 * Returns at most one row: (message_id, state, attempts, handled_by, busy, message_row, ticket_row), the
 * last two the claimed turn's `messages` and `tickets` rows as JSON (the chain's load of the turn, in the
 * same round trip).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION tickets_conversation_claim(
      p_company integer, p_ticket integer, p_message bigint, p_record boolean,
      p_catch_up_after timestamptz, p_running_after timestamptz
    ) RETURNS TABLE (message_id bigint, state varchar, attempts integer, handled_by varchar, busy boolean, message_row json, ticket_row json)
    LANGUAGE plpgsql AS $$
    DECLARE
      v_next bigint;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('tickets:conversation:' || p_company || ':' || p_ticket, 0));
      IF p_record THEN
        INSERT INTO conversation_turns (message_id, company_id, ticket_id)
        SELECT m.id, m.company_id, m.ticket_id FROM messages m
        WHERE m.company_id = p_company AND m.ticket_id = p_ticket AND m.from_me = false AND m.is_private = false
          AND (m.id = p_message OR (m.id < p_message AND m.created_at > p_catch_up_after))
        ON CONFLICT ON CONSTRAINT conversation_turns_pkey DO NOTHING;
      END IF;
      IF EXISTS (SELECT 1 FROM conversation_turns c
                 WHERE c.ticket_id = p_ticket AND c.company_id = p_company AND c.state = 'running' AND c.updated_at > p_running_after) THEN
        RETURN QUERY SELECT NULL::bigint, 'running'::varchar, 0, NULL::varchar, true, NULL::json, NULL::json;
        RETURN;
      END IF;
      SELECT c.message_id INTO v_next FROM conversation_turns c
      WHERE c.ticket_id = p_ticket AND c.company_id = p_company AND c.state IN ('pending', 'failed') AND c.message_id <= p_message
      ORDER BY c.message_id LIMIT 1;
      IF v_next IS NULL THEN
        RETURN;
      END IF;
      RETURN QUERY
        UPDATE conversation_turns c SET state = 'running', attempts = c.attempts + 1, updated_at = now()
        WHERE c.message_id = v_next
        RETURNING c.message_id, c.state, c.attempts, c.handled_by, false,
          (SELECT row_to_json(m) FROM messages m WHERE m.id = c.message_id AND m.company_id = c.company_id),
          (SELECT row_to_json(t) FROM tickets t WHERE t.id = c.ticket_id AND t.company_id = c.company_id);
    END;
    $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS tickets_conversation_claim(integer, integer, bigint, boolean, timestamptz, timestamptz)');
}
